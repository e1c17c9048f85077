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
