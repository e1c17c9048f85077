"""Scans composed from existing ops: logcumsumexp, cummax, cummin (values and indices)."""
from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

from ..dtype import dtype_name
from . import infer as I
from .combine import moveaxis
from .creation import arange, ones
from .dims import dims
from .math import exp, log
from .operands import as_tensor, cast
from .reduce import max as _max, min as _min
from .scan import cumsum
from .selection import where
from .shape import flatten, unsqueeze
from .triangular import tril


def logcumsumexp(x: Any, axis: Optional[int] = None, dtype: Any = None,
                 name: Optional[str] = None) -> Any:
    """log(cumsum(exp(x))) along `axis` (over the flattened x when axis is None), shifted by the
    maximum for stability."""
    x = as_tensor(x)
    if dtype is not None:
        x = cast(x, dtype)
    if axis is None:
        x, axis = flatten(x), 0
    shift = _max(x, axis=axis, keepdim=True)
    return log(cumsum(exp(x - shift), axis=axis)) + shift


def _cum_extreme(x: Any, axis: Optional[int], dtype: Any, largest: bool) -> Tuple[Any, Any]:
    x = as_tensor(x)
    if axis is None:
        x, axis = flatten(x), 0
    (axis,) = I.norm_axes(axis, len(dims(x)))
    n = dims(x)[axis]
    if n < 0:
        raise ValueError("cummax / cummin: the scanned dim must be known")
    xt = moveaxis(x, axis, -1)
    row = unsqueeze(xt, -2)                                   # [..., 1, n(j)]
    upto = cast(tril(ones([n, n], "int32")), "bool")          # j <= i
    if x.dtype.is_floating:
        fill = -np.inf if largest else np.inf
    else:
        info = np.iinfo(dtype_name(x.dtype))
        fill = info.min if largest else info.max
    masked = where(upto, row, row * 0 + fill)
    values = (_max if largest else _min)(masked, axis=-1)
    # the index of the last occurrence of the running extreme, as Paddle returns
    js = arange(0, n, 1, "int64")
    at = cast(masked == unsqueeze(values, -1), "bool")
    indices = _max(where(at, js + cast(row * 0, "int64"), js * 0 - 1), axis=-1)
    return moveaxis(values, -1, axis), cast(moveaxis(indices, -1, axis), dtype)


def cummax(x: Any, axis: Optional[int] = None, dtype: Any = "int64",
           name: Optional[str] = None) -> Tuple[Any, Any]:
    """The running maximum along `axis` and the index where it was reached."""
    return _cum_extreme(x, axis, dtype, True)


def cummin(x: Any, axis: Optional[int] = None, dtype: Any = "int64",
           name: Optional[str] = None) -> Tuple[Any, Any]:
    """The running minimum along `axis` and the index where it was reached."""
    return _cum_extreme(x, axis, dtype, False)
