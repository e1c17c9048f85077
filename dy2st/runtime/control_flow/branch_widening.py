"""A loop variable that one path of a tensor `if` in a converted loop's body widens (`if c:
s = s + x[0]` with an int64 s) while the other path keeps it: the kept path is cast, so the
loop learns the wider dtype and carries it with its "did a turn widen it?" flag."""
from __future__ import annotations

from typing import Any, Tuple

from .. import ops
from ..ops.infer import FLOATING
from ..ops.operands import promote
from ..program import Block, Variable, block_guard


def widened_on_one_path(a: Any, b: Any, tb: Block, fb: Block) -> Tuple[Any, Any]:
    """The two branch values of a tensor `if`, with a loop variable one branch passes through
    unchanged cast to the dtype the other gives it, where that dtype widens it (int64 ->
    float32); other values as they are (their dtypes must agree)."""
    if not isinstance(a, Variable) or not isinstance(b, Variable) \
            or a.dtype == b.dtype or a.kind != "dense" or b.kind != "dense":
        return a, b
    if _loop_param(b) and _widens(b.dtype, a.dtype):
        with block_guard(fb):
            b = ops.cast(b, a.dtype)
    elif _loop_param(a) and _widens(a.dtype, b.dtype):
        with block_guard(tb):
            a = ops.cast(a, b.dtype)
    return a, b


def _loop_param(v: Variable) -> bool:
    return v.block.widening and v.name in v.block.params


def _widens(narrow: Any, wide: Any) -> bool:
    if narrow in FLOATING and wide not in FLOATING:
        return False
    return promote(narrow, wide) == wide
