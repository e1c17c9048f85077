"""Paddle's long-standing element and segmentation losses, composed from differentiable ops:
square_error_cost, log_loss, dice_loss and sigmoid_focal_loss."""
from __future__ import annotations

from typing import Any, Optional

from ...runtime import ops
from ...runtime.dtype import dtype_name
from ...runtime.ops.operands import as_tensor, cast
from ...runtime.registry import classified_as
from .dims import known_dims
from .input import one_hot
from .loss import binary_cross_entropy_with_logits, check_reduction, reduce_loss

__all__ = ["square_error_cost", "log_loss", "dice_loss", "sigmoid_focal_loss"]


def _float(x: Any, op: str) -> Any:
    x = as_tensor(x)
    if not x.dtype.is_floating:
        raise TypeError(f"{op}: input must be float, got {dtype_name(x.dtype)}")
    return x


def square_error_cost(input: Any, label: Any) -> Any:
    """(input - label) ** 2, element-wise (no reduction)."""
    x = _float(input, "square_error_cost")
    return ops.square(ops.subtract(x, cast(as_tensor(label), x.dtype)))


@classified_as("log_loss")
def log_loss(input: Any, label: Any, epsilon: float = 1e-4, name: Optional[str] = None) -> Any:
    """-label * log(input + epsilon) - (1 - label) * log(1 - input + epsilon), element-wise;
    input holds probabilities."""
    x = _float(input, "log_loss")
    y = cast(as_tensor(label), x.dtype)
    eps = float(epsilon)
    return ops.subtract(ops.neg(ops.multiply(y, ops.log(ops.add(x, eps)))),
                        ops.multiply(ops.subtract(1.0, y), ops.log(ops.add(ops.subtract(1.0, x), eps))))


def dice_loss(input: Any, label: Any, epsilon: float = 1e-5, name: Optional[str] = None) -> Any:
    """mean over samples of 1 - 2 |P ∩ L| / (|P| + |L| + epsilon): input [N, ..., C] holds class
    probabilities, label [N, ..., 1] class indices."""
    x = _float(input, "dice_loss")
    lab = as_tensor(label)
    if x.ndim < 2 or lab.ndim != x.ndim or known_dims(lab)[-1] not in (1, -1):
        raise ValueError(f"dice_loss: label must have input's shape with a last dim of 1: input "
                         f"{list(x.shape)}, label {list(lab.shape)}")
    c = known_dims(x)[-1]
    if c < 0:
        raise ValueError("dice_loss: the number of classes (input.shape[-1]) must be known")
    target = cast(one_hot(ops.squeeze(cast(lab, "int64"), -1), c), x.dtype)
    axes = list(range(1, x.ndim))
    inter = ops.sum(ops.multiply(x, target), axis=axes)
    denom = ops.add(ops.sum(x, axis=axes), ops.sum(target, axis=axes))
    score = ops.subtract(1.0, ops.divide(ops.multiply(inter, 2.0), ops.add(denom, float(epsilon))))
    return ops.mean(score)


def sigmoid_focal_loss(logit: Any, label: Any, normalizer: Any = None, alpha: float = 0.25,
                       gamma: float = 2.0, reduction: str = "sum", name: Optional[str] = None) -> Any:
    """alpha_t * (1 - p_t) ** gamma * BCE(sigmoid(logit), label), p_t the probability of the
    true label, alpha_t = alpha for positives and 1 - alpha for negatives; divided by
    normalizer when given."""
    check_reduction(reduction, "sigmoid_focal_loss")
    x = _float(logit, "sigmoid_focal_loss")
    y = cast(as_tensor(label), x.dtype)
    bce = binary_cross_entropy_with_logits(x, y, reduction="none")
    prob = ops.sigmoid(x)
    p_t = ops.add(ops.multiply(prob, y), ops.multiply(ops.subtract(1.0, prob), ops.subtract(1.0, y)))
    alpha_t = ops.add(ops.multiply(y, float(alpha)), ops.multiply(ops.subtract(1.0, y), 1.0 - float(alpha)))
    loss = ops.multiply(ops.multiply(alpha_t, bce), ops.pow(ops.subtract(1.0, p_t), float(gamma)))
    if normalizer is not None:
        loss = ops.divide(loss, cast(as_tensor(normalizer), x.dtype))
    return reduce_loss(loss, reduction)
