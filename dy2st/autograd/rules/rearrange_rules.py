"""Gradient rules of the slicing, splitting and rearranging ops: split, unbind, strided_slice,
flip, roll, tile, tril / triu, diag (and the kernels writing a piece back into x's shape)."""
from __future__ import annotations

from ...runtime.registry import apply
from . import register_vjp
from .util import shape_of

# Each of these ops reads a piece of x (op(x, *bound_tensors)); its gradient kernel
# `<op>_grad(x, g, *bound_tensors)` writes g back where the piece came from, and the adjoint of
# that kernel is the op itself.
_PIECE_OPS = ("split", "unbind", "strided_slice", "tile")


@register_vjp(*_PIECE_OPS, saves=())
def _piece(ctx, g):
    x, *tensors = ctx.inputs
    gx = apply(ctx.op_type + "_grad", [x, g, *tensors], dict(ctx.attrs))
    return (gx,) + (None,) * len(tensors)


@register_vjp(*(op + "_grad" for op in _PIECE_OPS), saves=())
def _piece_grad(ctx, u):
    x, g, *tensors = ctx.inputs
    forward = ctx.op_type[:-len("_grad")]
    return (None, apply(forward, [u, *tensors], dict(ctx.attrs))) + (None,) * len(tensors)


@register_vjp("flip", saves=())
def _flip(ctx, g):
    return (apply("flip", [g], dict(ctx.attrs)),)


@register_vjp("roll", saves=())
def _roll(ctx, g):
    shifts = [-s for s in ctx.attrs["shifts"]]
    return (apply("roll", [g], {"shifts": shifts, "axis": ctx.attrs["axis"]}),)


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
