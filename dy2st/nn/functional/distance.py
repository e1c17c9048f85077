"""Small functional forms composed from differentiable ops: pairwise_distance, dropout2d /
dropout3d (whole channels) and soft_margin_loss."""
from __future__ import annotations

from typing import Any, Optional

from ...runtime import ops
from ...runtime.ops.operands import as_tensor
from .common import dropout

__all__ = ["pairwise_distance", "dropout2d", "dropout3d", "soft_margin_loss"]


def pairwise_distance(x: Any, y: Any, p: float = 2.0, epsilon: float = 1e-6,
                      keepdim: bool = False, name: Optional[str] = None) -> Any:
    """The p-norm of x - y + epsilon over the last axis (p may be inf)."""
    d = ops.abs(as_tensor(x) - as_tensor(y) + epsilon)
    if p == float("inf"):
        return ops.max(d, axis=-1, keepdim=keepdim)
    if p == 0:
        return ops.sum(ops.cast(d != 0, d.dtype), axis=-1, keepdim=keepdim)
    return ops.pow(ops.sum(ops.pow(d, float(p)), axis=-1, keepdim=keepdim), 1.0 / p)


def _channel_dropout(x: Any, p: float, training: bool, data_format: str, rank: int,
                     what: str) -> Any:
    x = as_tensor(x)
    if x.ndim != rank:
        raise ValueError(f"{what}: the input must have rank {rank}, got shape {list(x.shape)}")
    channel_last = data_format[-1] == "C"
    # one draw per (sample, channel): the whole feature map is kept or zeroed
    return dropout(x, p=p, axis=[0, rank - 1 if channel_last else 1], training=training)


def dropout2d(x: Any, p: float = 0.5, training: bool = True, data_format: str = "NCHW",
              name: Optional[str] = None) -> Any:
    """Zero whole channels of a 4-D input with probability p while training."""
    return _channel_dropout(x, p, training, data_format, 4, "dropout2d")


def dropout3d(x: Any, p: float = 0.5, training: bool = True, data_format: str = "NCDHW",
              name: Optional[str] = None) -> Any:
    """Zero whole channels of a 5-D input with probability p while training."""
    return _channel_dropout(x, p, training, data_format, 5, "dropout3d")


def soft_margin_loss(input: Any, label: Any, reduction: str = "mean",
                     name: Optional[str] = None) -> Any:
    """log(1 + exp(-label * input)), labels in {-1, 1}."""
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"soft_margin_loss: reduction must be 'none', 'mean' or 'sum', got "
                         f"{reduction!r}")
    x = as_tensor(input)
    z = ops.neg(ops.cast(as_tensor(label), x.dtype) * x)
    if z.dtype.is_complex:
        loss = ops.log1p(ops.exp(z))        # holomorphic, as Paddle computes it
    else:
        # log(1 + e^z) without overflow: max(z, 0) + log1p(e^-|z|)
        loss = ops.maximum(z, ops.zeros_like(z)) + ops.log1p(ops.exp(ops.neg(ops.abs(z))))
    if reduction == "mean":
        return ops.mean(loss)
    if reduction == "sum":
        return ops.sum(loss)
    return loss
