"""RNN-transducer loss as Paddle computes it on CPU (warp-transducer): the input holds
log-probabilities [B, T, U + 1, V] (no softmax is applied), the loss is -log P(label | input) by
the alpha recursion in log space, and the gradient comes from alpha and beta, with FastEmit
scaling the label-emission terms by (1 + fastemit_lambda). Two kernels: the loss, and the
gradient its rule reads (recomputed, so the forward keeps nothing)."""
from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

from ...autograd.rules import GradientError, register_vjp
from ...runtime import ops
from ...runtime.dtype import dtype_name
from ...runtime.ops.operands import as_tensor, cast
from ...runtime.registry import Meta, apply, register_op
from .dims import known_dims

__all__ = ["rnnt_loss"]


def _emissions(lp: np.ndarray, labels: np.ndarray, blank: int) -> Tuple[np.ndarray, np.ndarray]:
    """blank[b, t, u] and emit[b, t, u] = lp[b, t, u, labels[b, u]] (u < U)."""
    n_emit = lp.shape[2] - 1
    lab = np.clip(labels[:, :n_emit].astype(np.int64), 0, lp.shape[3] - 1)
    emit = np.take_along_axis(lp[:, :, :n_emit, :], lab[:, None, :, None], axis=3)[..., 0]
    return lp[..., blank], emit


def _alpha_beta(lp, labels, t_len, u_len, blank):
    """Forward (alpha) and backward (beta) log-variables over the [T, U + 1] lattice of every
    sample, -inf outside each sample's own T_b x (U_b + 1) part, and log P per sample."""
    batch, steps, states = lp.shape[:3]
    blank_lp, emit = _emissions(lp, labels, blank)
    neg = -np.inf
    t_idx, u_idx = np.arange(steps)[None, :, None], np.arange(states)[None, None, :]
    inside = (t_idx < t_len[:, None, None]) & (u_idx <= u_len[:, None, None])
    alpha = np.full((batch, steps, states), neg)
    for t in range(steps):
        for u in range(states):
            if t == 0 and u == 0:
                alpha[:, 0, 0] = 0.0
                continue
            stay = alpha[:, t - 1, u] + blank_lp[:, t - 1, u] if t > 0 else np.full(batch, neg)
            move = alpha[:, t, u - 1] + emit[:, t, u - 1] if u > 0 else np.full(batch, neg)
            alpha[:, t, u] = np.logaddexp(stay, move)
    alpha = np.where(inside, alpha, neg)
    rows = np.arange(batch)
    last_t, last_u = t_len - 1, u_len
    loglike = alpha[rows, last_t, last_u] + blank_lp[rows, last_t, last_u]
    beta = np.full((batch, steps, states), neg)
    for t in range(steps - 1, -1, -1):
        for u in range(states - 1, -1, -1):
            stay = beta[:, t + 1, u] + blank_lp[:, t, u] if t + 1 < steps else np.full(batch, neg)
            move = beta[:, t, u + 1] + emit[:, t, u] if u + 1 < states else np.full(batch, neg)
            value = np.logaddexp(stay, move)
            final = (t == last_t) & (u == last_u)
            beta[:, t, u] = np.where(final, blank_lp[:, t, u], np.where(inside[:, t, u], value, neg))
    return alpha, beta, loglike, blank_lp, emit


def _lengths(input_lengths, label_lengths):
    return (np.asarray(input_lengths).reshape(-1).astype(np.int64),
            np.asarray(label_lengths).reshape(-1).astype(np.int64))


def _check_lengths(lp, labels, t_len, u_len):
    batch, steps, states = lp.shape[:3]
    if t_len.shape[0] != batch or u_len.shape[0] != batch:
        raise ValueError(f"rnnt_loss: input_lengths and label_lengths must hold {batch} values, "
                         f"got {t_len.shape[0]} and {u_len.shape[0]}")
    if t_len.min(initial=1) < 1 or t_len.max(initial=0) > steps:
        raise ValueError(f"rnnt_loss: input_lengths must be in [1, {steps}], got {t_len.tolist()}")
    if u_len.min(initial=0) < 0 or u_len.max(initial=0) > states - 1:
        raise ValueError(f"rnnt_loss: label_lengths must be in [0, {states - 1}], got "
                         f"{u_len.tolist()}")


@register_op("rnnt_loss", infer=lambda x, label, tl, ul, blank, fastemit_lambda:
             Meta((x._shape[0],), x.dtype))
def _rnnt_loss_kernel(x, label, input_lengths, label_lengths, blank, fastemit_lambda):
    """-log P(label | x) per sample (x holds log-probabilities)."""
    t_len, u_len = _lengths(input_lengths, label_lengths)
    _check_lengths(x, label, t_len, u_len)
    _, _, loglike, _, _ = _alpha_beta(x.astype(np.float64), label, t_len, u_len, blank)
    return (-loglike).astype(x.dtype)


@register_op("rnnt_loss_grad", infer=lambda x, label, tl, ul, blank, fastemit_lambda:
             Meta(x._shape, x.dtype))
def _rnnt_loss_grad_kernel(x, label, input_lengths, label_lengths, blank, fastemit_lambda):
    """d loss / d x: minus the posterior of each blank and label transition (label ones scaled
    by 1 + fastemit_lambda); zero for every other entry."""
    t_len, u_len = _lengths(input_lengths, label_lengths)
    lp = x.astype(np.float64)
    alpha, beta, loglike, blank_lp, emit = _alpha_beta(lp, label, t_len, u_len, blank)
    batch, steps, states = lp.shape[:3]
    norm = loglike[:, None, None]
    # after a blank at (t, u) comes (t + 1, u), or the end after the last step's last state
    after_blank = np.full_like(alpha, -np.inf)
    after_blank[:, :-1, :] = beta[:, 1:, :]
    rows = np.arange(batch)
    after_blank[rows, t_len - 1, u_len] = 0.0
    grad = np.zeros_like(lp)
    with np.errstate(invalid="ignore"):
        grad[..., blank] = -np.exp(alpha + blank_lp + after_blank - norm)
        label_post = -(1.0 + fastemit_lambda) * np.exp(alpha[:, :, :-1] + emit + beta[:, :, 1:]
                                                       - norm)
    label_post = np.nan_to_num(label_post, nan=0.0)
    n_emit = states - 1
    lab = np.clip(np.asarray(label)[:, :n_emit].astype(np.int64), 0, lp.shape[3] - 1)
    b_i, t_i, u_i = np.meshgrid(rows, np.arange(steps), np.arange(n_emit), indexing="ij")
    np.add.at(grad, (b_i, t_i, u_i, np.broadcast_to(lab[:, None, :], b_i.shape)), label_post)
    return np.nan_to_num(grad, nan=0.0).astype(x.dtype)


@register_vjp("rnnt_loss")
def _rnnt_loss_vjp(ctx, g):
    x, label, t_len, u_len = ctx.inputs
    grad = apply("rnnt_loss_grad", [x, label, t_len, u_len], ctx.attrs)
    return ops.multiply(grad, ops.reshape(g, [-1, 1, 1, 1])), None, None, None


@register_vjp("rnnt_loss_grad")
def _rnnt_loss_grad_vjp(ctx, gg):
    raise GradientError("the second derivative of rnnt_loss is not supported (its gradient is "
                        "computed by a kernel from the alpha and beta lattices)")


def rnnt_loss(input: Any, label: Any, input_lengths: Any, label_lengths: Any, blank: int = 0,
              fastemit_lambda: float = 0.001, reduction: str = "mean",
              name: Optional[str] = None) -> Any:
    """RNN-T loss of log-probabilities input [B, Tmax, Umax + 1, V] against padded labels
    [B, Umax]: 'none' gives [B], 'sum' their sum, 'mean' their sum divided by B (Paddle's
    definition). fastemit_lambda scales the gradient of label emissions (FastEmit), not the loss."""
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"rnnt_loss: reduction must be one of ('none', 'mean', 'sum'), got "
                         f"{reduction!r}")
    x = as_tensor(input)
    if not x.dtype.is_floating or len(known_dims(x)) != 4:
        raise ValueError(f"rnnt_loss: input must be a 4-D float tensor [B, Tmax, Umax + 1, V], "
                         f"got {dtype_name(x.dtype)}{known_dims(x)}")
    lab = as_tensor(label)
    if lab.dtype.is_floating or len(known_dims(lab)) != 2:
        raise ValueError(f"rnnt_loss: label must be a 2-D int tensor [B, Umax], got "
                         f"{dtype_name(lab.dtype)}{known_dims(lab)}")
    states, n_labels, vocab = known_dims(x)[2], known_dims(lab)[1], known_dims(x)[3]
    if states >= 0 and n_labels >= 0 and states != n_labels + 1:
        raise ValueError(f"rnnt_loss: input's dim 2 must be label's dim 1 + 1 (Umax + 1), got "
                         f"{states} and {n_labels}")
    if vocab >= 0 and not 0 <= int(blank) < vocab:
        raise ValueError(f"rnnt_loss: blank must be in [0, {vocab}), got {blank}")
    loss = apply("rnnt_loss", [x, lab, as_tensor(input_lengths), as_tensor(label_lengths)],
                 {"blank": int(blank), "fastemit_lambda": float(fastemit_lambda)})
    if reduction == "sum":
        return ops.sum(loss)
    if reduction == "mean":
        return ops.sum(loss) / cast(ops.shape(loss)[0], loss.dtype)
    return loss
