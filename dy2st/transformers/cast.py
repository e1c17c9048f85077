"""int() / float() / bool() / str() / repr() / len() / sum() / all() / any() / max() / min() /
round() / isinstance() / type() / divmod() of tensors become helpers that keep them symbolic (and count a symbolic tensor as a
Tensor).

    n = int(x.sum())            ->   n = _jst.Int(x.sum())
    isinstance(y, paddle.Tensor) ->   _jst.IsInstance(y, paddle.Tensor)
"""
from __future__ import annotations

import gast

from . import templates
from .context import PassContext
from .walk import all_nodes

_CASTS = {"int": "Int", "float": "Float", "bool": "Bool", "str": "Str", "len": "Len",
          "sum": "Sum", "all": "AllOf", "any": "AnyOf", "type": "Type", "repr": "Repr"}
_TWO_ARGS = {"isinstance": "IsInstance", "divmod": "DivMod"}
_ANY_ARGS = {"max": "Max", "min": "Min", "round": "Round"}


def _rewrite(node: gast.Call) -> None:
    func = node.func
    if not isinstance(func, gast.Name):
        return
    if func.id in _CASTS and len(node.args) == 1 and not node.keywords:
        node.func = templates.replace_expr(f"_jst.{_CASTS[func.id]}")
    elif func.id in _TWO_ARGS and len(node.args) == 2 and not node.keywords:
        node.func = templates.replace_expr(f"_jst.{_TWO_ARGS[func.id]}")
    elif func.id in _ANY_ARGS and node.args and \
            not any(isinstance(a, gast.Starred) for a in node.args):
        node.func = templates.replace_expr(f"_jst.{_ANY_ARGS[func.id]}")


def transform(node: gast.AST, ctx: PassContext) -> gast.AST:
    # only a call's `func` changes, in place: a flat walk over the calls is enough
    for call in [n for n in all_nodes(node) if isinstance(n, gast.Call)]:
        _rewrite(call)
    return node
