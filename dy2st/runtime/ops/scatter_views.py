"""Writes into and windows over parts of a tensor: diagonal_scatter, select_scatter,
slice_scatter, scatter_add, scatter_reduce, index_fill, crop, unfold (sliding windows),
unique_consecutive and mode."""
from __future__ import annotations

import builtins
from typing import Any, List, Optional, Sequence

import numpy as np

from ..dtype import convert_dtype, dtype_name, int64
from ..registry import Meta, apply, register_op
from . import infer as I
from .combine import moveaxis
from .creation import arange
from .dims import dims
from .extra_math import diagonal_planes
from .gather import gather, put_along_axis, take_along_axis
from .indexing import setitem
from .operands import as_tensor, cast, is_tensor
from .reduce import any as _any
from .selection import where
from .shape import expand_as, flatten, reshape, squeeze, transpose, unsqueeze
from .slicing import strided_slice


def slice_scatter(x: Any, value: Any, axes: Sequence[int], starts: Sequence[int],
                  ends: Sequence[int], strides: Sequence[int], name: Optional[str] = None) -> Any:
    """A copy of x with x[starts:ends:strides] (over `axes`) replaced by value."""
    x = as_tensor(x)
    n = len(dims(x))
    index: List[Any] = [builtins.slice(None)] * n
    for a, s, e, st in zip(I.norm_axes(list(axes), n), starts, ends, strides):
        index[a] = builtins.slice(s, e, st)
    return setitem(x, tuple(index), value)


def select_scatter(x: Any, values: Any, axis: int, index: int, name: Optional[str] = None) -> Any:
    """A copy of x with the slice at `index` of dim `axis` replaced by values."""
    x = as_tensor(x)
    n = len(dims(x))
    (axis,) = I.norm_axes(axis, n)
    item: List[Any] = [builtins.slice(None)] * n
    item[axis] = int(index)
    return setitem(x, tuple(item), values)


def diagonal_scatter(x: Any, y: Any, offset: int = 0, axis1: int = 0, axis2: int = 1,
                     name: Optional[str] = None) -> Any:
    """A copy of x with the diagonal that paddle.diagonal(x, offset, axis1, axis2) reads
    replaced by y."""
    x = as_tensor(x)
    d = diagonal_planes(x, offset, axis1, axis2, "diagonal_scatter")
    y = cast(as_tensor(y), x.dtype)
    if dims(y)[-1] >= 0 and dims(y)[-1] != len(d.positions):
        raise ValueError(f"diagonal_scatter: y must have {len(d.positions)} entries in its last "
                         f"dim (the diagonal's length), got shape {list(dims(y))}")
    positions = as_tensor(d.positions, "int64")
    out = reshape(put_along_axis(d.flat, expand_as(positions, y), y, -1), list(d.planes.shape))
    return transpose(out, [d.perm.index(a) for a in builtins.range(len(d.perm))])


def scatter_add(input: Any, dim: int, index: Any, src: Any, name: Optional[str] = None) -> Any:
    """input with src added at `index` along `dim` (PyTorch's scatter_add)."""
    return scatter_reduce(input, dim, index, src, "sum")


_REDUCE_NAMES = {"sum": "add", "prod": "mul", "mean": "mean", "amin": "amin", "amax": "amax"}


def scatter_reduce(input: Any, dim: int, index: Any, src: Any, reduce: str,
                   include_self: bool = True, name: Optional[str] = None) -> Any:
    """input with src reduced (sum, prod, mean, amin, amax) into it at `index` along `dim`;
    only the part of src the shape of index is used."""
    if reduce not in _REDUCE_NAMES:
        raise ValueError(f"scatter_reduce: unknown reduce {reduce!r}; use "
                         f"{', '.join(_REDUCE_NAMES)}")
    index, src = as_tensor(index), as_tensor(src)
    ishape, sshape = dims(index), dims(src)
    if list(ishape) != list(sshape) and all(d >= 0 for d in ishape):
        src = strided_slice(src, list(builtins.range(len(ishape))), [0] * len(ishape),
                            list(ishape), [1] * len(ishape))
    return put_along_axis(input, index, src, dim, _REDUCE_NAMES[reduce], include_self,
                          broadcast=False)


def index_fill(x: Any, index: Any, axis: int, value: Any, name: Optional[str] = None) -> Any:
    """A copy of x with the slices at `index` along `axis` set to value."""
    x = as_tensor(x)
    n = len(dims(x))
    (axis,) = I.norm_axes(axis, n)
    positions = arange(0, x.shape[axis], 1, "int64")
    hit = _any(unsqueeze(positions, 1) == unsqueeze(cast(flatten(as_tensor(index)), int64), 0),
               axis=1)
    shape = [1] * n
    shape[axis] = -1
    value = cast(as_tensor(value), x.dtype) if is_tensor(value) else value
    return where(reshape(hit, shape), value, x)


def crop(x: Any, shape: Any = None, offsets: Any = None, name: Optional[str] = None) -> Any:
    """The block of x of `shape` (-1: to the end) starting at `offsets` (default 0)."""
    x = as_tensor(x)
    n = len(dims(x))
    offsets = [0] * n if offsets is None else [int(o) for o in offsets]
    shape = list(dims(x)) if shape is None else [int(s) for s in shape]
    if len(offsets) != n or len(shape) != n:
        raise ValueError(f"crop: shape and offsets need one entry per dim of x ({n})")
    ends = [(2 ** 62 if s == -1 else o + s) for o, s in zip(offsets, shape)]
    return strided_slice(x, list(builtins.range(n)), offsets, ends, [1] * n)


def unfold(x: Any, axis: int, size: int, step: int, name: Optional[str] = None) -> Any:
    """The windows of `size` entries every `step` along `axis`: that dim becomes the number of
    windows and a new last dim holds each window."""
    x = as_tensor(x)
    shape = dims(x)
    n = len(shape)
    (axis,) = I.norm_axes(axis, n) if n else (0,)
    d = shape[axis] if n else 1
    if d < 0:
        raise ValueError("unfold: the unfolded dim must be known")
    if size <= 0 or step <= 0 or size > d:
        raise ValueError(f"unfold: need 0 < size <= {d} and step > 0, got size={size}, "
                         f"step={step}")
    count = (d - size) // step + 1
    index = [w * step + k for w in builtins.range(count) for k in builtins.range(size)]
    taken = gather(x, as_tensor(index, "int64"), axis=axis)
    full = list(x.shape)
    full[axis:axis + 1] = [count, size]
    return moveaxis(reshape(taken, full), axis + 1, -1)


def _unique_consecutive_infer(x, axis, dtype):
    d = convert_dtype(dtype)
    if axis is None:
        n = int(np.prod(x._shape)) if all(s >= 0 for s in x._shape) else -1
        return (Meta((-1,), x.dtype), Meta((n,), d), Meta((-1,), d))
    out = list(x._shape)
    out[axis] = -1
    return (Meta(tuple(out), x.dtype), Meta((x._shape[axis],), d), Meta((-1,), d))


@register_op("unique_consecutive", infer=_unique_consecutive_infer, n_outputs=3)
def _unique_consecutive_kernel(x, axis, dtype):
    a = x.reshape(-1) if axis is None else np.moveaxis(x, axis, 0)
    if a.shape[0] == 0:
        starts = np.zeros(0, bool)
    else:
        rows = a.reshape(a.shape[0], -1)
        starts = np.concatenate([[True], np.any(rows[1:] != rows[:-1], axis=1)])
    kept = a[starts]
    inverse = np.cumsum(starts) - 1
    first = np.flatnonzero(starts)
    counts = np.diff(np.append(first, a.shape[0]))
    out = kept if axis is None else np.moveaxis(kept, 0, axis)
    return out, inverse.astype(dtype), counts.astype(dtype)


def unique_consecutive(x: Any, return_inverse: bool = False, return_counts: bool = False,
                       axis: Optional[int] = None, dtype: Any = "int64",
                       name: Optional[str] = None) -> Any:
    """x with each run of equal consecutive entries (or slices along `axis`) kept once; also
    the run number of every entry and the run lengths when asked."""
    x = as_tensor(x)
    if axis is not None:
        (axis,) = I.norm_axes(axis, len(dims(x)))
    out, inverse, counts = apply("unique_consecutive", [x],
                                 {"axis": axis, "dtype": dtype_name(dtype)})
    extra = [t for t, want in ((inverse, return_inverse), (counts, return_counts)) if want]
    return (out, *extra) if extra else out


@register_op("mode_index", infer=lambda x, axis: Meta(x._shape[:axis] + (1,) + x._shape[axis + 1:],
                                                       int64))
def _mode_index_kernel(x, axis):
    rows = np.moveaxis(x, axis, -1)
    flat = rows.reshape(-1, rows.shape[-1])
    picks = np.empty(flat.shape[0], np.int64)
    for i, row in enumerate(flat):
        values, counts = np.unique(row, return_counts=True)
        best = values[np.argmax(counts)]            # the smallest of the most frequent values
        picks[i] = np.flatnonzero(row == best)[-1]  # its last position, as Paddle's kernel gives
    return np.moveaxis(picks.reshape(rows.shape[:-1] + (1,)), -1, axis)


def mode(x: Any, axis: int = -1, keepdim: bool = False, name: Optional[str] = None) -> Any:
    """The most frequent value along `axis` (the smallest one on ties) and its index."""
    x = as_tensor(x)
    n = len(dims(x))
    (axis,) = I.norm_axes(axis, n)
    index = apply("mode_index", [x], {"axis": axis})
    values = take_along_axis(x, index, axis)
    if not keepdim:
        values, index = squeeze(values, axis), squeeze(index, axis)
    return values, index
