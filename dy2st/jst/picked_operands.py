"""`x and y` / `x or y` as a value, with x a tensor whose truth is known only when the program
runs: the operand eager code returns, selected, and the truth eager code tests if it is tested."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..runtime import ops, state
from ..runtime.control_flow import cond
from ..runtime.control_flow.values import as_pred, is_number
from ..runtime.dtype import dtype_name
from ..runtime.errors import ConversionError
from ..runtime.program import Variable
from ..runtime.tensor import TensorLike


class OperandPickError(ConversionError, TypeError):
    """`x or y` used as a value where no one program value holds both operands."""


def value_dtype(v: Any) -> str:
    if isinstance(v, TensorLike):
        return dtype_name(v.dtype)
    return "bool" if type(v) is bool else "int64" if isinstance(v, int) else "float32"


def common_dtype(x: Any, y: Any) -> str:
    """Eager's result dtype on either path, as one: a Python number takes a tensor's dtype
    (bool aside), two tensors the wider one."""
    dx, dy = value_dtype(x), value_dtype(y)
    if dx == dy or dy == "bool":
        return dx
    if dx == "bool":
        return dy
    if not isinstance(y, TensorLike):
        return dx if np.dtype(dx).kind in "fc" or np.dtype(dy).kind in "iu" else dy
    if not isinstance(x, TensorLike):
        return dy if np.dtype(dy).kind in "fc" or np.dtype(dx).kind in "iu" else dx
    return str(np.result_type(dx, dy))


def as_dtype(v: Any, dtype: str) -> Any:
    if isinstance(v, TensorLike):
        return v if value_dtype(v) == dtype else ops.cast(v, dtype)
    return ops.full([], v, dtype)


def one_element(v: Any) -> bool:
    """v is a Python number or a tensor known to hold one element (its truth is its value)."""
    if is_number(v):
        return True
    if not isinstance(v, TensorLike) or getattr(v, "kind", "dense") != "dense":
        return False
    if isinstance(v, Variable) and v.name in v.block.program.truths:
        return False            # itself picked from operands of several elements
    shape = v._shape if isinstance(v, Variable) else v.shape
    return all(d == 1 for d in shape)


def recorded_truth(v: Any) -> bool:
    """v is a value picked by `x or y` that carries eager code's truth test."""
    return isinstance(v, Variable) and v.name in v.block.program.truths


def short_circuit(px: Variable, y: Any, on_true: bool) -> Variable:
    """The truth of `x and y` (on_true) or `x or y` as one bool, px being x's: y's truth is
    tested (and raises when ambiguous) only where the program makes that test."""
    if not isinstance(y, Variable):
        py = ops.full([], bool(y), "bool")
        return ops.logical_and(px, py) if on_true else ops.logical_or(px, py)
    decided = lambda: ops.full([], not on_true, "bool")  # noqa: E731
    test_y = lambda: as_pred(y, defer=True)  # noqa: E731
    return cond(px, test_y, decided) if on_true else cond(px, decided, test_y)


def _broadcastable(a: Sequence[int], b: Sequence[int]) -> bool:
    for da, db in zip(reversed(a), reversed(b)):
        if da >= 0 and db >= 0 and da != db and da != 1 and db != 1:
            return False
    return True


def _shape(v: Any) -> Sequence[int]:
    return v._shape if isinstance(v, Variable) else tuple(v.shape)


def _describe(v: Any) -> str:
    if isinstance(v, TensorLike) and getattr(v, "kind", "dense") == "dense":
        dims = ", ".join("None" if d < 0 else str(d) for d in _shape(v))
        return f"a {value_dtype(v)} tensor of shape [{dims}]"
    if isinstance(v, Variable):
        return "a tensor array (a list grown in a tensor loop or `if`)"
    return f"{type(v).__name__} {v!r}"[:120]


def check_one_value(a: Any, b: Any, construct: str) -> None:
    """Raise OperandPickError unless one program value can hold a on one path and b on the
    other (numbers and dense tensors of broadcastable shapes)."""
    mergeable = all(is_number(v) or isinstance(v, TensorLike) and
                    getattr(v, "kind", "dense") == "dense" for v in (a, b))
    if not mergeable or not _broadcastable(() if is_number(a) else _shape(a),
                                           () if is_number(b) else _shape(b)):
        raise OperandPickError(
            f"{construct}: eager code gives {_describe(a)} or {_describe(b)}, chosen by a "
            "tensor known only when the program runs, and no one value of the program holds "
            "both: use an `if` on the condition and assign in each branch (or make both "
            "tensors of one shape)")


def select(px: Variable, a: Any, b: Any, construct: str) -> Variable:
    """a where the bool px holds, else b: what eager code gives on either path, as one value
    in their common dtype and broadcast shape (as a number on one path of a tensor `if`)."""
    check_one_value(a, b, construct)
    dtype = common_dtype(a, b)
    return ops.where(px, as_dtype(a, dtype), as_dtype(b, dtype))


def pick(x: Any, y: Any, on_true: bool) -> Variable:
    """The value of `x and y` (on_true) or `x or y`: y where x's truth says so, else x; a test
    of the result later tests x, then y only where Python would."""
    construct = f"`x {'and' if on_true else 'or'} y` used as a value"
    check_one_value(x, y, construct)
    px = as_pred(x, defer=True)
    out = select(px, y, x, construct) if on_true else select(px, x, y, construct)
    state.current_block().program.truths[out.name] = lambda: short_circuit(px, y, on_true)
    return out
