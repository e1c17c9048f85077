"""Ops that gradient rules use: scattering a gradient back into the shape of an indexed input."""
from __future__ import annotations

import numpy as np

from ..registry import Meta, register_op
from .indexing import decode_index


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


# ----------------------------------------------------------------------------- gradient arrays
# The gradient of a tensor array is a tensor array of the items' gradients; a missing or None
# item stands for zeros (most items of a gradient array are never written).
def _array_meta(x):
    return Meta((), x.dtype, "array", (tuple(x._shape), str(x.dtype)))


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
    return Meta((), g.dtype, "array", (tuple(shape), str(g.dtype)))


@register_op("array_grad_unstack", infer=_unstack_infer)
def _array_grad_unstack_kernel(g, axis):
    return [np.take(g, k, axis=axis) for k in range(g.shape[axis])]


@register_op("array_grad_split", infer=lambda g, array, axis: Meta((), g.dtype, "array",
                                                                    array.elem))
def _array_grad_split_kernel(g, array, axis):
    """g cut along axis into pieces as long as the items of the concatenated array."""
    bounds = np.cumsum([a.shape[axis] for a in array])[:-1]
    return np.split(g, bounds, axis=axis)
