"""Order statistics that skip NaNs (nanmedian, nanquantile) and histogram_bin_edges, composed
from sort and take_along_axis so that gradients flow to the chosen entries."""
from __future__ import annotations

from typing import Any, Optional

from .creation import arange, full_like
from .dims import dims
from .gather import take_along_axis
from .math import ceil, floor, isnan, logical_not
from .operands import as_tensor, cast
from .order_stats import finish_order_stat, prepare_order_stat
from .reduce import max as _max, min as _min, sum as _sum
from .selection import where
from .shape import stack
from .sorting import argsort, sort


def _sorted_with_counts(x: Any, axis: Any, op: str):
    x, ax, flat = prepare_order_stat(x, axis)
    if not x.dtype.is_floating:
        x = cast(x, "float32")
    if dims(x)[ax] < 0:
        raise ValueError(f"{op}: the reduced dim must be known")
    count = _sum(cast(logical_not(isnan(x)), "int64"), axis=ax, keepdim=True)
    return x, ax, flat, sort(x, axis=ax), count     # sort puts NaNs last


def _at_positions(s: Any, ax: int, pos: Any) -> Any:
    return take_along_axis(s, cast(pos, "int64"), ax)


def _quantile_at(s: Any, ax: int, count: Any, q: float, interpolation: str) -> Any:
    last = cast(count, s.dtype) - 1.0
    pos = where(last < 0, last * 0.0, last) * q
    lo_i, hi_i = floor(pos), ceil(pos)
    lo, hi = _at_positions(s, ax, lo_i), _at_positions(s, ax, hi_i)
    if interpolation == "lower":
        r = lo
    elif interpolation == "higher":
        r = hi
    elif interpolation == "nearest":
        frac = pos - lo_i
        odd = (cast(lo_i, "int64") % 2) == 1
        pick_lo = (frac < 0.5) | ((frac == 0.5) & logical_not(odd))
        r = where(pick_lo, lo, hi)
    elif interpolation == "midpoint":
        r = (lo + hi) / 2
    else:
        r = lo + (hi - lo) * (pos - lo_i)
    return where(count == 0, full_like(r, float("nan")), r)


def nanquantile(x: Any, q: Any, axis: Any = None, keepdim: bool = False,
                interpolation: str = "linear", name: Optional[str] = None) -> Any:
    """The q-th quantiles along `axis` of the non-NaN entries (NaN where all are NaN)."""
    if interpolation not in ("linear", "lower", "higher", "nearest", "midpoint"):
        raise ValueError(f"nanquantile: unknown interpolation {interpolation!r}")
    qs = list(q) if isinstance(q, (list, tuple)) else [q]
    if any(not 0 <= float(v) <= 1 for v in qs):
        raise ValueError(f"nanquantile: q must be in [0, 1], got {q}")
    ndim = len(dims(as_tensor(x)))
    _, ax, flat, s, count = _sorted_with_counts(x, axis, "nanquantile")
    outs = [finish_order_stat(_quantile_at(s, ax, count, float(v), interpolation), ax, flat, keepdim, ndim)
            for v in qs]
    return stack(outs, axis=0) if isinstance(q, (list, tuple)) else outs[0]


def nanmedian(x: Any, axis: Any = None, keepdim: bool = False, mode: str = "avg",
              name: Optional[str] = None) -> Any:
    """The median of the non-NaN entries along `axis`. mode 'avg' averages the two middle values
    of an even count; 'min' takes the lower one and also returns its index (for an int axis)."""
    if mode not in ("avg", "min"):
        raise ValueError(f"nanmedian: mode must be 'avg' or 'min', got {mode!r}")
    ndim = len(dims(as_tensor(x)))
    if mode == "avg":
        _, ax, flat, s, count = _sorted_with_counts(x, axis, "nanmedian")
        return finish_order_stat(_quantile_at(s, ax, count, 0.5, "linear"), ax, flat, keepdim, ndim)
    xs, ax, flat, s, count = _sorted_with_counts(x, axis, "nanmedian")
    half = floor(cast(where(count > 0, count - 1, count * 0), "float64") / 2.0)
    v = _at_positions(s, ax, half)
    v = where(count == 0, full_like(v, float("nan")), v)
    value = finish_order_stat(v, ax, flat, keepdim, ndim)
    if axis is None:
        return value
    idx = _at_positions(argsort(xs, axis=ax, stable=True), ax, half)
    return value, finish_order_stat(idx, ax, flat, keepdim, ndim)


def histogram_bin_edges(input: Any, bins: int = 100, min: float = 0.0, max: float = 0.0,
                        name: Optional[str] = None) -> Any:
    """The bins + 1 edges paddle.histogram uses: from min to max, or over the data's range when
    both are 0 (widened by 1 on each side when that range is empty)."""
    x = as_tensor(input)
    if bins < 1:
        raise ValueError(f"histogram_bin_edges: bins must be positive, got {bins}")
    if float(min) > float(max):
        raise ValueError(f"histogram_bin_edges: min ({min}) must not exceed max ({max})")
    dtype = x.dtype if x.dtype.is_floating else "float32"
    if float(min) == 0.0 and float(max) == 0.0:
        x = cast(x.detach(), dtype)
        lo, hi = _min(x), _max(x)
    else:
        lo, hi = as_tensor(float(min), dtype), as_tensor(float(max), dtype)
    same = lo == hi
    lo, hi = where(same, lo - 1.0, lo), where(same, hi + 1.0, hi)
    steps = cast(arange(0, bins + 1, 1, "int64"), dtype)
    return lo + (hi - lo) * steps / float(bins)
