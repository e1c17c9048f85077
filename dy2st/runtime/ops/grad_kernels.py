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
