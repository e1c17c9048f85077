"""dropout1d (whole 1-D channels) and the SELU-preserving alpha_dropout / feature_alpha_dropout,
built on dropout's random mask so they run eagerly, in static programs and with unknown dims."""
from __future__ import annotations

from typing import Any, Optional

from ...runtime import ops
from ...runtime.ops.operands import as_tensor
from .common import dropout

__all__ = ["dropout1d", "alpha_dropout", "feature_alpha_dropout"]

# SELU's constants: alpha_dropout sets dropped units to SELU's negative saturation value.
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _check_p(p: Any, op: str) -> float:
    if not isinstance(p, (int, float)) or not 0 <= p <= 1:
        raise ValueError(f"{op}: p must be a number in [0, 1], got {p!r}")
    return float(p)


def dropout1d(input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Any:
    """Zero whole channels of an [N, C, L] (or [C, L]) input with probability p while training,
    scaling kept ones by 1 / (1 - p)."""
    p = _check_p(p, "dropout1d")
    x = as_tensor(input)
    if x.ndim not in (2, 3):
        raise ValueError(f"dropout1d: the input must have rank 2 ([C, L]) or 3 ([N, C, L]), got "
                         f"shape {list(x.shape)}")
    return dropout(x, p=p, axis=[0] if x.ndim == 2 else [0, 1], training=training)


def _alpha(x: Any, p: float, training: bool, axis: Any) -> Any:
    if not training or p == 0:
        return x
    if p == 1:
        return ops.zeros_like(x)
    alpha_p = -_SELU_ALPHA * _SELU_SCALE
    a = ((1 - p) * (1 + p * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * p
    # 1 where kept, 0 where dropped (downscale_in_infer leaves kept values unscaled in training)
    keep = dropout(ops.ones_like(x), p=p, axis=axis, training=True, mode="downscale_in_infer")
    y = ops.add(ops.multiply(x, keep), ops.multiply(ops.subtract(1.0, keep), alpha_p))
    return ops.add(ops.multiply(y, a), b)


def alpha_dropout(x: Any, p: float = 0.5, training: bool = True, name: Optional[str] = None) -> Any:
    """Dropout that keeps SELU activations' mean and variance: dropped units take SELU's
    saturation value, then an affine map restores the statistics."""
    return _alpha(as_tensor(x), _check_p(p, "alpha_dropout"), training, None)


def feature_alpha_dropout(x: Any, p: float = 0.5, training: bool = True, name: Optional[str] = None) -> Any:
    """alpha_dropout that drops whole channels (axis 1) of each sample."""
    x = as_tensor(x)
    if x.ndim < 2:
        raise ValueError(f"feature_alpha_dropout: the input must have rank >= 2, got shape {list(x.shape)}")
    return _alpha(x, _check_p(p, "feature_alpha_dropout"), training, [0, 1])
