"""Losses: cross_entropy / nll_loss (one fused kernel), mse_loss, l1_loss, smooth_l1_loss."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...runtime import ops
from ...runtime.ops.operands import as_tensor, binary_operands, cast
from ...runtime.registry import Meta, apply, register_op

__all__ = ["cross_entropy", "softmax_with_cross_entropy", "nll_loss", "mse_loss", "l1_loss",
           "smooth_l1_loss"]

_REDUCTIONS = ("none", "mean", "sum")


def _check_reduction(reduction: str, op: str) -> None:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{op}: reduction must be one of {_REDUCTIONS}, got {reduction!r}")


def _reduce(loss: Any, reduction: str) -> Any:
    if reduction == "mean":
        return ops.mean(loss)
    if reduction == "sum":
        return ops.sum(loss)
    return loss


# ----------------------------------------------------------------------------- cross entropy
def _log_probs(x: np.ndarray, axis: int, input_kind: str) -> np.ndarray:
    if input_kind == "logits":
        shifted = x - np.max(x, axis=axis, keepdims=True)
        return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))
    if input_kind == "probs":
        return np.log(x)
    return x          # already log-probabilities (nll_loss)


def _ce_infer(x, label, *weight, axis, soft_label, ignore_index, input_kind, smoothing):
    shape = list(x._shape)
    shape[axis] = 1
    return Meta(tuple(shape), x.dtype), Meta(tuple(shape), x.dtype)


@register_op("cross_entropy", infer=_ce_infer, n_outputs=2)
def _cross_entropy_kernel(x, label, *weight, axis, soft_label, ignore_index, input_kind, smoothing):
    """(loss, per-sample weight), both shaped like x with a 1 at `axis`.

    Hard labels come shaped like the loss (the caller inserts the class axis)."""
    logp = _log_probs(x, axis, input_kind)
    n_class = x.shape[axis]
    if soft_label or smoothing:
        if soft_label:
            target = label.astype(logp.dtype, copy=False)
        else:
            hard = np.moveaxis(label, axis, -1)[..., 0]
            _check_labels(hard, n_class, ignore_index)
            target = np.moveaxis(np.eye(n_class, dtype=logp.dtype)[np.where(hard == ignore_index, 0, hard)], -1, axis)
        if smoothing:
            target = target * (1.0 - smoothing) + smoothing / n_class
        loss = -np.sum(target * logp, axis=axis, keepdims=True)
        if weight:
            w = np.sum(target * _along(weight[0], axis, x.ndim), axis=axis, keepdims=True)
        else:
            w = np.ones_like(loss)
        if not soft_label:
            w = w * (label != ignore_index)
        return (loss * w).astype(x.dtype, copy=False), w.astype(x.dtype, copy=False)
    _check_labels(label, n_class, ignore_index)
    valid = label != ignore_index
    safe = np.where(valid, label, 0)
    picked = np.take_along_axis(logp, safe, axis=axis)
    w = weight[0][safe] if weight else np.ones_like(picked)
    w = w * valid
    return (-picked * w).astype(x.dtype, copy=False), w.astype(x.dtype, copy=False)


def _along(v: np.ndarray, axis: int, ndim: int) -> np.ndarray:
    shape = [1] * ndim
    shape[axis] = v.shape[0]
    return v.reshape(shape)


def _check_labels(label: np.ndarray, n_class: int, ignore_index: int) -> None:
    if label.dtype.kind not in "iu":
        raise TypeError(f"cross_entropy: hard labels must be integers, got {label.dtype} "
                        "(pass soft_label=True for probability labels)")
    bad = (label != ignore_index) & ((label < 0) | (label >= n_class))
    if bad.any():
        raise IndexError(f"cross_entropy: labels must be in [0, {n_class}) or equal ignore_index "
                         f"({ignore_index}); got {label[bad].reshape(-1)[:5].tolist()}")


def _hard_label_with_class_axis(x: Any, label: Any, axis: int) -> Any:
    # Paddle accepts labels shaped like x without the class axis ([N]) or with it set to 1 ([N, 1]).
    if label.ndim == x.ndim - 1:
        return ops.unsqueeze(label, axis)
    if label.ndim == x.ndim:
        return label
    raise ValueError(f"cross_entropy: a hard label must have rank {x.ndim - 1} or {x.ndim} for an "
                     f"input of rank {x.ndim}, got shape {list(label.shape)}")


def _entropy(input: Any, label: Any, weight: Any, ignore_index: int, reduction: str,
             soft_label: bool, axis: int, input_kind: str, smoothing: float, op: str) -> Any:
    _check_reduction(reduction, op)
    x = as_tensor(input)
    label = as_tensor(label)
    nd = x.ndim
    if not -nd <= axis < nd:
        raise ValueError(f"{op}: axis {axis} is out of range for an input of rank {nd}")
    axis %= nd
    if soft_label:
        label = cast(label, x.dtype)
    else:
        label = _hard_label_with_class_axis(x, label, axis)
    inputs = [x, label] + ([cast(as_tensor(weight), x.dtype)] if weight is not None else [])
    loss, w = apply("cross_entropy", inputs, {
        "axis": axis, "soft_label": bool(soft_label), "ignore_index": int(ignore_index),
        "input_kind": input_kind, "smoothing": float(smoothing)})
    if reduction == "sum":
        return ops.sum(loss)
    if reduction == "mean":
        # Hard labels: a weighted mean over the samples that are not ignored, as Paddle does.
        if weight is None and soft_label:
            return ops.mean(loss)
        return ops.divide(ops.sum(loss), ops.sum(w))
    return loss


def cross_entropy(input: Any, label: Any, weight: Any = None, ignore_index: int = -100,
                  reduction: str = "mean", soft_label: bool = False, axis: int = -1,
                  use_softmax: bool = True, label_smoothing: float = 0.0, name: Optional[str] = None) -> Any:
    """Softmax cross entropy against integer labels ([N] or [N, 1]) or soft labels.

    reduction='none' returns the per-sample loss shaped like input with the class axis set to 1."""
    return _entropy(input, label, weight, ignore_index, reduction, soft_label, axis,
                    "logits" if use_softmax else "probs", label_smoothing, "cross_entropy")


def softmax_with_cross_entropy(logits: Any, label: Any, soft_label: bool = False,
                               ignore_index: int = -100, numeric_stable_mode: bool = True,
                               return_softmax: bool = False, axis: int = -1) -> Any:
    loss = _entropy(logits, label, None, ignore_index, "none", soft_label, axis, "logits", 0.0,
                    "softmax_with_cross_entropy")
    if return_softmax:
        from .activation import softmax
        return loss, softmax(logits, axis=axis)
    return loss


def nll_loss(input: Any, label: Any, weight: Any = None, ignore_index: int = -100,
             reduction: str = "mean", name: Optional[str] = None) -> Any:
    """Negative log likelihood of log-probabilities input [N, C] at integer labels [N]."""
    loss = _entropy(input, label, weight, ignore_index, reduction, False, 1, "log_probs", 0.0, "nll_loss")
    return ops.squeeze(loss, 1) if reduction == "none" else loss


# ----------------------------------------------------------------------------- regression
def mse_loss(input: Any, label: Any, reduction: str = "mean", name: Optional[str] = None) -> Any:
    """(input - label) ** 2, reduced."""
    _check_reduction(reduction, "mse_loss")
    x, y = binary_operands(input, label)
    return _reduce(ops.square(ops.subtract(x, y)), reduction)


def l1_loss(input: Any, label: Any, reduction: str = "mean", name: Optional[str] = None) -> Any:
    """|input - label|, reduced."""
    _check_reduction(reduction, "l1_loss")
    x, y = binary_operands(input, label)
    return _reduce(ops.abs(ops.subtract(x, y)), reduction)


@register_op("smooth_l1", infer=lambda x, y, delta: Meta(x._shape, x.dtype))
def _smooth_l1_kernel(x, y, delta):
    d = np.abs(x - y)
    return np.where(d < delta, 0.5 * d * d, delta * d - 0.5 * delta * delta).astype(x.dtype, copy=False)


def smooth_l1_loss(input: Any, label: Any, reduction: str = "mean", delta: float = 1.0,
                   name: Optional[str] = None) -> Any:
    """Huber-style loss: quadratic below delta, linear above (Paddle's smooth_l1_loss)."""
    _check_reduction(reduction, "smooth_l1_loss")
    x, y = binary_operands(input, label)
    return _reduce(apply("smooth_l1", [x, y], {"delta": float(delta)}), reduction)
