"""int() / float() / bool() / len() / sum() / all() / any() / max() / min() / round() /
isinstance() of tensors become helpers that keep them symbolic (and count a symbolic tensor as a
Tensor).

    n = int(x.sum())            ->   n = _jst.Int(x.sum())
    isinstance(y, paddle.Tensor) ->   _jst.IsInstance(y, paddle.Tensor)
"""
from __future__ import annotations

from typing import Any

import gast

from .context import PassContext
from . import templates
from .base import Transformer

_CASTS = {"int": "Int", "float": "Float", "bool": "Bool", "len": "Len", "sum": "Sum",
          "all": "AllOf", "any": "AnyOf"}
_TWO_ARGS = {"isinstance": "IsInstance"}
_ANY_ARGS = {"max": "Max", "min": "Min", "round": "Round"}


class CastTransformer(Transformer):
    def visit_Call(self, node: gast.Call) -> Any:
        self.generic_visit(node)
        if isinstance(node.func, gast.Name) and node.func.id in _CASTS and len(node.args) == 1 \
                and not node.keywords:
            node.func = templates.replace_expr(f"_jst.{_CASTS[node.func.id]}")
        elif isinstance(node.func, gast.Name) and node.func.id in _TWO_ARGS and \
                len(node.args) == 2 and not node.keywords:
            node.func = templates.replace_expr(f"_jst.{_TWO_ARGS[node.func.id]}")
        elif isinstance(node.func, gast.Name) and node.func.id in _ANY_ARGS and node.args and \
                not any(isinstance(a, gast.Starred) for a in node.args):
            node.func = templates.replace_expr(f"_jst.{_ANY_ARGS[node.func.id]}")
        return node


def transform(node: gast.AST, ctx: PassContext) -> gast.AST:
    return CastTransformer(ctx).visit(node)
