"""Counting and binning composed from comparisons and sums: searchsorted, bucketize, bincount,
histogram, histogramdd (no gradient flows through counts; weighted counts pass it to weights)."""
from __future__ import annotations

from typing import Any, Optional

from ..dtype import dtype_name, int32, int64
from .creation import arange, zeros
from .dims import dims
from .math import floor, logical_and, maximum
from .operands import as_tensor, cast, is_tensor
from .reduce import max as _max, min as _min, sum as _sum
from .scatter_extra import index_add
from .selection import where
from .shape import flatten, reshape as _reshape, unsqueeze


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
        raise ValueError(f"bincount: x must be a 1-D int tensor, got {dtype_name(x.dtype)}{list(dims(x))}")
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


def _histogramdd_edges(column: Any, n_bins: Any, lo_hi: Any, op: str) -> Any:
    """The bin edges of one dim: given edges, or n_bins equal bins over lo_hi (the column's own
    range when None; an empty range is widened by 0.5 each side, as numpy does)."""
    if is_tensor(n_bins) or isinstance(n_bins, (list, tuple)):
        edges = cast(as_tensor(n_bins), column.dtype)
        if len(dims(edges)) != 1 or dims(edges)[0] == 1:
            raise ValueError(f"{op}: bin edges must be 1-D with at least 2 values, got shape "
                             f"{list(dims(edges))}")
        return edges
    if isinstance(n_bins, bool) or not isinstance(n_bins, int) or n_bins < 1:
        raise ValueError(f"{op}: the number of bins must be a positive int, got {n_bins!r}")
    if lo_hi is None:
        lo, hi = _min(column), _max(column)
        same = hi == lo
        lo, hi = where(same, lo - 0.5, lo), where(same, hi + 0.5, hi)
    else:
        lo, hi = float(lo_hi[0]), float(lo_hi[1])
        if lo > hi:
            raise ValueError(f"{op}: each range must have min <= max, got [{lo}, {hi}]")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
    steps = cast(arange(0, n_bins + 1, 1, "int64"), column.dtype) / float(n_bins)
    return lo + (hi - lo) * steps


def histogramdd(x: Any, bins: Any = 10, ranges: Any = None, density: bool = False,
                weights: Any = None, name: Optional[str] = None) -> Any:
    """Histogram of the points in the rows of x (shape [..., D]; all dims but the last are
    flattened) over D-dimensional bins: (hist, [edges of each dim]). bins is an int (for every
    dim), D ints, or D 1-D tensors of edges; ranges holds [min0, max0, min1, max1, ...] (the
    data's range per dim when None). A point on a last edge falls in the last bin; points
    outside the edges are not counted. density divides by the total and by each bin's volume."""
    x = as_tensor(x)
    shape = dims(x)
    if len(shape) < 2 or shape[-1] < 1:
        raise ValueError(f"histogramdd: x must have at least 2 dims with a known last dim (the "
                         f"point dimension), got shape {list(shape)}")
    n_dims = shape[-1]
    points = _reshape(x if x.dtype.is_floating else cast(x, "float32"), [-1, n_dims])
    if isinstance(bins, (list, tuple)):
        if len(bins) != n_dims:
            raise ValueError(f"histogramdd: bins must give {n_dims} entries (one per dim), got "
                             f"{len(bins)}")
        per_dim = list(bins)
    else:
        per_dim = [bins] * n_dims
    if ranges is not None:
        ranges = [float(v) for v in ranges]
        if len(ranges) != 2 * n_dims:
            raise ValueError(f"histogramdd: ranges must hold {2 * n_dims} values (min and max "
                             f"of each dim), got {len(ranges)}")
    edges, cell, counts_shape = [], None, []
    inside = None
    for d in range(n_dims):
        column = points[:, d]
        lo_hi = None if ranges is None else ranges[2 * d:2 * d + 2]
        e = _histogramdd_edges(column, per_dim[d], lo_hi, "histogramdd")
        n_bins = dims(e)[0] - 1
        if n_bins < 1:
            raise ValueError("histogramdd: the number of edges of each dim must be known when the "
                             "program is built")
        pos = searchsorted(e, column, right=True) - 1
        pos = where(column == e[-1], pos * 0 + (n_bins - 1), pos)
        ok = logical_and(column >= e[0], column <= e[-1])
        inside = ok if inside is None else logical_and(inside, ok)
        cell = pos if cell is None else cell * n_bins + pos
        edges.append(e)
        counts_shape.append(n_bins)
    n_cells = 1
    for n in counts_shape:
        n_cells *= n
    # points outside the edges go to one extra cell, cut off afterwards
    cell = where(inside, cell, cell * 0 + n_cells)
    if weights is None:
        w = points[:, 0] * 0 + 1
    else:
        w = cast(flatten(as_tensor(weights)), points.dtype)
    hist = index_add(zeros([n_cells + 1], points.dtype), cell, 0, w)[:n_cells]
    hist = _reshape(hist, counts_shape)
    if density:
        volume = None
        for d, e in enumerate(edges):
            width = _reshape(e[1:] - e[:-1], [-1 if k == d else 1 for k in range(n_dims)])
            volume = width if volume is None else volume * width
        hist = hist / _sum(hist) / volume
    return hist, edges
