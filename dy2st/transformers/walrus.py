"""A `while` whose test assigns with `:=` tests at the top of a `while True:` body: the converted
test runs in a function of its own, where the assignment would bind a name of that function.

    while (s := s + x.sum()) < limit:        while True:
        s = s * 1.5                    ->        if not (s := s + x.sum()) < limit:
                                                     break
                                                 s = s * 1.5
The break pass then makes the `break` a flag, as for any loop. A comprehension whose element or
filter assigns with `:=` becomes a loop first (comprehension_walrus.py).

The logical pass gives each operand of `and` / `or` a lambda of its own, where a `:=` would bind
a name of the lambda; an `if` test or an assigned value that is such an operation holding a `:=`
is computed first, with Python's short circuit, by statements:

    if not ((n := n + 1) < 4 and s < 2.0):       logical_0 = (n := n + 1) < 4
        break                               ->   if logical_0:
                                                     logical_0 = s < 2.0
                                                 if not logical_0:
                                                     break"""
from __future__ import annotations

from typing import Any

import gast

from . import templates
from .base import Transformer, copy_origin
from .comprehension_walrus import ComprehensionWalrusTransformer, assigns
from .context import PassContext


class WalrusLoopTransformer(Transformer):
    def visit_While(self, node: gast.While) -> Any:
        self.generic_visit(node)
        if node.orelse or not assigns(node.test):
            return node     # an else clause runs when the test fails: kept as Python writes it
        guard = templates.replace("if not test:\n    break", test=node.test)
        copy_origin(node, guard)
        node.test = gast.Constant(value=True, kind=None)
        node.body = _flat(self.visit(g) for g in guard) + node.body
        return node

    def visit_If(self, node: gast.If) -> Any:
        self.generic_visit(node)
        return self._unfolded(node, "test")

    def visit_Assign(self, node: gast.Assign) -> Any:
        self.generic_visit(node)
        return self._unfolded(node, "value")

    def _unfolded(self, node: gast.stmt, field: str) -> Any:
        """node with its `field` (an and / or holding a `:=`, or `not` of one) computed first."""
        expr = getattr(node, field)
        negated = isinstance(expr, gast.UnaryOp) and isinstance(expr.op, gast.Not)
        inner = expr.operand if negated else expr
        if not isinstance(inner, gast.BoolOp) or not assigns(inner):
            return node
        name = self.ctx.namer.new("logical")
        test = name if isinstance(inner.op, gast.And) else f"not {name}"
        tail: list = []
        for value in reversed(inner.values[1:]):
            tail = templates.replace("t = value", t=name, value=value) + (
                templates.replace(f"if {test}:\n    rest", rest=tail) if tail else [])
        stmts = templates.replace("t = value", t=name, value=inner.values[0]) + \
            templates.replace(f"if {test}:\n    rest", rest=tail)
        copy_origin(node, stmts)
        setattr(node, field, templates.replace_expr(f"not {name}" if negated else name))
        copy_origin(stmts[0], getattr(node, field))
        # an operand that is itself an and / or holding a `:=` is computed by statements too
        return _flat(self.visit(s) for s in stmts) + [node]


def _flat(results: Any) -> list:
    out: list = []
    for r in results:
        out.extend(r if isinstance(r, list) else [r])
    return out


def transform(node: gast.AST, ctx: PassContext) -> gast.AST:
    # comprehensions first: the loops they become may hold a `while` of their own
    node = ComprehensionWalrusTransformer(ctx).visit(node)
    return WalrusLoopTransformer(ctx).visit(node)
