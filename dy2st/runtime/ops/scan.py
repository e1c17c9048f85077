"""Scans: cumsum and cumprod (over the flattened tensor when axis is None)."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..dtype import bool_, convert_dtype, dtype_name, int64
from ..registry import Meta, apply, register_op
from . import infer as I
from .operands import as_tensor


def _scan_infer(x, axis, dtype):
    if axis is None:
        n = I.prod(x._shape) if I.known(x._shape) else -1
        shape = (n,)
    else:
        I.norm_axes(axis, len(x._shape))
        shape = x._shape
    if dtype:
        d = convert_dtype(dtype)
    else:
        d = int64 if x.dtype == bool_ else x.dtype
    return Meta(shape, d)


def _scan_kernel(np_fn):
    def k(x, axis, dtype):
        if dtype:
            x = x.astype(dtype)
        elif x.dtype == np.bool_:
            x = x.astype(np.int64)
        if axis is None:
            x, axis = x.reshape(-1), 0
        # numpy widens small ints when accumulating; Paddle keeps the input dtype.
        return np_fn(x, axis=axis).astype(x.dtype, copy=False)
    return k


register_op("cumsum", infer=_scan_infer)(_scan_kernel(np.cumsum))
register_op("cumprod", infer=_scan_infer)(_scan_kernel(np.cumprod))


def _dtype_attr(dtype: Any) -> Optional[str]:
    return dtype_name(dtype) if dtype is not None else None


def cumsum(x: Any, axis: Optional[int] = None, dtype: Any = None, name: Optional[str] = None) -> Any:
    """Running sum along `axis`."""
    return apply("cumsum", [as_tensor(x)], {"axis": None if axis is None else int(axis),
                                            "dtype": _dtype_attr(dtype)})


def cumprod(x: Any, dim: Optional[int] = None, dtype: Any = None, name: Optional[str] = None) -> Any:
    """Running product along `dim`."""
    return apply("cumprod", [as_tensor(x)], {"axis": None if dim is None else int(dim),
                                             "dtype": _dtype_attr(dtype)})
