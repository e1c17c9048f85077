"""Gradient rules of the reductions (runtime/ops/reduce.py)."""
from __future__ import annotations

from ...runtime import ops
from . import mark_no_grad, register_vjp
from .util import restore_reduced, shape_of


def reduced_count(x, out):
    """How many input elements fed each output element, as a Python number when known."""
    xs, os_ = shape_of(x), shape_of(out)
    if -1 not in xs and -1 not in os_:
        n_in = 1
        for d in xs:
            n_in *= d
        n_out = 1
        for d in os_:
            n_out *= d
        return n_in / max(n_out, 1)
    return ops.cast(ops.numel(x), out.dtype) / ops.cast(ops.numel(out), out.dtype)


@register_vjp("sum", saves=())
def _sum(ctx, g):
    x = ctx.inputs[0]
    if x.dtype != g.dtype:
        g = ops.cast(g, x.dtype)
    return (restore_reduced(g, x, ctx.attrs["axis"], ctx.attrs["keepdim"]),)


@register_vjp("mean", saves=())
def _mean(ctx, g):
    x, out = ctx.inputs[0], ctx.outputs[0]
    g = g / reduced_count(x, out)
    return (restore_reduced(g, x, ctx.attrs["axis"], ctx.attrs["keepdim"]),)


@register_vjp("max", "min")
def _max_min(ctx, g):
    x, out = ctx.inputs[0], ctx.outputs[0]
    axis, keepdim = ctx.attrs["axis"], ctx.attrs["keepdim"]
    # every element equal to the extremum receives the gradient, as Paddle's kernel does
    mask = ops.cast(x == restore_reduced(out, x, axis, keepdim), g.dtype)
    return (restore_reduced(g, x, axis, keepdim) * mask,)


@register_vjp("prod")
def _prod(ctx, g):
    x, out = ctx.inputs[0], ctx.outputs[0]
    axis, keepdim = ctx.attrs["axis"], ctx.attrs["keepdim"]
    return (restore_reduced(g * out, x, axis, keepdim) / x,)


@register_vjp("reduce_as", saves=())
def _reduce_as(ctx, g):
    return ops.expand_as(g, ctx.inputs[0]), None


mark_no_grad("any", "all", "argmax", "argmin")
