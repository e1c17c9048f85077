"""Gradient rules of the fused losses: cross_entropy (hard or soft labels, ignore_index, class
weights, label smoothing; inputs as logits, probabilities or log-probabilities) and smooth_l1."""
from __future__ import annotations

from ...runtime import ops
from ...runtime.registry import apply
from . import mark_no_grad, register_vjp
from .util import shape_of, unbroadcast


def _along(v, axis: int, ndim: int):
    """A per-class vector [C] shaped to broadcast along `axis` of a rank-ndim tensor."""
    shape = [1] * ndim
    shape[axis] = -1
    return ops.reshape(v, shape)


@register_vjp("cross_entropy")
def _cross_entropy(ctx, g_loss, g_w):
    x, label = ctx.inputs[0], ctx.inputs[1]
    weight = ctx.inputs[2] if len(ctx.inputs) > 2 else None
    a = ctx.attrs
    axis, kind, smoothing = a["axis"], a["input_kind"], a["smoothing"]
    nd = len(shape_of(x))
    if a["soft_label"]:
        target = ops.cast(label, x.dtype)
        if smoothing:
            n = shape_of(x)[axis]
            n = n if n >= 0 else ops.cast(ops.shape(x)[axis], x.dtype)
            target = target * (1.0 - smoothing) + smoothing / n
    else:
        target = apply("hard_label_target", [x, label], {
            "axis": axis, "ignore_index": a["ignore_index"], "smoothing": smoothing})
    w = ctx.outputs[1]                   # the per-sample weight (1, or the label's class weight)
    if kind == "logits":
        logp = apply("log_softmax", [x], {"axis": axis})
    elif kind == "probs":
        logp = ops.log(x)
    else:
        logp = x
    coef = g_loss * w                    # d loss_i / d (unweighted loss_i) times the cotangent
    gx = None
    if ctx.needs[0]:
        if kind == "logits":
            gx = coef * (ops.sum(target, axis=axis, keepdim=True) * ops.exp(logp) - target)
        elif kind == "probs":
            gx = ops.neg(coef) * target / x
        else:
            gx = ops.neg(coef) * target
    unweighted = ops.neg(ops.sum(target * logp, axis=axis, keepdim=True))
    g_label = None
    if ctx.needs[1] and a["soft_label"]:
        per_class = ops.neg(coef) * logp
        if weight is not None:
            per_class = per_class + (g_loss * unweighted + g_w) * _along(weight, axis, nd)
        g_label = per_class * (1.0 - smoothing) if smoothing else per_class
    grads = [gx, g_label]
    if weight is not None:
        g_weight = None
        if ctx.needs[2]:
            # w_i = sum_c target_ic * weight_c (times valid_i, already in target)
            per = (g_loss * unweighted + g_w) * target
            others = [i for i in range(nd) if i != axis]
            g_weight = ops.reshape(ops.sum(per, axis=others) if others else per, [-1])
        grads.append(g_weight)
    return tuple(grads)


@register_vjp("smooth_l1")
def _smooth_l1(ctx, g):
    x, y = ctx.inputs
    delta = ctx.attrs["delta"]
    d = x - y
    slope = ops.where(ops.abs(d) < delta, d, ops.sign(d) * delta)
    gd = g * slope
    return (unbroadcast(gd, x) if ctx.needs[0] else None,
            unbroadcast(ops.neg(gd), y) if ctx.needs[1] else None)


mark_no_grad("hard_label_target")
