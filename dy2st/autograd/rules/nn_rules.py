"""Gradient rules of the core nn ops (activations, softmax, linear)."""
from __future__ import annotations

from ...runtime import ops
from . import register_vjp
from .util import unbroadcast


@register_vjp("relu", saves=())
def _relu(ctx, g):
    return (g * ops.cast(ctx.outputs[0] > 0, g.dtype),)


@register_vjp("softmax", saves=())
def _softmax(ctx, g):
    out, axis = ctx.outputs[0], ctx.attrs["axis"]
    return ((g - ops.sum(g * out, axis=axis, keepdim=True)) * out,)


@register_vjp("log_softmax", saves=())
def _log_softmax(ctx, g):
    out, axis = ctx.outputs[0], ctx.attrs["axis"]
    return (g - ops.exp(out) * ops.sum(g, axis=axis, keepdim=True),)


@register_vjp("linear")
def _linear(ctx, g):
    x, w = ctx.inputs[0], ctx.inputs[1]
    gx = ops.matmul(g, w, False, True) if ctx.needs[0] else None
    gw = None
    if ctx.needs[1]:
        # all leading dims of x are batch dims: fold them into one contraction
        k, n = x.shape[-1], g.shape[-1]
        gw = ops.matmul(ops.reshape(x, [-1, k]), ops.reshape(g, [-1, n]), True, False)
    grads = [gx, gw]
    if len(ctx.inputs) == 3:
        grads.append(unbroadcast(g, ctx.inputs[2]) if ctx.needs[2] else None)
    return tuple(grads)
