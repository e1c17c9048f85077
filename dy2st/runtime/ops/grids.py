"""Evenly spaced values and coordinate grids: linspace, meshgrid."""
from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

from ..dtype import convert_dtype, dtype_name
from ..registry import Meta, apply, register_op
from .creation import default_float
from .operands import as_tensor, is_tensor
from .shape import expand, reshape


def _linspace_infer(start, stop, num, dtype, n):
    return Meta((n,), convert_dtype(dtype))


@register_op("linspace", infer=_linspace_infer)
def _linspace_kernel(start, stop, num, dtype, n):
    return np.linspace(np.float64(start), np.float64(stop), int(num)).astype(dtype)


def linspace(start: Any, stop: Any, num: Any, dtype: Any = None, name: Optional[str] = None) -> Any:
    """`num` evenly spaced values from start to stop (both included)."""
    d = convert_dtype(dtype) if dtype is not None else default_float()
    n = -1 if is_tensor(num) and not hasattr(num, "_value") else int(num)
    if n < -1:
        raise ValueError(f"linspace: num must be >= 0, got {n}")
    # Bounds and count go in as float64/int64 tensors so tensor arguments work the same way.
    ins = [as_tensor(start, "float64"), as_tensor(stop, "float64"), as_tensor(num, "int64")]
    return apply("linspace", ins, {"dtype": dtype_name(d), "n": n})


def meshgrid(*args: Any, **kwargs: Any) -> List[Any]:
    """Coordinate grids ('ij' indexing) from 1-D tensors, given as arguments or one list."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    xs = [as_tensor(a) for a in args]
    for x in xs:
        if x.ndim != 1:
            raise ValueError(f"meshgrid expects 1-D tensors, got rank {x.ndim}")
    full_shape: List[Any] = [x.shape[0] for x in xs]
    out = []
    for i, x in enumerate(xs):
        view = [1] * len(xs)
        view[i] = -1
        out.append(expand(reshape(x, view), full_shape))
    return out
