"""and / or / not become helpers that keep Python's short-circuit for Python operands.

    a and b   ->  _jst.And(lambda: a, lambda: b)
    a or b    ->  _jst.Or(lambda: a, lambda: b)
    if a or b ->  if _jst.Or(lambda: a, lambda: b, test=True)     (only its truth is used)
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
    def __init__(self, ctx: PassContext) -> None:
        super().__init__(ctx)
        # id() of the expressions whose value is only tested for truth (an `if` test, an
        # operand of `not`): `x or y` there need not be one of its operands, only its truth
        self._tested: set = set()

    def visit_If(self, node: gast.If) -> Any:
        self._tested.add(id(node.test))
        return self.generic_visit(node)

    visit_While = visit_IfExp = visit_Assert = visit_If

    def visit_comprehension(self, node: gast.comprehension) -> Any:
        self._tested.update(map(id, node.ifs))
        return self.generic_visit(node)

    def visit_BoolOp(self, node: gast.BoolOp) -> Any:
        tested = id(node) in self._tested
        if tested:          # each operand's truth decides, and the last one's is the result's
            self._tested.update(map(id, node.values))
        self.generic_visit(node)
        helper = "And" if isinstance(node.op, gast.And) else "Or"
        values = list(node.values)
        result = values[-1]
        form = f"_jst.{helper}(lambda: left, lambda: right{', test=True' if tested else ''})"
        for left in reversed(values[:-1]):
            result = templates.replace_expr(form, left=left, right=result)
        return result

    def visit_UnaryOp(self, node: gast.UnaryOp) -> Any:
        if isinstance(node.op, gast.Not):
            self._tested.add(id(node.operand))
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
