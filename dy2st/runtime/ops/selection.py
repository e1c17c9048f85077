"""Data-dependent selection: where, nonzero, masked_select."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..dtype import bool_, dtype_name, int64
from ..registry import Meta, apply, register_op
from . import infer as I
from .operands import as_tensor, binary_operands, cast, is_tensor
from .shape import reshape


def _where_infer(cond, x, y):
    shape = I.broadcast_shapes("where", cond._shape, x._shape)
    return Meta(I.broadcast_shapes("where", shape, y._shape), x.dtype)


@register_op("where", infer=_where_infer)
def _where_kernel(cond, x, y):
    return np.where(cond, x, y)


def where(condition: Any, x: Any = None, y: Any = None, name: Optional[str] = None) -> Any:
    """x where condition holds, else y (broadcast); with only a condition, nonzero(as_tuple=True)."""
    if x is None and y is None:
        return nonzero(condition, as_tuple=True)
    if x is None or y is None:
        raise ValueError("where: give both x and y, or neither")
    condition = as_tensor(condition)
    if condition.dtype != bool_:
        condition = cast(condition, bool_)
    if not is_tensor(x) and not is_tensor(y):
        x = as_tensor(x)
    x, y = binary_operands(x, y)
    return apply("where", [condition, x, y])


@register_op("nonzero", infer=lambda x: Meta((-1, len(x._shape)), int64))
def _nonzero_kernel(x):
    return np.argwhere(x).astype(np.int64)


def nonzero(x: Any, as_tuple: bool = False) -> Any:
    """Indices of the non-zero entries: an int64 [N, rank] tensor, or a tuple of rank [N] tensors."""
    x = as_tensor(x)
    out = apply("nonzero", [x])
    if not as_tuple:
        return out
    if x.ndim == 0:
        return (reshape(out, [-1]),)
    return tuple(out[:, i] for i in range(x.ndim))


def _masked_infer(x, mask):
    I.broadcast_shapes("masked_select", x._shape, mask._shape)
    if mask.dtype != bool_:
        raise TypeError(f"masked_select: mask must be bool, got {dtype_name(mask.dtype)}")
    return Meta((-1,), x.dtype)


@register_op("masked_select", infer=_masked_infer)
def _masked_kernel(x, mask):
    x, mask = np.broadcast_arrays(x, mask)
    return x[mask]


def masked_select(x: Any, mask: Any, name: Optional[str] = None) -> Any:
    """The entries of x where the (broadcast) bool mask is True, as a 1-D tensor."""
    mask = as_tensor(mask)
    if mask.dtype != bool_:
        raise TypeError(f"masked_select: mask must be bool, got {dtype_name(mask.dtype)}")
    return apply("masked_select", [x, mask])
