"""Index-driven ops: one_hot and embedding lookup."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...runtime.dtype import dtype_name, float32
from ...runtime.ops.operands import as_tensor
from ...runtime.registry import Meta, apply, register_op
from .dims import known_dims

__all__ = ["one_hot", "embedding"]


def _check_ids(ids: np.ndarray, n: int, op: str) -> None:
    if ids.dtype.kind not in "iu":
        raise TypeError(f"{op}: indices must be integers, got {dtype_name(ids.dtype)}")
    if ids.size and (ids.min() < 0 or ids.max() >= n):
        raise IndexError(f"{op}: indices must be in [0, {n}), got values in "
                         f"[{ids.min()}, {ids.max()}]")


@register_op("one_hot", infer=lambda x, num_classes: Meta(tuple(x._shape) + (num_classes,), float32))
def _one_hot_kernel(x, num_classes):
    _check_ids(x, num_classes, "one_hot")
    return np.eye(num_classes, dtype=np.float32)[x]


def one_hot(x: Any, num_classes: int, name: Optional[str] = None) -> Any:
    """float32 one-hot vectors: x's shape plus a trailing num_classes dim."""
    return apply("one_hot", [as_tensor(x)], {"num_classes": int(num_classes)})


def _embedding_infer(ids, w, padding_idx):
    return Meta(tuple(ids._shape) + (w._shape[-1],), w.dtype)


@register_op("embedding", infer=_embedding_infer)
def _embedding_kernel(ids, w, padding_idx):
    _check_ids(ids, w.shape[0], "embedding")
    out = w[ids]          # fancy indexing copies, so zeroing padding rows below is safe
    if padding_idx is not None:
        out[ids == padding_idx % w.shape[0]] = 0
    return out


def embedding(x: Any, weight: Any, padding_idx: Optional[int] = None, max_norm: Any = None,
              norm_type: float = 2.0, sparse: bool = False, scale_grad_by_freq: bool = False,
              name: Optional[str] = None) -> Any:
    """Rows of weight picked by the integer ids in x; ids equal to padding_idx give zero rows."""
    num = known_dims(weight)[0]
    if padding_idx is not None:
        # A negative padding_idx counts from the end; the kernel resolves it if num is unknown here.
        if num >= 0 and not -num <= padding_idx < num:
            raise ValueError(f"embedding: padding_idx must be in [-{num}, {num}), got {padding_idx}")
        padding_idx = int(padding_idx) % num if num >= 0 else int(padding_idx)
    return apply("embedding", [as_tensor(x), weight], {"padding_idx": padding_idx})
