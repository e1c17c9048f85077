"""Gradient rules of the normalisations: layer_norm, batch_norm (with batch_norm_stats when
training, sync_batch_norm_stats in SyncBatchNorm), and normalize (Lp)."""
from __future__ import annotations

from ...runtime import ops
from ...runtime.registry import apply
from . import register_vjp
from .util import shape_of


def _per_channel(v, axis: int, ndim: int):
    shape = [1] * ndim
    shape[axis] = -1
    return ops.reshape(v, shape)


def _sum_except(t, axis: int, ndim: int):
    return ops.sum(t, axis=[i for i in range(ndim) if i != axis])


@register_vjp("layer_norm")
def _layer_norm(ctx, g):
    x, *affine = ctx.inputs
    a = ctx.attrs
    nd = len(shape_of(x))
    axes = list(range(a["begin_axis"], nd))
    lead = list(range(a["begin_axis"]))
    tail = list(x.shape[a["begin_axis"]:])        # ints, or scalar Variables where unknown
    mean = ops.mean(x, axis=axes, keepdim=True)
    centered = x - mean
    rstd = ops.rsqrt(ops.mean(centered * centered, axis=axes, keepdim=True) + a["epsilon"])
    xhat = centered * rstd
    rest = list(affine)
    weight = rest.pop(0) if a["has_weight"] else None
    gxhat = g * ops.reshape(weight, tail) if weight is not None else g
    grads = [None]
    if ctx.needs[0]:
        grads[0] = rstd * (gxhat - ops.mean(gxhat, axis=axes, keepdim=True)
                           - xhat * ops.mean(gxhat * xhat, axis=axes, keepdim=True))

    def fold(t, like):
        return ops.reshape(ops.sum(t, axis=lead) if lead else t, like.shape)

    k = 1
    if weight is not None:
        grads.append(fold(g * xhat, weight) if ctx.needs[k] else None)
        k += 1
    if a["has_bias"]:
        grads.append(fold(g, affine[-1]) if ctx.needs[k] else None)
    return tuple(grads)


@register_vjp("batch_norm")
def _batch_norm(ctx, g):
    x, mean, var, *affine = ctx.inputs
    a = ctx.attrs
    axis, nd = a["axis"], len(shape_of(x))
    rstd = ops.rsqrt(var + a["epsilon"])
    weight = affine[0] if a["has_weight"] else None
    scale = rstd * weight if weight is not None else rstd
    gs = g * _per_channel(scale, axis, nd)                   # d out / d x, times g
    centered = x - _per_channel(mean, axis, nd)
    g_mean = ops.neg(_sum_except(gs, axis, nd)) if ctx.needs[1] else None
    g_var = None
    if ctx.needs[2]:
        g_var = _sum_except(gs * centered, axis, nd) * rstd * rstd * -0.5
    grads = [gs if ctx.needs[0] else None, g_mean, g_var]
    k = 3
    if weight is not None:
        grads.append(_sum_except(g * centered, axis, nd) * rstd if ctx.needs[k] else None)
        k += 1
    if a["has_bias"]:
        grads.append(_sum_except(g, axis, nd) if ctx.needs[k] else None)
    return tuple(grads)


@register_vjp("batch_norm_stats")
def _batch_norm_stats(ctx, g_mean, g_var):
    x = ctx.inputs[0]
    axis, nd = ctx.attrs["axis"], len(shape_of(x))
    mean = ctx.outputs[0]
    n = ops.cast(ops.numel(x), x.dtype) / ops.cast(ops.shape(x)[axis], x.dtype)
    centered = x - _per_channel(mean, axis, nd)
    # var = mean((x - mean)^2): the path through mean vanishes since sum(x - mean) = 0
    gx = (_per_channel(g_mean, axis, nd) + centered * _per_channel(g_var, axis, nd) * 2.0) / n
    return (gx,)


@register_vjp("sync_batch_norm_stats")
def _sync_batch_norm_stats(ctx, g_mean, g_var, g_count):
    x = ctx.inputs[0]
    axis, nd = ctx.attrs["axis"], len(shape_of(x))
    mean, _, count = ctx.outputs
    zero = ops.zeros_like(mean)
    g_mean = zero if g_mean is None else g_mean
    g_var = zero if g_var is None else g_var
    # every process's output depends on the statistics of every batch: the cotangents of the
    # mean and variance are summed over the job (one all-reduce of the two per-channel sums)
    both = apply("c_allreduce", [ops.concat([g_mean, g_var])], {"op": "sum"})
    g_mean, g_var = ops.split(both, 2)
    centered = x - _per_channel(mean, axis, nd)
    gx = (_per_channel(g_mean, axis, nd) + centered * _per_channel(g_var, axis, nd) * 2.0) / count
    return (gx,)


@register_vjp("normalize")
def _normalize(ctx, g):
    x = ctx.inputs[0]
    p, axis, eps = ctx.attrs["p"], ctx.attrs["axis"], ctx.attrs["epsilon"]
    abs_x = ops.abs(x)
    if p == 2:
        norm = ops.sqrt(ops.sum(x * x, axis=axis, keepdim=True))
        d_norm = x / ops.maximum(norm, ops.full_like(norm, 1e-300))
    elif p == float("inf"):
        norm = ops.max(abs_x, axis=axis, keepdim=True)
        d_norm = ops.sign(x) * ops.cast(abs_x == norm, x.dtype)
    else:
        norm = ops.pow(ops.sum(ops.pow(abs_x, p), axis=axis, keepdim=True), 1.0 / p)
        safe = ops.maximum(norm, ops.full_like(norm, 1e-300))
        d_norm = ops.sign(x) * ops.pow(abs_x / safe, p - 1.0)
    big = norm > eps
    denom = ops.maximum(norm, ops.full_like(norm, eps))
    gx = g / denom - d_norm * ops.cast(big, x.dtype) * ops.sum(g * x, axis=axis, keepdim=True) \
        / (denom * denom)
    return (gx,)
