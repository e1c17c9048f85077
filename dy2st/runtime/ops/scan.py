"""Scans: cumsum and cumprod (over the flattened tensor when axis is None)."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..dtype import bool_, convert_dtype, dtype_name, int64
from ..registry import Meta, apply, register_op
from . import infer as I
from .operands import as_tensor

# Paddle 3.3.1's cumsum accumulates these in int64 (cumsum of int32 is int64); its cumprod keeps
# every integer dtype (and dy2st's takes a bool one as int64, as before)
CUMSUM_TO_INT64 = frozenset(("bool", "uint8", "int8", "int16", "int32"))
_CUMPROD_TO_INT64 = frozenset(("bool",))


def _scan_infer(widen: frozenset):
    def infer(x, axis, dtype):
        if axis is None:
            n = I.prod(x._shape) if I.known(x._shape) else -1
            shape = (n,)
        else:
            I.norm_axes(axis, len(x._shape))
            shape = x._shape
        if dtype:
            return Meta(shape, convert_dtype(dtype))
        return Meta(shape, int64 if dtype_name(x.dtype) in widen else x.dtype)
    return infer


def _scan_kernel(np_fn, widen: frozenset):
    def k(x, axis, dtype):
        if dtype:
            x = x.astype(dtype)
        elif x.dtype.name in widen:
            x = x.astype(np.int64)
        if axis is None:
            x, axis = x.reshape(-1), 0
        # numpy widens small ints when accumulating; Paddle keeps the input dtype.
        return np_fn(x, axis=axis).astype(x.dtype, copy=False)
    return k


register_op("cumsum", infer=_scan_infer(CUMSUM_TO_INT64))(_scan_kernel(np.cumsum, CUMSUM_TO_INT64))
register_op("cumprod", infer=_scan_infer(_CUMPROD_TO_INT64))(
    _scan_kernel(np.cumprod, _CUMPROD_TO_INT64))


def _dtype_attr(dtype: Any) -> Optional[str]:
    return dtype_name(dtype) if dtype is not None else None


def cumsum(x: Any, axis: Optional[int] = None, dtype: Any = None, name: Optional[str] = None) -> Any:
    """Running sum along `axis`; integers accumulate in int64 unless `dtype` says otherwise, as
    in Paddle 3.3.1, which has no bool cumsum (cast the mask to an integer dtype first)."""
    x = as_tensor(x)
    if x.dtype == bool_ and dtype is None:
        raise TypeError("cumsum: Paddle has no cumsum of a bool tensor: cast it first, e.g. "
                        "x.astype('int64'), or pass dtype='int64'")
    return apply("cumsum", [x], {"axis": None if axis is None else int(axis),
                                 "dtype": _dtype_attr(dtype)})


def cumprod(x: Any, dim: Optional[int] = None, dtype: Any = None, name: Optional[str] = None) -> Any:
    """Running product along `dim`."""
    return apply("cumprod", [as_tensor(x)], {"axis": None if dim is None else int(dim),
                                             "dtype": _dtype_attr(dtype)})
