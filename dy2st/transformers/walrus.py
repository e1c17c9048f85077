"""A `while` whose test assigns with `:=` tests at the top of a `while True:` body: the converted
test runs in a function of its own, where the assignment would bind a name of that function.

    while (s := s + x.sum()) < limit:        while True:
        s = s * 1.5                    ->        if not (s := s + x.sum()) < limit:
                                                     break
                                                 s = s * 1.5
The break pass then makes the `break` a flag, as for any loop."""
from __future__ import annotations

from typing import Any

import gast

from . import templates
from .base import Transformer, copy_origin
from .context import PassContext
from .walk import child_nodes


def assigns(expr: gast.AST) -> bool:
    """expr holds a `:=` that binds a name of the enclosing function (not of a nested lambda)."""
    if isinstance(expr, gast.NamedExpr):
        return True
    if isinstance(expr, gast.Lambda):
        return False
    return any(assigns(c) for c in child_nodes(expr))


class WalrusLoopTransformer(Transformer):
    def visit_While(self, node: gast.While) -> Any:
        self.generic_visit(node)
        if node.orelse or not assigns(node.test):
            return node     # an else clause runs when the test fails: kept as Python writes it
        guard = templates.replace("if not test:\n    break", test=node.test)
        copy_origin(node, guard)
        node.test = gast.Constant(value=True, kind=None)
        node.body = guard + node.body
        return node


def transform(node: gast.AST, ctx: PassContext) -> gast.AST:
    return WalrusLoopTransformer(ctx).visit(node)
