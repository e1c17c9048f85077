"""softmax and log_softmax: their kernels and public functions, one registration shared by
paddle.softmax, Tensor.softmax and nn.functional (which re-exports them)."""
from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from ..dtype import convert_dtype
from ..registry import Meta, apply, register_into, register_op
from .operands import as_tensor, cast
from .row_sums import last_axis_sums

__all__ = ["softmax", "log_softmax"]


def _float_meta(x: Any, **attrs: Any) -> Meta:
    return Meta(x._shape, x.dtype if x.dtype.is_floating else convert_dtype("float32"))


def _out(result: np.ndarray, x: np.ndarray) -> np.ndarray:
    # Kernels may compute in a wider type; results keep a float input's dtype (ints give float32).
    return np.asarray(result).astype(x.dtype if x.dtype.kind == "f" else np.float32, copy=False)


def checked_axis(x: Any, axis: int, op: str) -> int:
    """`axis` if it names a dimension of x (a 0-d x has one), else a ValueError naming `op`."""
    nd = max(x.ndim, 1)
    if not -nd <= axis < nd:
        raise ValueError(f"{op}: axis {axis} is out of range for a tensor of rank {x.ndim}")
    return axis


# Smaller arrays keep the shifted formula: the two extra reductions and einsum's set-up cost
# more than they save on a few thousand elements (suite.py's attention: 16 heads of 4 tokens)
FAST_MIN_SIZE = 4096
# dtype -> (log of its largest, log of its smallest normal number), each 8 inside
_EXP_RANGE = {np.dtype(t): (math.log(float(np.finfo(t).max)) - 8.0,
                            math.log(float(np.finfo(t).tiny)) + 8.0) for t in (np.float32, np.float64)}


def _exp_safe(x: np.ndarray, n: int) -> bool:
    """Whether exp(x) and a sum of n of them neither overflow nor leave the normal range (so
    the softmax needs no shift by the row max). False for NaN (comparisons fail): the shifted
    path gives NaN too."""
    bounds = _EXP_RANGE.get(x.dtype)
    if bounds is None or x.size < FAST_MIN_SIZE:
        return False
    if not np.maximum.reduce(x, axis=None) < bounds[0] - math.log(n):
        return False
    return bool(np.minimum.reduce(x, axis=None) > bounds[1])


def _row_sums(e: np.ndarray, axis: int) -> np.ndarray:
    """The sums of e along axis, kept as a size-1 axis (einsum's loop for short last-axis rows)."""
    if axis == -1 or axis == e.ndim - 1:
        return last_axis_sums(e)[..., None]
    return np.add.reduce(e, axis=axis, keepdims=True)


def softmax_array(x: np.ndarray, axis: int, out: Optional[np.ndarray] = None) -> np.ndarray:
    """softmax of a float array along axis, into out (x's shape and dtype; may be x) or a new
    array. When exp cannot overflow or underflow over the whole array (attention scores,
    logits of ordinary size), exp(x) / sum exp(x) directly: two fast whole-array extremes
    instead of a max along the axis and a subtraction (numpy reduces short inner rows slowly;
    half the cost at the encoder's [8, 4, 128, 128]); else the max is subtracted first."""
    if _exp_safe(x, x.shape[axis]):
        e = np.exp(x, out=out)
        s = _row_sums(e, axis)
        np.reciprocal(s, out=s)             # one division per row, then multiplies
        e *= s
        return e
    # the formula as before, bit for bit: max subtracted, exp, divided by the sums
    e = np.subtract(x, np.maximum.reduce(x, axis=axis, keepdims=True), out=out)
    np.exp(e, out=e)
    e /= np.add.reduce(e, axis=axis, keepdims=True)
    return e


@register_op("softmax", infer=_float_meta)
def _softmax_kernel(x, axis):
    if isinstance(x, np.ndarray) and x.dtype.kind == "f" and x.ndim:   # (0-d: numpy scalars)
        return softmax_array(x, axis)
    shifted = x - np.max(x, axis=axis, keepdims=True)     # subtract the max: exp cannot overflow
    e = np.exp(shifted)
    return _out(e / np.sum(e, axis=axis, keepdims=True), x)


@register_into("softmax")
def _softmax_into(x, out, axis):
    if x.dtype.kind == "f" and x.ndim:
        return softmax_array(x, axis, out)
    np.copyto(out, _softmax_kernel(x, axis))
    return out


@register_op("log_softmax", infer=_float_meta)
def _log_softmax_kernel(x, axis):
    shifted = x - np.max(x, axis=axis, keepdims=True)
    return _out(shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True)), x)


def _softmax_input(x: Any, dtype: Any) -> Any:
    x = as_tensor(x)
    return cast(x, convert_dtype(dtype)) if dtype is not None else x


def softmax(x: Any, axis: int = -1, dtype: Any = None, name: Optional[str] = None) -> Any:
    """exp(x) / sum(exp(x)) along axis, computed stably."""
    x = _softmax_input(x, dtype)
    return apply("softmax", [x], {"axis": checked_axis(x, int(axis), "softmax")})


def log_softmax(x: Any, axis: int = -1, dtype: Any = None, name: Optional[str] = None) -> Any:
    """log(softmax(x)) along axis, computed without forming softmax."""
    x = _softmax_input(x, dtype)
    return apply("log_softmax", [x], {"axis": checked_axis(x, int(axis), "log_softmax")})
