"""and / or / not become helpers that keep Python's short-circuit for Python operands.

    a and b   ->  _jst.And(lambda: a, lambda: b)
    a or b    ->  _jst.Or(lambda: a, lambda: b)
    not a     ->  _jst.Not(a)
    a < b < c ->  _jst.Compare(('<', '<'), lambda: a, lambda: b, lambda: c)
    x is None ->  _jst.Compare(('is',), lambda: x, lambda: None)     (k in d too)
"""
from __future__ import annotations

from typing import Any

import gast

from . import templates
from .base import Transformer
from .context import PassContext
from .presence import presence_test


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


    def visit_Compare(self, node: gast.Compare) -> Any:
        # A chain hides an `and`: each operand is evaluated once, lazily, as Python does.
        self.generic_visit(node)
        if len(node.ops) < 2 and not presence_test(node):
            return node
        ops = gast.Tuple(elts=[gast.Constant(value=_OPS[type(o)], kind=None) for o in node.ops],
                         ctx=gast.Load())
        operands = [templates.replace_expr("lambda: value", value=v)
                    for v in [node.left] + list(node.comparators)]
        return gast.Call(func=templates.replace_expr("_jst.Compare"), args=[ops] + operands,
                         keywords=[])


_OPS = {gast.Lt: "<", gast.LtE: "<=", gast.Gt: ">", gast.GtE: ">=", gast.Eq: "==", gast.NotEq: "!=",
        gast.Is: "is", gast.IsNot: "is not", gast.In: "in", gast.NotIn: "not in"}


def transform(node: gast.AST, ctx: PassContext) -> gast.AST:
    return LogicalTransformer(ctx).visit(node)
