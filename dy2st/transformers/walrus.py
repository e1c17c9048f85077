"""A `while` whose test assigns with `:=` tests at the top of a `while True:` body: the converted
test runs in a function of its own, where the assignment would bind a name of that function.

    while (s := s + x.sum()) < limit:        while True:
        s = s * 1.5                    ->        if not (s := s + x.sum()) < limit:
                                                     break
                                                 s = s * 1.5
The break pass then makes the `break` a flag, as for any loop. A comprehension whose element or
filter assigns with `:=` becomes a loop first (comprehension_walrus.py)."""
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
        node.body = guard + node.body
        return node


def transform(node: gast.AST, ctx: PassContext) -> gast.AST:
    # comprehensions first: the loops they become may hold a `while` of their own
    node = ComprehensionWalrusTransformer(ctx).visit(node)
    return WalrusLoopTransformer(ctx).visit(node)
