"""Index-driven updates and reads composed from gather / scatter / where: index_add, index_put,
index_sample, scatter_nd(_add), masked_scatter, repeat_interleave."""
from __future__ import annotations

from typing import Any, Optional, Sequence

from ..dtype import bool_, int64
from . import infer as I
from .combine import broadcast_tensors, moveaxis
from .creation import arange, zeros, zeros_like
from .dims import dims
from .gather import gather, scatter, take_along_axis
from .math import clip
from .operands import as_tensor, cast, is_tensor
from .reduce import sum as _sum
from .scan import cumsum
from .selection import nonzero, where
from .shape import expand, flatten, reshape, stack, unsqueeze
from .slicing import strided_slice


def index_sample(x: Any, index: Any, name: Optional[str] = None) -> Any:
    """out[i, j] = x[i, index[i, j]] for a 2-D x and a 2-D int index with the same rows."""
    if len(dims(x)) != 2 or len(dims(index)) != 2:
        raise ValueError(f"index_sample: x and index must be 2-D, got shapes "
                         f"{list(dims(x))} and {list(dims(index))}")
    return take_along_axis(x, as_tensor(index), 1, broadcast=False)


def index_add(x: Any, index: Any, axis: int, value: Any, name: Optional[str] = None) -> Any:
    """x plus `value` added at the positions `index` of dim `axis` (repeats accumulate)."""
    x = as_tensor(x)
    (axis,) = I.norm_axes(axis, len(dims(x)))
    xt = moveaxis(x, axis, 0)
    vt = moveaxis(cast(as_tensor(value), x.dtype), axis, 0)
    added = scatter(zeros_like(xt), as_tensor(index), vt, overwrite=False)
    return moveaxis(xt + added, 0, axis)


def _linear_index(x: Any, index: Any, op: str) -> Any:
    """The row of x (flattened over its first k dims) that each k-vector of `index` names."""
    k = dims(index)[-1]
    lead = dims(x)[:k]
    if k < 0 or any(d < 0 for d in lead[1:]):
        raise ValueError(f"{op}: the last dim of index and dims 1..{k - 1} of x "
                         f"(shape {list(dims(x))}) must be known")
    strides, step = [], 1
    for d in reversed(lead):
        strides.insert(0, step)
        step *= max(d, 1)
    index = cast(as_tensor(index), int64)
    # negative indices count from the end, as in numpy / Paddle
    sizes = as_tensor(list(lead), "int64") if all(d >= 0 for d in lead) else \
        stack([cast(as_tensor(d), int64) for d in x.shape[:k]])
    index = where(index < 0, index + sizes, index)
    return flatten(_sum(index * as_tensor(strides, "int64"), axis=-1)), k


def _scatter_rows(x: Any, index: Any, updates: Any, accumulate: bool, op: str) -> Any:
    lin, k = _linear_index(x, index, op)
    rest = x.shape[k:]
    flat = reshape(x, [-1] + list(rest))
    rows = reshape(cast(as_tensor(updates), x.dtype), [-1] + list(rest))
    if accumulate:
        out = flat + scatter(zeros_like(flat), lin, rows, overwrite=False)
    else:
        out = scatter(flat, lin, rows, overwrite=True)
    return reshape(out, x.shape)


def scatter_nd_add(x: Any, index: Any, updates: Any, name: Optional[str] = None) -> Any:
    """x with `updates` added at the multi-dim positions in the last dim of `index`."""
    x = as_tensor(x)
    return _scatter_rows(x, index, updates, True, "scatter_nd_add")


def scatter_nd(index: Any, updates: Any, shape: Sequence[int], name: Optional[str] = None) -> Any:
    """zeros(shape) with `updates` summed in at the positions of `index`."""
    updates = as_tensor(updates)
    return scatter_nd_add(zeros(list(shape), updates.dtype), index, updates)


def index_put(x: Any, indices: Sequence[Any], value: Any, accumulate: bool = False,
              name: Optional[str] = None) -> Any:
    """x with `value` written (or added, accumulate=True) at x[indices] (int or bool tensors)."""
    x = as_tensor(x)
    idx = [as_tensor(t) for t in indices]
    if len(idx) == 1 and idx[0].dtype == bool_:
        pos = nonzero(idx[0])
        idx = [flatten(strided_slice(pos, [1], [j], [j + 1], [1]))
               for j in range(len(dims(idx[0])))]
    if any(t.dtype == bool_ for t in idx):
        raise TypeError("index_put: a bool index must be the only index")
    idx = broadcast_tensors(idx) if len(idx) > 1 else idx
    where_ = stack([cast(t, int64) for t in idx], axis=-1)
    k = len(idx)
    target = list(idx[0].shape) + list(x.shape[k:])
    value = as_tensor(value)
    if dims(value) != dims(idx[0]) + dims(x)[k:] or any(d < 0 for d in dims(value)):
        value = expand(cast(value, x.dtype), target)
    return _scatter_rows(x, where_, value, accumulate, "index_put")


def masked_scatter(x: Any, mask: Any, value: Any, name: Optional[str] = None) -> Any:
    """x with the entries where the (broadcast) mask holds taken, in order, from value."""
    x = as_tensor(x)
    mask = as_tensor(mask)
    if dims(mask) != dims(x):
        mask = broadcast_tensors([mask, x])[0]
    taken = cumsum(cast(flatten(mask), int64)) - 1
    src = gather(flatten(cast(as_tensor(value), x.dtype)), clip(taken, 0, None))
    return where(mask, reshape(src, x.shape), x)


def repeat_interleave(x: Any, repeats: Any, axis: Optional[int] = None,
                      name: Optional[str] = None) -> Any:
    """Each slice of `axis` repeated `repeats` times (an int, or a 1-D tensor with one count per
    slice); axis=None works on the flattened tensor."""
    x = as_tensor(x)
    if axis is None:
        x, axis = flatten(x), 0
    (axis,) = I.norm_axes(axis, len(dims(x)))
    if isinstance(repeats, int) or (is_tensor(repeats) and len(dims(repeats)) == 0
                                    and not hasattr(repeats, "_shape")):
        r = int(repeats.item() if is_tensor(repeats) else repeats)
        shape = list(x.shape)
        target = shape[:axis + 1] + [r] + shape[axis + 1:]
        out = expand(unsqueeze(x, axis + 1), target)
        return flatten(out, start_axis=axis, stop_axis=axis + 1)
    repeats = cast(as_tensor(repeats), int64)
    ends = cumsum(repeats)
    total = ends[-1]
    # circle: runtime.ops.counting imports this module at import time
    from .counting import searchsorted
    positions = searchsorted(ends, arange(0, total, 1, "int64"), right=True)
    return gather(x, positions, axis=axis)
