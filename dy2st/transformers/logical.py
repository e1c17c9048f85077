"""and / or / not become helpers that keep Python's short-circuit for Python operands.

    a and b   ->  _jst.And(lambda: a, lambda: b)
    a or b    ->  _jst.Or(lambda: a, lambda: b)
    not a     ->  _jst.Not(a)
"""
from __future__ import annotations

from typing import Any

import gast

from . import templates
from .base import Transformer


class LogicalTransformer(Transformer):
    def visit_BoolOp(self, node: gast.BoolOp) -> Any:
        self.generic_visit(node)
        helper = "And" if isinstance(node.op, gast.And) else "Or"
        values = list(node.values)
        result = values[-1]
        for left in reversed(values[:-1]):
            result = templates.replace_expr(f"_jst.{helper}(lambda: left, lambda: right)",
                                            left=left, right=result)
        return result

    def visit_UnaryOp(self, node: gast.UnaryOp) -> Any:
        self.generic_visit(node)
        if isinstance(node.op, gast.Not):
            return templates.replace_expr("_jst.Not(operand)", operand=node.operand)
        return node


def transform(node: gast.AST, ctx) -> gast.AST:
    return LogicalTransformer(ctx).visit(node)
