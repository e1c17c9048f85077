"""Gradient rules of the slicing, splitting and rearranging ops: split, unbind, strided_slice,
flip, roll, tile, tril / triu, diag (and the kernels writing a piece back into x's shape)."""
from __future__ import annotations

from ...runtime.registry import apply
from . import register_vjp
from .util import shape_of


@register_vjp("split", saves=())
def _split(ctx, g):
    return (apply("split_grad", [ctx.inputs[0], g], dict(ctx.attrs)),)


@register_vjp("split_grad", saves=())
def _split_grad(ctx, u):
    return None, apply("split", [u], dict(ctx.attrs))


@register_vjp("unbind", saves=())
def _unbind(ctx, g):
    return (apply("unbind_grad", [ctx.inputs[0], g], dict(ctx.attrs)),)


@register_vjp("unbind_grad", saves=())
def _unbind_grad(ctx, u):
    return None, apply("unbind", [u], dict(ctx.attrs))


@register_vjp("strided_slice", saves=())
def _strided_slice(ctx, g):
    x, *tensors = ctx.inputs
    gx = apply("strided_slice_grad", [x, g, *tensors], dict(ctx.attrs))
    return (gx,) + (None,) * len(tensors)


@register_vjp("strided_slice_grad", saves=())
def _strided_slice_grad(ctx, u):
    x, g, *tensors = ctx.inputs
    return (None, apply("strided_slice", [u, *tensors], dict(ctx.attrs))) + (None,) * len(tensors)


@register_vjp("flip", saves=())
def _flip(ctx, g):
    return (apply("flip", [g], dict(ctx.attrs)),)


@register_vjp("roll", saves=())
def _roll(ctx, g):
    shifts = [-s for s in ctx.attrs["shifts"]]
    return (apply("roll", [g], {"shifts": shifts, "axis": ctx.attrs["axis"]}),)


@register_vjp("tile", saves=())
def _tile(ctx, g):
    x, *dims = ctx.inputs
    return (apply("tile_grad", [x, g, *dims], dict(ctx.attrs)),) + (None,) * len(dims)


@register_vjp("tile_grad", saves=())
def _tile_grad(ctx, u):
    x, g, *dims = ctx.inputs
    return (None, apply("tile", [u, *dims], dict(ctx.attrs))) + (None,) * len(dims)


@register_vjp("tril", "triu", saves=())
def _triangle(ctx, g):
    return (apply(ctx.op_type, [g], dict(ctx.attrs)),)


@register_vjp("diag", saves=())
def _diag(ctx, g):
    x = ctx.inputs[0]
    offset = ctx.attrs["offset"]
    if len(shape_of(x)) == 1:           # x became a diagonal: read it back
        return (apply("diag", [g], {"offset": offset, "padding_value": 0}),)
    return (apply("diag_grad", [x, g], {"offset": offset}),)


@register_vjp("diag_grad", saves=())
def _diag_grad(ctx, u):
    return None, apply("diag", [u], {"offset": ctx.attrs["offset"], "padding_value": 0})
