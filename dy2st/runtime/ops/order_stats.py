"""Order statistics composed from sort: median, nanmedian-free quantile."""
from __future__ import annotations

import math as _math
from typing import Any, Optional

from . import infer as I
from .dims import dims
from .operands import as_tensor, cast
from .shape import flatten, reshape, squeeze, stack
from .slicing import strided_slice
from .sorting import argsort, sort


def _at(x: Any, axis: int, k: int) -> Any:
    return strided_slice(x, [axis], [k], [k + 1], [1])


def prepare_order_stat(x: Any, axis: Any) -> Any:
    x = as_tensor(x)
    if axis is None:
        return flatten(x), 0, True
    (axis,) = I.norm_axes(axis, len(dims(x)))
    return x, axis, False


def finish_order_stat(v: Any, axis: int, flat: bool, keepdim: bool, ndim: int) -> Any:
    if flat:
        v = squeeze(v, [0])
        if keepdim:
            v = reshape(v, [1] * ndim)
        return v
    return v if keepdim else squeeze(v, [axis])


def median(x: Any, axis: Optional[int] = None, keepdim: bool = False, mode: str = "avg",
           name: Optional[str] = None) -> Any:
    """The median along `axis` (all entries when None). With an even count, mode='avg' averages
    the two middle values and mode='min' takes the lower one (and, for an int axis, also returns
    its index)."""
    if mode not in ("avg", "min"):
        raise ValueError(f"median: mode must be 'avg' or 'min', got {mode!r}")
    ndim = len(dims(as_tensor(x)))
    x, ax, flat = prepare_order_stat(x, axis)
    n = dims(x)[ax]
    if n < 0:
        raise ValueError("median: the reduced dim must be known")
    s = sort(x, axis=ax)
    k = (n - 1) // 2
    if mode == "avg":
        lo = _at(s, ax, k)
        v = lo if n % 2 else (lo + _at(s, ax, k + 1)) / 2
        if not v.dtype.is_floating:
            v = cast(v, "float32")
        return finish_order_stat(v, ax, flat, keepdim, ndim)
    v = finish_order_stat(_at(s, ax, k), ax, flat, keepdim, ndim)
    if axis is None:
        return v
    idx = finish_order_stat(_at(argsort(x, axis=ax, stable=True), ax, k), ax, flat, keepdim, ndim)
    return v, idx


def quantile(x: Any, q: Any, axis: Any = None, keepdim: bool = False,
             interpolation: str = "linear", name: Optional[str] = None) -> Any:
    """The q-th quantiles along `axis` (q a float or a list of them in [0, 1]; a list stacks the
    results along a new dim 0). interpolation: linear, lower, higher, nearest or midpoint."""
    if interpolation not in ("linear", "lower", "higher", "nearest", "midpoint"):
        raise ValueError(f"quantile: unknown interpolation {interpolation!r}")
    qs = list(q) if isinstance(q, (list, tuple)) else [q]
    if any(not 0 <= float(v) <= 1 for v in qs):
        raise ValueError(f"quantile: q must be in [0, 1], got {q}")
    ndim = len(dims(as_tensor(x)))
    x, ax, flat = prepare_order_stat(x, axis)
    if not x.dtype.is_floating:
        x = cast(x, "float32")
    n = dims(x)[ax]
    if n < 0:
        raise ValueError("quantile: the reduced dim must be known")
    s = sort(x, axis=ax)
    outs = []
    for v in qs:
        pos = float(v) * (n - 1)
        lo_i, hi_i = int(_math.floor(pos)), int(_math.ceil(pos))
        lo, hi = _at(s, ax, lo_i), _at(s, ax, hi_i)
        if interpolation == "lower":
            r = lo
        elif interpolation == "higher":
            r = hi
        elif interpolation == "nearest":
            r = lo if pos - lo_i <= 0.5 and not (pos - lo_i == 0.5 and lo_i % 2) else hi
        elif interpolation == "midpoint":
            r = (lo + hi) / 2
        else:
            r = lo + (hi - lo) * (pos - lo_i)
        outs.append(finish_order_stat(r, ax, flat, keepdim, ndim))
    return stack(outs, axis=0) if isinstance(q, (list, tuple)) else outs[0]
