"""Losses: cross_entropy / nll_loss (one fused kernel), mse_loss, l1_loss, smooth_l1_loss,
binary_cross_entropy(_with_logits) (kernels with their own gradient rules in
dy2st/autograd/rules/loss_rules.py) and kl_div."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...autograd.rules import register_vjp
from ...autograd.rules.util import shape_of, unbroadcast
from ...runtime import ops
from ...runtime.dtype import dtype_name
from ...runtime.ops.operands import as_tensor, binary_operands, cast
from ...runtime.registry import Meta, apply, classified_as, register_op
from .activation import softmax

__all__ = ["cross_entropy", "softmax_with_cross_entropy", "nll_loss", "mse_loss", "l1_loss",
           "smooth_l1_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div"]

_REDUCTIONS = ("none", "mean", "sum")


def check_reduction(reduction: str, op: str) -> None:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{op}: reduction must be one of {_REDUCTIONS}, got {reduction!r}")


def reduce_loss(loss: Any, reduction: str) -> Any:
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
        raise TypeError(f"cross_entropy: hard labels must be integers, got {dtype_name(label.dtype)} "
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
    check_reduction(reduction, op)
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
        # As Paddle: a plain mean unless weights are given or ignore_index is a real class
        # index (>= 0); then the (weighted) sum over the samples that count, divided by their
        # weight, and 0 rather than 0/0 when none counts.
        if weight is None and (soft_label or (ignore_index < 0 and op == "cross_entropy")):
            return ops.mean(loss)
        total = ops.sum(w)
        if op == "cross_entropy":
            total = ops.add(total, ops.cast(ops.equal(total, 0.0), total.dtype))
        return ops.divide(ops.sum(loss), total)
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
        return loss, softmax(logits, axis=axis)
    return loss


@classified_as("nll_loss")
def nll_loss(input: Any, label: Any, weight: Any = None, ignore_index: int = -100,
             reduction: str = "mean", name: Optional[str] = None) -> Any:
    """Negative log likelihood of log-probabilities input [N, C] at integer labels [N]."""
    loss = _entropy(input, label, weight, ignore_index, reduction, False, 1, "log_probs", 0.0, "nll_loss")
    return ops.squeeze(loss, 1) if reduction == "none" else loss


# ----------------------------------------------------------------------------- regression
def mse_loss(input: Any, label: Any, reduction: str = "mean", name: Optional[str] = None) -> Any:
    """(input - label) ** 2, reduced."""
    check_reduction(reduction, "mse_loss")
    x, y = binary_operands(input, label)
    return reduce_loss(ops.square(ops.subtract(x, y)), reduction)


def l1_loss(input: Any, label: Any, reduction: str = "mean", name: Optional[str] = None) -> Any:
    """|input - label|, reduced."""
    check_reduction(reduction, "l1_loss")
    x, y = binary_operands(input, label)
    return reduce_loss(ops.abs(ops.subtract(x, y)), reduction)


@register_op("smooth_l1", infer=lambda x, y, delta: Meta(x._shape, x.dtype))
def _smooth_l1_kernel(x, y, delta):
    d = np.abs(x - y)
    return np.where(d < delta, 0.5 * d * d, delta * d - 0.5 * delta * delta).astype(x.dtype, copy=False)


def smooth_l1_loss(input: Any, label: Any, reduction: str = "mean", delta: float = 1.0,
                   name: Optional[str] = None) -> Any:
    """Huber-style loss: quadratic below delta, linear above (Paddle's smooth_l1_loss)."""
    check_reduction(reduction, "smooth_l1_loss")
    x, y = binary_operands(input, label)
    return reduce_loss(apply("smooth_l1", [x, y], {"delta": float(delta)}), reduction)


# ----------------------------------------------------------------------------- binary
def _binary_operands(input: Any, label: Any, reduction: str, op: str, what: str) -> Any:
    """(input, label as input's dtype), checked: a float input, a label of the same shape."""
    check_reduction(reduction, op)
    x = as_tensor(input)
    if not x.dtype.is_floating:
        raise TypeError(f"{op}: {what} must be float, got {dtype_name(x.dtype)}")
    y = cast(as_tensor(label), x.dtype)
    # static shapes (-1 for a dim known only at run time): Variable.shape gives such dims as
    # symbolic scalars, which have no truth value while the program is built
    xs, ys = shape_of(x), shape_of(y)
    if len(xs) != len(ys) or any(a != b and a != -1 and b != -1 for a, b in zip(xs, ys)):
        raise ValueError(f"{op}: {what} and label must have the same shape, got {list(xs)} and "
                         f"{list(ys)}")
    return x, y


def _weighted(loss: Any, weight: Any, op: str) -> Any:
    if weight is None:
        return loss
    return ops.multiply(loss, cast(as_tensor(weight), loss.dtype))


@register_op("bce_loss", infer=lambda x, y: Meta(x._shape, x.dtype))
def _bce_kernel(x, y):
    if x.size and (np.min(x) < 0 or np.max(x) > 1 or np.isnan(x).any()):
        raise ValueError("binary_cross_entropy: the input is expected to be within the interval "
                         "[0, 1] (probabilities; use binary_cross_entropy_with_logits for logits)")
    with np.errstate(divide="ignore"):
        # log is clamped at -100 as Paddle does, so 0 and 1 give a finite loss
        log_x = np.maximum(np.log(x), -100.0)
        log_1mx = np.maximum(np.log1p(-x), -100.0)
    return (-(y * log_x + (1 - y) * log_1mx)).astype(x.dtype, copy=False)


@register_vjp("bce_loss")
def _bce_vjp(ctx, g):
    """Paddle's gradient: (x - y) / max(x (1 - x), 1e-12), finite at 0 and 1."""
    x, y = ctx.inputs
    gx = gy = None
    if ctx.needs[0]:
        denom = ops.maximum(ops.multiply(x, ops.subtract(1.0, x)), ops.full_like(x, 1e-12))
        gx = ops.multiply(g, ops.divide(ops.subtract(x, y), denom))
    if ctx.needs[1]:
        floor = ops.full_like(x, -100.0)
        gy = ops.multiply(g, ops.subtract(ops.maximum(ops.log1p(ops.neg(x)), floor),
                                          ops.maximum(ops.log(x), floor)))
    return gx, gy


def binary_cross_entropy(input: Any, label: Any, weight: Any = None, reduction: str = "mean",
                         name: Optional[str] = None) -> Any:
    """-(label * log(input) + (1 - label) * log(1 - input)) of probabilities in [0, 1]."""
    x, y = _binary_operands(input, label, reduction, "binary_cross_entropy", "input")
    loss = _weighted(apply("bce_loss", [x, y]), weight, "binary_cross_entropy")
    return reduce_loss(loss, reduction)


def _bce_logits_infer(x, y, *pos_weight):
    return Meta(x._shape, x.dtype)


@register_op("sigmoid_cross_entropy_with_logits", infer=_bce_logits_infer)
def _bce_logits_kernel(x, y, *pos_weight):
    softplus_neg = np.maximum(-x, 0) + np.log1p(np.exp(-np.abs(x)))    # log(1 + exp(-x))
    if pos_weight:
        log_weight = (pos_weight[0] - 1) * y + 1
        out = (1 - y) * x + log_weight * softplus_neg
    else:
        out = (1 - y) * x + softplus_neg
    return out.astype(x.dtype, copy=False)


def _softplus_neg(x: Any) -> Any:
    """log(1 + exp(-x)), stable for large |x|."""
    return ops.add(ops.maximum(ops.neg(x), ops.zeros_like(x)),
                   ops.log1p(ops.exp(ops.neg(ops.abs(x)))))


@register_vjp("sigmoid_cross_entropy_with_logits")
def _bce_logits_vjp(ctx, g):
    """loss = (1 - y) x + w softplus(-x) with w = (pos_weight - 1) y + 1:
    d/dx = (1 - y) - w sigmoid(-x), d/dy = (pos_weight - 1) softplus(-x) - x,
    d/dpos_weight = y softplus(-x)."""
    x, y = ctx.inputs[0], ctx.inputs[1]
    pw = ctx.inputs[2] if len(ctx.inputs) == 3 else None
    w = ops.add(ops.multiply(ops.subtract(pw, 1.0), y), 1.0) if pw is not None else None
    sig_neg = ops.sigmoid(ops.neg(x))
    grads = [None, None] + ([None] if pw is not None else [])
    if ctx.needs[0]:
        grads[0] = ops.multiply(g, ops.subtract(ops.subtract(1.0, y),
                                                sig_neg if w is None else ops.multiply(w, sig_neg)))
    if ctx.needs[1] or (pw is not None and ctx.needs[2]):
        sp = _softplus_neg(x)
        if ctx.needs[1]:
            dy = ops.neg(x) if pw is None else ops.subtract(ops.multiply(ops.subtract(pw, 1.0), sp), x)
            grads[1] = ops.multiply(g, dy)
        if pw is not None and ctx.needs[2]:
            grads[2] = unbroadcast(ops.multiply(g, ops.multiply(y, sp)), pw)
    return tuple(grads)


def binary_cross_entropy_with_logits(logit: Any, label: Any, weight: Any = None,
                                     reduction: str = "mean", pos_weight: Any = None,
                                     name: Optional[str] = None) -> Any:
    """Sigmoid + binary cross entropy in one numerically stable step; pos_weight weighs the
    positive term (per class, broadcast along the last axis)."""
    x, y = _binary_operands(logit, label, reduction, "binary_cross_entropy_with_logits", "logit")
    inputs = [x, y] + ([cast(as_tensor(pos_weight), x.dtype)] if pos_weight is not None else [])
    loss = apply("sigmoid_cross_entropy_with_logits", inputs)
    return reduce_loss(_weighted(loss, weight, "binary_cross_entropy_with_logits"), reduction)


# ----------------------------------------------------------------------------- divergence
def kl_div(input: Any, label: Any, reduction: str = "mean", log_target: bool = False,
           name: Optional[str] = None) -> Any:
    """Kullback-Leibler divergence of log-probabilities `input` from `label`:
    label * (log(label) - input) where label > 0 (0 elsewhere), or with log_target=True
    exp(label) * (label - input). reduction 'batchmean' divides the sum by input.shape[0]."""
    if reduction not in _REDUCTIONS + ("batchmean",):
        raise ValueError(f"kl_div: reduction must be one of {_REDUCTIONS + ('batchmean',)}, "
                         f"got {reduction!r}")
    x, y = binary_operands(input, label)
    if log_target:
        loss = ops.multiply(ops.exp(y), ops.subtract(y, x))
    else:
        positive = ops.cast(ops.greater_than(y, ops.zeros_like(y)), y.dtype)
        # log of max(label, tiny): finite everywhere, multiplied by 0 where label <= 0
        tiny = float(np.finfo(y.dtype.np).tiny)
        safe_log = ops.log(ops.maximum(y, ops.full_like(y, tiny)))
        loss = ops.multiply(ops.multiply(positive, y), ops.subtract(safe_log, x))
    if reduction == "batchmean":
        if x.ndim == 0:
            return loss
        n = x.shape[0]
        known = isinstance(n, int) and n >= 0
        batch = float(n) if known else ops.cast(ops.shape(x)[0], loss.dtype)
        return ops.divide(ops.sum(loss), batch)
    return reduce_loss(loss, reduction)


# ----------------------------------------------------------------------------- ranking, embedding
# Built from differentiable ops only: gradients, static programs and ONNX export follow from theirs.
__all__ += ["margin_ranking_loss", "cosine_embedding_loss", "hinge_embedding_loss",
            "triplet_margin_loss", "poisson_nll_loss", "gaussian_nll_loss"]


def float_loss_input(input: Any, reduction: str, op: str) -> Any:
    check_reduction(reduction, op)
    x = as_tensor(input)
    if not x.dtype.is_floating:
        raise TypeError(f"{op}: input must be float, got {dtype_name(x.dtype)}")
    return x


def hinge(x: Any) -> Any:
    """max(x, 0)."""
    return ops.maximum(x, ops.zeros_like(x))


def _where_label(label: Any, value: float, x: Any) -> Any:
    """x where label == value, 0 elsewhere (a mask product, so the gradient is masked too)."""
    return ops.multiply(ops.cast(ops.equal(label, ops.full_like(label, value)), x.dtype), x)


def margin_ranking_loss(input: Any, other: Any, label: Any, margin: float = 0.0,
                        reduction: str = "mean", name: Optional[str] = None) -> Any:
    """max(0, -label * (input - other) + margin), label in {1, -1}."""
    x = float_loss_input(input, reduction, "margin_ranking_loss")
    y = cast(as_tensor(other), x.dtype)
    lab = cast(as_tensor(label), x.dtype)
    loss = hinge(ops.add(ops.neg(ops.multiply(lab, ops.subtract(x, y))), float(margin)))
    return reduce_loss(loss, reduction)


def cosine_embedding_loss(input1: Any, input2: Any, label: Any, margin: float = 0,
                          reduction: str = "mean", name: Optional[str] = None) -> Any:
    """1 - cos(input1, input2) where label == 1, max(0, cos - margin) where label == -1;
    the cosine is taken along the last axis of [N, M] (or [M]) inputs."""
    x1 = float_loss_input(input1, reduction, "cosine_embedding_loss")
    x2 = cast(as_tensor(input2), x1.dtype)
    if x1.ndim not in (1, 2):
        raise ValueError(f"cosine_embedding_loss: input1 must have rank 1 or 2, got shape "
                         f"{list(x1.shape)}")
    if float(margin) < -1 or float(margin) > 1:
        raise ValueError(f"cosine_embedding_loss: margin must be in [-1, 1], got {margin}")
    lab = cast(as_tensor(label), x1.dtype)
    dot = ops.sum(ops.multiply(x1, x2), axis=-1)
    # the small constant keeps a zero vector from dividing 0 by 0, as Paddle does
    mag1 = ops.add(ops.sum(ops.square(x1), axis=-1), 1e-11)
    mag2 = ops.add(ops.sum(ops.square(x2), axis=-1), 1e-11)
    cos = ops.divide(dot, ops.sqrt(ops.multiply(mag1, mag2)))
    loss = ops.add(_where_label(lab, 1.0, ops.subtract(1.0, cos)),
                   _where_label(lab, -1.0, hinge(ops.subtract(cos, float(margin)))))
    return reduce_loss(loss, reduction)


def hinge_embedding_loss(input: Any, label: Any, margin: float = 1.0, reduction: str = "mean",
                         name: Optional[str] = None) -> Any:
    """input where label == 1, max(0, margin - input) where label == -1."""
    x = float_loss_input(input, reduction, "hinge_embedding_loss")
    lab = cast(as_tensor(label), x.dtype)
    loss = ops.add(_where_label(lab, 1.0, x),
                   _where_label(lab, -1.0, hinge(ops.subtract(float(margin), x))))
    return reduce_loss(loss, reduction)


def _p_distance(x: Any, y: Any, p: float, epsilon: float) -> Any:
    """||x - y + epsilon||_p along the last axis (Paddle's pairwise distance)."""
    d = ops.add(ops.subtract(x, y), float(epsilon))
    if p == 2:
        return ops.sqrt(ops.sum(ops.square(d), axis=-1))
    if p == 1:
        return ops.sum(ops.abs(d), axis=-1)
    return ops.pow(ops.sum(ops.pow(ops.abs(d), float(p)), axis=-1), 1.0 / float(p))


def triplet_margin_loss(input: Any, positive: Any, negative: Any, margin: float = 1.0,
                        p: float = 2, epsilon: float = 1e-6, swap: bool = False,
                        reduction: str = "mean", name: Optional[str] = None) -> Any:
    """max(d(input, positive) - d(input, negative) + margin, 0) with d the p-norm distance along
    the last axis; swap=True uses min(d(input, negative), d(positive, negative))."""
    a = float_loss_input(input, reduction, "triplet_margin_loss")
    if not float(p) > 0:
        raise ValueError(f"triplet_margin_loss: p must be positive, got {p}")
    pos = cast(as_tensor(positive), a.dtype)
    neg = cast(as_tensor(negative), a.dtype)
    d_pos = _p_distance(a, pos, p, epsilon)
    d_neg = _p_distance(a, neg, p, epsilon)
    if swap:
        d_neg = ops.minimum(d_neg, _p_distance(pos, neg, p, epsilon))
    loss = hinge(ops.add(ops.subtract(d_pos, d_neg), float(margin)))
    return reduce_loss(loss, reduction)


def poisson_nll_loss(input: Any, label: Any, log_input: bool = True, full: bool = False,
                     epsilon: float = 1e-8, reduction: str = "mean",
                     name: Optional[str] = None) -> Any:
    """exp(input) - label * input (log_input) or input - label * log(input + epsilon); full=True
    adds Stirling's term label log(label) - label + log(2 pi label) / 2 where label > 1."""
    x = float_loss_input(input, reduction, "poisson_nll_loss")
    if not float(epsilon) > 0:
        raise ValueError(f"poisson_nll_loss: epsilon must be positive, got {epsilon}")
    y = cast(as_tensor(label), x.dtype)
    if log_input:
        loss = ops.subtract(ops.exp(x), ops.multiply(y, x))
    else:
        loss = ops.subtract(x, ops.multiply(y, ops.log(ops.add(x, float(epsilon)))))
    if full:
        big = ops.cast(ops.greater_than(y, ops.full_like(y, 1.0)), x.dtype)
        safe = ops.maximum(y, ops.full_like(y, 1.0))      # the log is finite where masked out
        stirling = ops.add(ops.subtract(ops.multiply(safe, ops.log(safe)), safe),
                           ops.multiply(0.5, ops.log(ops.multiply(2 * np.pi, safe))))
        loss = ops.add(loss, ops.multiply(big, stirling))
    return reduce_loss(loss, reduction)


def gaussian_nll_loss(input: Any, label: Any, variance: Any, full: bool = False,
                      epsilon: float = 1e-6, reduction: str = "mean",
                      name: Optional[str] = None) -> Any:
    """(log(max(variance, epsilon)) + (input - label)^2 / max(variance, epsilon)) / 2, plus
    log(2 pi) / 2 when full; variance may lack input's last axis or have it of size 1."""
    x = float_loss_input(input, reduction, "gaussian_nll_loss")
    y = cast(as_tensor(label), x.dtype)
    var = cast(as_tensor(variance), x.dtype)
    xs, vs = list(shape_of(x)), list(shape_of(var))
    if len(vs) == len(xs) - 1 and vs == xs[:-1]:
        var = ops.unsqueeze(var, -1)
    elif len(vs) != len(xs) or any(a != b and b != 1 and a != -1 and b != -1
                                   for a, b in zip(xs, vs)):
        raise ValueError(f"gaussian_nll_loss: variance of shape {vs} does not fit input of "
                         f"shape {xs} (same shape, last axis 1, or last axis dropped)")
    var = ops.maximum(var, ops.full_like(var, float(epsilon)))
    loss = ops.multiply(0.5, ops.add(ops.log(var),
                                     ops.divide(ops.square(ops.subtract(x, y)), var)))
    if full:
        loss = ops.add(loss, 0.5 * float(np.log(2 * np.pi)))
    return reduce_loss(loss, reduction)


# ----------------------------------------------------------------------------- CTC
__all__ += ["ctc_loss"]

# stands for log(0) in the CTC recursion: finite, so that logsumexp and its gradient stay
# defined where every path is impossible
_LOG_ZERO = -1e30


def _ctc_extended_labels(labels: Any, blank: int, n_labels: int) -> Any:
    """[B, 2L + 1]: blank, l1, blank, l2, ..., lL, blank."""
    blanks = ops.full_like(labels, blank)
    interleaved = ops.reshape(ops.stack([blanks, labels], axis=2), [-1, 2 * n_labels])
    return ops.concat([interleaved, blanks[:, :1]], axis=1)


def _shift_right(alpha: Any, k: int, fill: float = _LOG_ZERO) -> Any:
    """alpha moved k states to the right along axis 1, `fill` (log(0)) coming in."""
    pad = ops.full_like(alpha[:, :k], fill)
    return ops.concat([pad, alpha[:, :-k]], axis=1)


def ctc_loss(log_probs: Any, labels: Any, input_lengths: Any, label_lengths: Any,
             blank: int = 0, reduction: str = "mean", norm_by_times: bool = False) -> Any:
    """Connectionist temporal classification loss of unnormalised scores log_probs
    [T, B, C] (a softmax over C is applied, as Paddle's warp-ctc does) against padded labels
    [B, L]; 'mean' divides each loss by its label length before averaging. norm_by_times
    divides each sample's gradient (not its loss) by its input length."""
    x = float_loss_input(log_probs, reduction, "ctc_loss")
    if x.ndim != 3:
        raise ValueError(f"ctc_loss: log_probs must be [max_logit_length, batch_size, "
                         f"num_classes + 1], got shape {list(shape_of(x))}")
    lab = cast(as_tensor(labels), "int64")
    if lab.ndim != 2:
        raise ValueError(f"ctc_loss: labels must be [batch_size, max_label_length], got shape "
                         f"{list(shape_of(lab))}")
    n_steps, n_labels = shape_of(x)[0], shape_of(lab)[1]
    if n_steps == -1 or n_labels == -1:
        raise ValueError("ctc_loss: max_logit_length and max_label_length must be known when "
                         "the program is built (the recursion is unrolled over time)")
    n_class = shape_of(x)[2]
    if n_class != -1 and not 0 <= int(blank) < n_class:
        raise ValueError(f"ctc_loss: blank must be in [0, {n_class}), got {blank}")
    in_len = cast(as_tensor(input_lengths), "int64")
    lab_len = cast(as_tensor(label_lengths), "int64")

    logp = ops.subtract(x, ops.logsumexp(x, axis=2, keepdim=True))
    ext = _ctc_extended_labels(lab, int(blank), n_labels)                  # [B, S]
    emit = ops.take_along_axis(logp, ops.unsqueeze(ext, 0), axis=2)        # [T, B, S]
    n_states = 2 * n_labels + 1
    # a label state may be reached from two states back unless it repeats the label there
    not_blank = ops.cast(ops.not_equal(ext, ops.full_like(ext, int(blank))), x.dtype)
    differs = ops.cast(ops.not_equal(ext, _shift_right(ext, 2, int(blank))), x.dtype)
    skip = ops.multiply(not_blank, differs)
    first = np.zeros(n_states, dtype=x.dtype.np)
    first[:2] = 1.0
    first = as_tensor(first)
    alpha = ops.add(ops.multiply(emit[0], first),
                    ops.multiply(ops.subtract(1.0, first), _LOG_ZERO))
    for t in range(1, n_steps):
        stay, step = alpha, _shift_right(alpha, 1)
        paths = [stay, step]
        if n_states > 2:
            jump = _shift_right(alpha, 2)
            paths.append(ops.add(ops.multiply(jump, skip),
                                 ops.multiply(ops.subtract(1.0, skip), _LOG_ZERO)))
        new = ops.add(ops.logsumexp(ops.stack(paths, axis=0), axis=0), emit[t])
        active = ops.unsqueeze(ops.cast(ops.less_than(ops.full_like(in_len, t), in_len),
                                        x.dtype), 1)
        alpha = ops.add(ops.multiply(new, active), ops.multiply(alpha, ops.subtract(1.0, active)))
    # a path ends on the last label or the blank after it
    last_blank = ops.multiply(lab_len, 2)
    last_label = ops.maximum(ops.subtract(last_blank, 1), ops.zeros_like(last_blank))
    ends = ops.take_along_axis(alpha, ops.stack([last_blank, last_label], axis=1), axis=1)
    no_label = ops.cast(ops.equal(lab_len, ops.zeros_like(lab_len)), x.dtype)
    ends = ops.add(ends, ops.stack([ops.zeros_like(no_label),
                                    ops.multiply(no_label, _LOG_ZERO)], axis=1))
    loss = ops.neg(ops.logsumexp(ends, axis=1))                            # [B]
    if norm_by_times:
        scaled = ops.divide(loss, ops.cast(in_len, x.dtype))
        loss = ops.add(scaled, ops.subtract(loss, scaled).detach())
    if reduction == "mean":
        return ops.mean(ops.divide(loss, ops.cast(lab_len, x.dtype)))
    return reduce_loss(loss, reduction)
