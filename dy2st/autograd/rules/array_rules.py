"""Gradient rules of the tensor-array ops: the gradient of an array is an array of its items'
gradients (runtime/ops/grad_kernels.py), where a missing item stands for zeros."""
from __future__ import annotations

from ...runtime.registry import apply
from . import mark_no_grad, register_vjp


@register_vjp("array_write", saves=())
def _array_write(ctx, g):
    array, i, x = ctx.inputs
    gx = apply("array_grad_read", [g, i, x]) if ctx.needs[2] else None
    ga = apply("array_grad_clear", [g, i]) if ctx.needs[0] else None
    return ga, None, gx


@register_vjp("array_read", saves=())
def _array_read(ctx, g):
    return apply("array_grad_put", [ctx.inputs[1], g]), None


@register_vjp("array_stack", saves=())
def _array_stack(ctx, g):
    return (apply("array_grad_unstack", [g], {"axis": ctx.attrs["axis"]}),)


@register_vjp("array_concat")
def _array_concat(ctx, g):
    return (apply("array_grad_split", [g, ctx.inputs[0]], {"axis": ctx.attrs["axis"]}),)


mark_no_grad("array_length", "array_grad_read", "array_grad_clear", "array_grad_put",
             "array_grad_add", "array_grad_unstack", "array_grad_split")
