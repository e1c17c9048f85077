"""Gradient rules of the core nn ops: relu, softmax, linear, embedding, dropout, pad (and
of the gradient kernels they use, so second derivatives work)."""
from __future__ import annotations

from ...runtime import ops
from ...runtime.registry import apply
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


# ----------------------------------------------------------------------------- embedding, dropout, pad
@register_vjp("embedding", saves=(0,))
def _embedding(ctx, g):
    ids, w = ctx.inputs
    return None, apply("embedding_grad", [ids, w, g], {"padding_idx": ctx.attrs["padding_idx"]})


@register_vjp("embedding_grad", saves=(0,))
def _embedding_grad(ctx, u):
    ids = ctx.inputs[0]
    return None, None, apply("embedding", [ids, u], {"padding_idx": ctx.attrs["padding_idx"]})


@register_vjp("dropout", saves=())
def _dropout(ctx, g, g_mask):
    keep = ops.cast(ctx.outputs[1], g.dtype)
    if ctx.attrs["upscale"]:
        keep = keep * (1.0 / (1.0 - ctx.attrs["p"]))
    return (g * keep,)


@register_vjp("pad", saves=())
def _pad(ctx, g):
    return (apply("pad_grad", [ctx.inputs[0], g], dict(ctx.attrs)),)


@register_vjp("pad_grad", saves=())
def _pad_grad(ctx, u):
    # the adjoint of pad_grad is pad with zeros (whatever constant the forward pad used)
    return None, apply("pad", [u], dict(ctx.attrs, value=0.0))
