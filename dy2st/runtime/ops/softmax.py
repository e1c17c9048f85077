"""softmax and log_softmax: their kernels and public functions, one registration shared by
paddle.softmax, Tensor.softmax and nn.functional (which re-exports them)."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..dtype import convert_dtype
from ..registry import Meta, apply, register_op
from .operands import as_tensor, cast

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


@register_op("softmax", infer=_float_meta)
def _softmax_kernel(x, axis):
    if isinstance(x, np.ndarray) and x.dtype.kind == "f" and x.ndim:   # (0-d: numpy scalars)
        # the same ufuncs as below, in one buffer of x's dtype (ndarray methods: no wrappers)
        e = x - x.max(axis=axis, keepdims=True)
        np.exp(e, out=e)
        e /= e.sum(axis=axis, keepdims=True)
        return e
    shifted = x - np.max(x, axis=axis, keepdims=True)     # subtract the max: exp cannot overflow
    e = np.exp(shifted)
    return _out(e / np.sum(e, axis=axis, keepdims=True), x)


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
