"""Counting and binning composed from comparisons and sums: searchsorted, bucketize, bincount,
histogram (no gradient flows through counts)."""
from __future__ import annotations

from typing import Any, Optional

from ..dtype import int32, int64
from .creation import arange
from .dims import dims
from .math import floor, logical_and, maximum
from .operands import as_tensor, cast, is_tensor
from .reduce import max as _max, min as _min, sum as _sum
from .selection import where
from .shape import flatten, unsqueeze


def searchsorted(sorted_sequence: Any, values: Any, out_int32: bool = False, right: bool = False,
                 name: Optional[str] = None) -> Any:
    """Where each value would go in the innermost dim of `sorted_sequence` to keep it sorted
    (the first such place, or the last with right=True)."""
    seq, values = as_tensor(sorted_sequence), as_tensor(values)
    if len(dims(seq)) > 1 and dims(seq)[:-1] != dims(values)[:-1]:
        raise ValueError(f"searchsorted: sorted_sequence {list(dims(seq))} and values "
                         f"{list(dims(values))} must agree on all dims but the last")
    v = unsqueeze(values, -1)
    s = unsqueeze(seq, -2) if len(dims(seq)) > 1 else seq
    before = (s <= v) if right else (s < v)
    return _sum(cast(before, int64), axis=-1, dtype=int32 if out_int32 else int64)


def bucketize(x: Any, sorted_sequence: Any, out_int32: bool = False, right: bool = False,
              name: Optional[str] = None) -> Any:
    """The bucket of each entry of x among the boundaries of the 1-D `sorted_sequence`."""
    if len(dims(sorted_sequence)) != 1:
        raise ValueError("bucketize: sorted_sequence must be 1-D, got shape "
                         f"{list(dims(sorted_sequence))}")
    return searchsorted(sorted_sequence, x, out_int32=out_int32, right=right)


def bincount(x: Any, weights: Any = None, minlength: int = 0, name: Optional[str] = None) -> Any:
    """How often each value 0..max(x) occurs in the 1-D non-negative int x (weighted sums with
    `weights`); at least `minlength` bins."""
    x = as_tensor(x)
    if len(dims(x)) != 1 or not x.dtype.is_integer:
        raise ValueError(f"bincount: x must be a 1-D int tensor, got {x.dtype}{list(dims(x))}")
    if not is_tensor(x) or not hasattr(x, "_shape"):
        if x.numpy().size and int(x.numpy().min()) < 0:
            raise ValueError("bincount: x must be non-negative")
    n = maximum(_max(x) + 1, as_tensor(int(minlength), x.dtype)) if dims(x)[0] != 0 else minlength
    hits = unsqueeze(x, -1) == arange(0, n, 1, x.dtype)
    if weights is None:
        return _sum(cast(hits, int64), axis=0)
    w = unsqueeze(as_tensor(weights), -1)
    return _sum(where(hits, w, w * 0), axis=0)


def histogram(input: Any, bins: int = 100, min: float = 0, max: float = 0, weight: Any = None,
              density: bool = False, name: Optional[str] = None) -> Any:
    """Counts of the entries in `bins` equal-width bins over [min, max] (the data's range when
    both are 0); the last bin includes max. Counts are int64; weighted or density ones float."""
    x = flatten(as_tensor(input))
    if not x.dtype.is_floating:
        x = cast(x, "float32")
    if min == 0 and max == 0:
        lo, hi = _min(x), _max(x)
        same = hi == lo
        lo, hi = where(same, lo - 1, lo), where(same, hi + 1, hi)
    else:
        if min > max:
            raise ValueError(f"histogram: min ({min}) must not exceed max ({max})")
        if min == max:
            min, max = min - 1, max + 1
        lo, hi = min, max
    pos = cast(floor((x - lo) / (hi - lo) * bins), int64)
    pos = where(x == hi, pos * 0 + (bins - 1), pos)
    inside = logical_and(x >= lo, x <= hi)
    hits = logical_and(unsqueeze(pos, -1) == arange(0, bins, 1, "int64"), unsqueeze(inside, -1))
    if weight is None and not density:
        return _sum(cast(hits, int64), axis=0)
    w = unsqueeze(flatten(as_tensor(weight)), -1) if weight is not None else \
        unsqueeze(x * 0 + 1, -1)
    counts = _sum(where(hits, w, w * 0), axis=0)
    if density:
        counts = cast(counts, "float32")
        counts = counts / (_sum(counts) * ((hi - lo) / bins))
    return counts
