"""Gradient rules of the scans and statistical reductions: cumsum, cumprod, logsumexp, var,
std and norm."""
from __future__ import annotations

from ...runtime import ops
from ...runtime.registry import apply
from . import GradientError, register_vjp
from .reduce_rules import reduced_count
from .util import float_like, restore_reduced, shape_of


def _flat_or_along(x, axis):
    """The array a scan runs over (x flattened when axis is None) and the axis it runs along."""
    return (ops.reshape(x, [-1]), 0) if axis is None else (x, axis)


@register_vjp("cumsum", saves=())
def _cumsum(ctx, g):
    x = ctx.inputs[0]
    if not x.dtype.is_floating:
        return (None,)
    _, axis = _flat_or_along(x, ctx.attrs["axis"])
    # the gradient of a running sum is the running sum from the other end
    rev = apply("flip", [g], {"axis": [axis]})
    rev = apply("cumsum", [rev], {"axis": axis, "dtype": None})
    gx = float_like(apply("flip", [rev], {"axis": [axis]}), x)    # (dtype= may widen)
    return (ops.reshape(gx, x.shape) if ctx.attrs["axis"] is None else gx,)


@register_vjp("cumprod")
def _cumprod(ctx, g):
    x = ctx.inputs[0]
    if not x.dtype.is_floating:
        return (None,)
    flat, axis = _flat_or_along(x, ctx.attrs["axis"])
    gx = float_like(apply("cumprod_grad", [ops.cast(flat, g.dtype), g], {"axis": axis}), x)
    return (ops.reshape(gx, x.shape) if ctx.attrs["axis"] is None else gx,)


@register_vjp("cumprod_grad")
def _cumprod_grad(ctx, u):
    raise GradientError("the second derivative of cumprod is not supported; compute it with "
                        "create_graph=False")


@register_vjp("logsumexp")
def _logsumexp(ctx, g):
    x, out = ctx.inputs[0], ctx.outputs[0]
    axis, keepdim = ctx.attrs["axis"], ctx.attrs["keepdim"]
    return (restore_reduced(g, x, axis, keepdim) * ops.exp(x - restore_reduced(out, x, axis,
                                                                                keepdim)),)


def _centered_over(ctx):
    x = ctx.inputs[0]
    axis = ctx.attrs["axis"]
    mean = ops.mean(x, axis=axis, keepdim=True)
    dof = reduced_count(x, ctx.outputs[0]) - (1 if ctx.attrs["unbiased"] else 0)
    return x - mean, dof


@register_vjp("var")
def _var(ctx, g):
    x = ctx.inputs[0]
    centered, dof = _centered_over(ctx)
    return (restore_reduced(g, x, ctx.attrs["axis"], ctx.attrs["keepdim"]) * centered
            * (2.0 / dof),)


@register_vjp("std")
def _std(ctx, g):
    x, out = ctx.inputs[0], ctx.outputs[0]
    centered, dof = _centered_over(ctx)
    safe = ops.where(out == 0, ops.ones_like(out), out)
    per = ops.where(out == 0, ops.zeros_like(g), g / safe)
    return (restore_reduced(per, x, ctx.attrs["axis"], ctx.attrs["keepdim"]) * centered
            * (1.0 / dof),)


@register_vjp("norm")
def _norm(ctx, g):
    x, out = ctx.inputs[0], ctx.outputs[0]
    p, axis, keepdim = ctx.attrs["p"], ctx.attrs["axis"], ctx.attrs["keepdim"]
    if isinstance(axis, (list, tuple)) and len(axis) == 2 and p not in (None, "fro"):
        raise GradientError(f"norm: the gradient of the matrix norm p={p!r} is not supported "
                            "(only 'fro')")
    if axis is None and keepdim:
        axis = list(range(len(shape_of(x))))
    if p in (None, "fro"):
        p = 2.0
    g_full = restore_reduced(g, x, axis, keepdim)
    n_full = restore_reduced(out, x, axis, keepdim)
    if p in ("inf", "-inf"):
        hit = ops.cast(ops.abs(x) == n_full, x.dtype)
        return (g_full * ops.sign(x) * hit,)
    if p == 0:
        return (ops.zeros_like(x),)
    safe = ops.where(n_full == 0, ops.ones_like(n_full), n_full)
    if p == 2.0:
        return (ops.where(n_full == 0, ops.zeros_like(x), g_full * x / safe),)
    scaled = ops.pow(ops.abs(x) / safe, p - 1.0)
    return (ops.where(n_full == 0, ops.zeros_like(x), g_full * ops.sign(x) * scaled),)


@register_vjp("linspace", saves=(2,))
def _linspace(ctx, g):
    start, stop, num = ctx.inputs
    unit = apply("linspace", [ops.zeros_like(start), ops.ones_like(stop), num], dict(ctx.attrs))
    unit = ops.cast(unit, g.dtype)
    g_start = ops.cast(ops.sum(g * (1.0 - unit)), start.dtype) if ctx.needs[0] else None
    g_stop = ops.cast(ops.sum(g * unit), stop.dtype) if ctx.needs[1] else None
    return (None if g_start is None else ops.reshape(g_start, start.shape),
            None if g_stop is None else ops.reshape(g_stop, stop.shape), None)
