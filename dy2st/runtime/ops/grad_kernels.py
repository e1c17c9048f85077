"""Ops that only gradient rules use: scattering a gradient back into the shape of the input it
came from (indexing, slicing, padding, gathering, convolution), and exact scan gradients."""
from __future__ import annotations

import functools

import numpy as np

from ..dtype import bool_, dtype_name
from ..registry import Meta, register_op
from .indexing import decode_index
from .infer import broadcast_shapes
from .slicing import decode_slots, piece_bounds


def _has_int_arrays(idx) -> bool:
    """Integer array indices may repeat a position (boolean masks and slices cannot)."""
    items = idx if isinstance(idx, tuple) else (idx,)
    return any(isinstance(i, np.ndarray) and i.dtype.kind in "iu" for i in items)


@register_op("getitem_grad", infer=lambda x, g, *tensors, items: Meta(x._shape, g.dtype))
def _getitem_grad_kernel(x, g, *tensors, items):
    """Zeros shaped like x with g added at x[index] (repeated indices add up)."""
    out = np.zeros(x.shape, dtype=g.dtype)
    idx = decode_index(items, tensors)
    if _has_int_arrays(idx):
        np.add.at(out, idx, g)
    else:
        out[idx] += g
    return out


def _like(x, g, **attrs) -> Meta:
    return Meta(x._shape, g.dtype)


def _zeros_for(x: np.ndarray, g: np.ndarray) -> np.ndarray:
    return np.zeros(x.shape, dtype=g.dtype)


# ----------------------------------------------------------------------------- pieces back into x
@register_op("split_grad", infer=_like)
def _split_grad_kernel(x, g, axis, num, sections, index):
    """Zeros shaped like x with g written where split piece `index` came from."""
    lo, hi = piece_bounds("split", x.shape[axis], num, sections, x.shape)[index]
    out = _zeros_for(x, g)
    where = [slice(None)] * x.ndim
    where[axis] = slice(lo, hi)
    out[tuple(where)] = g
    return out


@register_op("unbind_grad", infer=_like)
def _unbind_grad_kernel(x, g, axis, index):
    """Zeros shaped like x with g written at position `index` of `axis`."""
    out = _zeros_for(x, g)
    where = [slice(None)] * x.ndim
    where[axis] = index
    out[tuple(where)] = g
    return out


@register_op("strided_slice_grad", infer=_like)
def _strided_slice_grad_kernel(x, g, *tensors, axes, starts, ends, strides):
    """Zeros shaped like x with g written where the strided slice read."""
    it = iter(tensors)
    s, e, st = decode_slots(starts, it), decode_slots(ends, it), decode_slots(strides, it)
    out = _zeros_for(x, g)
    index = [slice(None)] * x.ndim
    for a, b0, b1, step in zip(axes, s, e, st):
        index[a] = slice(b0, b1, step)
    out[tuple(index)] = g
    return out


@register_op("pad_grad", infer=_like)
def _pad_grad_kernel(x, g, widths, mode, value):
    """The adjoint of pad: every padded position's gradient goes back to the element it copied
    (nothing for constant padding)."""
    out = g
    for axis, (lo, hi) in enumerate(widths):
        if not lo and not hi:
            continue
        n = x.shape[axis]
        if mode == "constant":
            out = np.take(out, np.arange(lo, lo + n), axis=axis)
            continue
        source = np.pad(np.arange(n), (lo, hi), mode=mode)
        moved = np.moveaxis(out, axis, 0)
        acc = np.zeros((n,) + moved.shape[1:], dtype=g.dtype)
        np.add.at(acc, source, moved)
        out = np.moveaxis(acc, 0, axis)
    return np.ascontiguousarray(out, dtype=g.dtype)


@register_op("tile_grad", infer=_like)
def _tile_grad_kernel(x, g, *dims, repeat_times):
    """g summed over the copies tile made, back in x's shape."""
    nd = g.ndim
    shape = (1,) * (nd - x.ndim) + x.shape
    split = []
    for d, total in zip(shape, g.shape):
        split += [total // d if d else 0, d]
    summed = g.reshape(split).sum(axis=tuple(range(0, 2 * nd, 2)))
    return np.asarray(summed, dtype=g.dtype).reshape(x.shape)


@register_op("diag_grad", infer=_like)
def _diag_grad_kernel(x, g, offset):
    """Zeros shaped like the 2-D x with g on diagonal `offset` (the adjoint of taking it)."""
    out = _zeros_for(x, g)
    n = g.shape[0]
    idx = np.arange(n)
    rows, cols = (idx, idx + offset) if offset >= 0 else (idx - offset, idx)
    out[rows, cols] = g
    return out


# ----------------------------------------------------------------------------- scatter-add by index
@register_op("gather_grad", infer=lambda x, index, g, axis: Meta(x._shape, g.dtype))
def _gather_grad_kernel(x, index, g, axis):
    """Zeros shaped like x with the slices of g added at `index` along `axis`."""
    out = _zeros_for(x, g)
    moved = np.moveaxis(out, axis, 0)
    gm = np.moveaxis(g, axis, 0) if np.ndim(index) else np.expand_dims(g, 0)
    np.add.at(moved, np.reshape(index, -1), gm)
    return out


@register_op("gather_nd_grad", infer=lambda x, index, g: Meta(x._shape, g.dtype))
def _gather_nd_grad_kernel(x, index, g):
    out = _zeros_for(x, g)
    np.add.at(out, tuple(np.moveaxis(index, -1, 0)), g)
    return out


@register_op("embedding_grad", infer=lambda ids, w, g, padding_idx: Meta(w._shape, g.dtype))
def _embedding_grad_kernel(ids, w, g, padding_idx):
    """Rows of g added into zeros shaped like the table; the padding row gets nothing."""
    out = _zeros_for(w, g)
    np.add.at(out, ids.reshape(-1), g.reshape(-1, w.shape[-1]))
    if padding_idx is not None:
        out[padding_idx % w.shape[0]] = 0
    return out


def _masked_grad_infer(x, mask, g):
    return Meta(broadcast_shapes("masked_select", x._shape, mask._shape), g.dtype)


@register_op("masked_select_grad", infer=_masked_grad_infer)
def _masked_select_grad_kernel(x, mask, g):
    """g written at the True positions of the mask (broadcast with x), zeros elsewhere."""
    shape = np.broadcast_shapes(x.shape, mask.shape)
    out = np.zeros(shape, dtype=g.dtype)
    out[np.broadcast_to(mask, shape)] = g
    return out


@register_op("scatter_winners", infer=lambda index: Meta(index._shape, bool_))
def _scatter_winners_kernel(index):
    """True for each update that scatter with overwrite=True keeps (the last write per row)."""
    flat = np.reshape(index, -1)
    keep = np.zeros(flat.shape, dtype=bool)
    last = {}
    for k, r in enumerate(flat.tolist()):
        last[r] = k
    keep[list(last.values())] = True
    return keep.reshape(np.shape(index))


@register_op("hard_label_target", infer=lambda x, label, axis, ignore_index, smoothing:
             Meta(x._shape, x.dtype))
def _hard_label_target_kernel(x, label, axis, ignore_index, smoothing):
    """The target distribution of hard labels (one-hot, smoothed), zero for ignored samples."""
    n = x.shape[axis]
    hard = np.moveaxis(label, axis, -1)[..., 0]
    valid = hard != ignore_index
    target = np.eye(n, dtype=x.dtype)[np.where(valid, hard, 0)]
    if smoothing:
        target = target * (1.0 - smoothing) + smoothing / n
    target *= valid[..., None]
    return np.ascontiguousarray(np.moveaxis(target, -1, axis))


# ----------------------------------------------------------------------------- scans
@register_op("cumprod_grad", infer=_like)
def _cumprod_grad_kernel(x, g, axis):
    """The exact gradient of cumprod along `axis`, also where x holds zeros:
    dx_k = prod(x_<k) * S_k with S_k = g_k + x_{k+1} * S_{k+1}."""
    xm = np.moveaxis(x, axis, 0).astype(g.dtype)
    gm = np.moveaxis(g, axis, 0)
    n = xm.shape[0]
    before = np.ones_like(xm)
    if n > 1:
        before[1:] = np.cumprod(xm[:-1], axis=0)
    s = np.zeros_like(gm)
    acc = np.zeros(gm.shape[1:], dtype=g.dtype)
    for k in range(n - 1, -1, -1):
        acc = gm[k] + (xm[k + 1] * acc if k + 1 < n else 0)
        s[k] = acc
    return np.ascontiguousarray(np.moveaxis(before * s, 0, axis))


# ----------------------------------------------------------------------------- residual tapes
# A loop saves each turn's values that its gradient reads on a tape: a Python list when run,
# pushed by the forward loop and read by index, backwards, by the gradient loop. A tape may hold
# tapes (a loop inside a loop), so an item's meta is kept whole in `elem`.
def _item_meta(elem) -> Meta:
    return Meta(*elem)


@register_op("tape_create", infer=lambda dtype: Meta((), dtype, "array", None))
def _tape_create_kernel(dtype):
    return []


def _push_infer(tape, x):
    return Meta((), x.dtype, "array", (tuple(x._shape), x.dtype, x.kind, x.elem))


@register_op("tape_push", infer=_push_infer)
def _tape_push_kernel(tape, x):
    tape.append(x)
    return tape


@register_op("tape_read", infer=lambda tape, i: _item_meta(tape.elem))
def _tape_read_kernel(tape, i):
    return tape[int(i)]


# What a loop pushes of a value whose gradient reads only its shape and dtype (a `reduce_as`
# target, the zeros of a missing gradient): an array of that shape and dtype holding one element
# (a read-only broadcast view), so a long loop's tape does not keep every turn's array.
@register_op("shape_holder", infer=lambda x: Meta(x._shape, x.dtype))
def _shape_holder_kernel(x):
    return np.broadcast_to(np.zeros((), x.dtype), x.shape)


# ----------------------------------------------------------------------------- gradient arrays
# The gradient of a tensor array is a tensor array of the items' gradients; a missing or None
# item stands for zeros (most items of a gradient array are never written).
def _array_meta(x):
    return Meta((), x.dtype, "array", (tuple(x._shape), dtype_name(x.dtype)))


@register_op("array_grad_read", infer=lambda g, i, like: Meta(like._shape, like.dtype))
def _array_grad_read_kernel(g, i, like):
    """g[i], or zeros shaped like `like` where g has no such item."""
    i = int(i)
    item = g[i] if -len(g) <= i < len(g) else None
    return np.zeros_like(like) if item is None else item


@register_op("array_grad_clear", infer=lambda g, i: Meta((), g.dtype, "array", g.elem))
def _array_grad_clear_kernel(g, i):
    """A copy of g without item i (the item an array_write replaced)."""
    out = list(g)
    i = int(i)
    if -len(out) <= i < len(out):
        out[i] = None
    return out


@register_op("array_grad_put", infer=lambda i, x: _array_meta(x))
def _array_grad_put_kernel(i, x):
    """An array whose item i is x (the items before it are zeros)."""
    out = [None] * (int(i) + 1)
    out[int(i)] = x
    return out


@register_op("array_grad_add", infer=lambda a, b: Meta((), a.dtype, "array", a.elem or b.elem))
def _array_grad_add_kernel(a, b):
    n = max(len(a), len(b))
    out = []
    for k in range(n):
        x = a[k] if k < len(a) else None
        y = b[k] if k < len(b) else None
        out.append(y if x is None else x if y is None else x + y)
    return out


def _unstack_infer(g, axis):
    shape = list(g._shape)
    del shape[axis % len(shape)]
    return Meta((), g.dtype, "array", (tuple(shape), dtype_name(g.dtype)))


@register_op("array_grad_unstack", infer=_unstack_infer)
def _array_grad_unstack_kernel(g, axis):
    return [np.take(g, k, axis=axis) for k in range(g.shape[axis])]


@register_op("array_grad_split", infer=lambda g, array, axis: Meta((), g.dtype, "array",
                                                                    array.elem))
def _array_grad_split_kernel(g, array, axis):
    """g cut along axis into pieces as long as the items of the concatenated array."""
    bounds = np.cumsum([a.shape[axis] for a in array])[:-1]
    return np.split(g, bounds, axis=axis)


# Gradients of the other array ops (pop, slice, join); gradient arrays are as above.
def _same_array_meta(garr, *rest, **attrs) -> Meta:
    return Meta((), garr.dtype, "array", garr.elem)


def _entry(garr, i):
    return garr[i] if garr is not None and 0 <= i < len(garr) else None


@register_op("array_grad_insert", infer=_same_array_meta)
def _array_grad_insert_kernel(garr, i, g):
    """The gradient array of array_pop(i): g put back at position i."""
    i = int(i)
    if i < 0:
        raise ValueError("the gradient of a tensor array pop() needs a non-negative index "
                         f"(got {i}); pop by position from the front, or use array_read")
    out = list(garr or [])
    out += [None] * (i - len(out))
    out.insert(i, g)
    return out


@register_op("array_grad_unslice", infer=_same_array_meta)
def _array_grad_unslice_kernel(garr, array, start, stop, step):
    """The gradient array of array[start:stop:step]: each entry back at the position it came from."""
    positions = list(range(len(array)))[start:stop:step]
    out = [None] * len(array)
    for k, pos in enumerate(positions):
        out[pos] = _entry(garr, k)
    return out


@register_op("array_grad_head", infer=_same_array_meta)
def _array_grad_head_kernel(garr, a):
    """The first len(a) entries of a gradient array (array_join's left operand)."""
    return list(garr or [])[:len(a)]


@register_op("array_grad_tail", infer=_same_array_meta)
def _array_grad_tail_kernel(garr, a):
    """The entries after the first len(a) (array_join's right operand)."""
    return list(garr or [])[len(a):]


# ----------------------------------------------------------------------------- cleared gradients
# A cleared gradient (clear_grad(set_to_zero=True)) is one shared read-only zeros array per shape
# and dtype: clearing costs no fill, and accumulating onto it costs no addition. Read-only, so
# nothing can write into the shared array; a bounded cache, so tests can reset it. Keyed by the
# numpy dtype itself (its .str is "<V2" for bfloat16, which names no dtype).
@functools.lru_cache(maxsize=512)
def _shared_zeros(shape: tuple, dtype: np.dtype, role: str) -> np.ndarray:
    z = np.zeros(shape, dtype=dtype)
    z.flags.writeable = False
    return z


def cleared(shape: tuple, dtype: np.dtype) -> np.ndarray:
    return _shared_zeros(shape, dtype, "cleared")


def is_cleared(a: np.ndarray) -> bool:
    return type(a) is np.ndarray and not a.flags.writeable and \
        a is _shared_zeros(a.shape, a.dtype, "cleared")


# A dropped gradient (clear_grad(set_to_zero=False) in a traced step) is another shared
# read-only zeros array: it reads as zeros inside the program, and writing it back to a
# tensor's `.grad` leaves None (autograd/traced.py), as the eager call does.
def dropped(shape: tuple, dtype: np.dtype) -> np.ndarray:
    return _shared_zeros(shape, dtype, "dropped")


def is_dropped(a: np.ndarray) -> bool:
    return type(a) is np.ndarray and not a.flags.writeable and \
        a is _shared_zeros(a.shape, a.dtype, "dropped")


def accumulate_arrays(old: np.ndarray, new: np.ndarray) -> np.ndarray:
    return new if is_cleared(old) or is_dropped(old) else old + new


@register_op("grad_clear", infer=lambda x, set_to_zero=True: Meta(x._shape, x.dtype))
def _grad_clear_kernel(x, set_to_zero=True):
    """The cleared (zero) gradient of a tensor shaped like x; with set_to_zero=False, the
    dropped one (the tensor is left without a gradient)."""
    return (cleared if set_to_zero else dropped)(x.shape, x.dtype)


@register_op("grad_present", infer=lambda x: Meta([], bool_))
def _grad_present_kernel(x):
    """Whether a gradient slot holds a gradient: false for the dropped one (`.grad` None)."""
    return np.array(not is_dropped(x))


@register_op("grad_accumulate", infer=lambda old, new: Meta(old._shape, old.dtype))
def _grad_accumulate_kernel(old, new):
    """old + new, without the addition when old is a cleared gradient."""
    return accumulate_arrays(old, new)
