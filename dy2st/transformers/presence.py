"""Which comparisons test what a tensor loop may leave unknown until the program runs: whether a
variable is None, whether a dict holds a key."""
from __future__ import annotations

import gast

from .walk import all_nodes

_SCOPED = (gast.NamedExpr, gast.Yield, gast.YieldFrom, gast.Await)


def presence_test(node: gast.AST) -> bool:
    """`x is None`, `x is not None`, `k in d`, `k not in d`: a tensor loop may leave x None or
    not and d with the key k or not (known when the program runs), so the test goes through
    `_jst.Compare`, which gives a tensor then."""
    if len(node.ops) != 1:
        return False
    op, right = type(node.ops[0]), node.comparators[0]
    if not (op in (gast.In, gast.NotIn) or op in (gast.Is, gast.IsNot) and
            type(right) is gast.Constant and right.value is None):
        return False
    # (the operands become lambdas: a `:=` or `yield` in them would change scope)
    return not any(type(n) in _SCOPED for n in all_nodes(node))
