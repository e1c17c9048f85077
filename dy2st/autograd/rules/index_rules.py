"""Gradient rules of the index-driven ops: gather / index_select, gather_nd, scatter,
take_along_axis, put_along_axis, where, masked_select, sort and topk, and of the scatter-add
kernels their gradients use (so second derivatives work)."""
from __future__ import annotations

from ...runtime import ops
from ...runtime.registry import apply
from . import GradientError, mark_no_grad, register_vjp
from .util import shape_of, unbroadcast


@register_vjp("getitem_grad", saves=(0,))
def _getitem_grad(ctx, u):
    x, g, *tensors = ctx.inputs
    picked = apply("getitem", [u, *tensors], {"items": ctx.attrs["items"]})
    return (None, picked) + (None,) * len(tensors)


@register_vjp("gather", saves=(1,))
def _gather(ctx, g):
    x, index = ctx.inputs
    return apply("gather_grad", [x, index, g], {"axis": ctx.attrs["axis"]}), None


@register_vjp("gather_grad", saves=(1,))
def _gather_grad(ctx, u):
    index = ctx.inputs[1]
    return None, None, apply("gather", [u, index], {"axis": ctx.attrs["axis"]})


@register_vjp("gather_nd", saves=(1,))
def _gather_nd(ctx, g):
    x, index = ctx.inputs
    return apply("gather_nd_grad", [x, index, g]), None


@register_vjp("gather_nd_grad", saves=(1,))
def _gather_nd_grad(ctx, u):
    return None, None, apply("gather_nd", [u, ctx.inputs[1]])


@register_vjp("scatter", saves=(1, 2))
def _scatter(ctx, g):
    x, index, updates = ctx.inputs
    gx = gu = None
    if ctx.needs[0]:
        # both modes replace the target rows: no gradient reaches x there
        gx = apply("scatter", [g, index, ops.zeros_like(updates)], {"overwrite": True})
    if ctx.needs[2]:
        gu = apply("gather", [g, index], {"axis": 0})
        if ctx.attrs["overwrite"]:
            # of repeated rows only the last update is kept; the others get no gradient
            keep = ops.cast(apply("scatter_winners", [index]), g.dtype)
            nd = len(shape_of(updates))
            if nd > 1 and len(shape_of(index)) == 1:
                keep = ops.reshape(keep, [-1] + [1] * (nd - 1))
            gu = gu * keep
        gu = ops.reshape(gu, updates.shape) if shape_of(gu) != shape_of(updates) else gu
    return gx, None, gu


@register_vjp("take_along_axis", saves=(1,))
def _take_along_axis(ctx, g):
    arr, indices = ctx.inputs
    ga = apply("put_along_axis", [ops.zeros_like(arr), indices, g],
               {"axis": ctx.attrs["axis"], "reduce": "add", "include_self": True})
    return ga, None


def _touched(arr, indices, values, axis):
    """Where put_along_axis writes (bool, arr's shape)."""
    hit = apply("put_along_axis", [ops.zeros_like(arr), indices, ops.ones_like(values)],
                {"axis": axis, "reduce": "assign", "include_self": True})
    return hit > 0


@register_vjp("put_along_axis")
def _put_along_axis(ctx, g):
    arr, indices, values = ctx.inputs
    axis, reduce, include_self = ctx.attrs["axis"], ctx.attrs["reduce"], ctx.attrs["include_self"]
    along = {"axis": axis}
    out = ctx.outputs[0]
    zero_at = {"axis": axis, "reduce": "assign", "include_self": True}
    if reduce == "assign" or (reduce == "add" and not include_self):
        g_arr = apply("put_along_axis", [g, indices, ops.zeros_like(values)], zero_at)
        g_val = apply("take_along_axis", [g, indices], along)
    elif reduce == "add":
        g_arr = g
        g_val = apply("take_along_axis", [g, indices], along)
    elif reduce in ("mul", "multiply"):
        # out = arr (with include_self) times the product of the values put at each position
        touched = _touched(arr, indices, values, axis)
        g_out = g * out
        if include_self:
            safe = ops.where(arr == 0, ops.ones_like(arr), arr)
            g_arr = ops.where(touched, g_out / safe, g)
        else:
            g_arr = ops.where(touched, ops.zeros_like(g), g)
        g_val = apply("take_along_axis", [g_out, indices], along) / values
    elif reduce == "mean":
        touched = _touched(arr, indices, values, axis)
        count = apply("put_along_axis", [ops.ones_like(arr) if include_self else ops.zeros_like(arr),
                                         indices, ops.ones_like(values)],
                      {"axis": axis, "reduce": "add", "include_self": True})
        share = g / ops.maximum(count, ops.ones_like(count))
        g_arr = ops.where(touched, share if include_self else ops.zeros_like(g), g)
        g_val = apply("take_along_axis", [share, indices], along)
    else:
        raise GradientError(f"put_along_axis(reduce={reduce!r}) has no gradient; use "
                                "reduce='assign', 'add', 'mul' or 'mean'")
    return (g_arr if ctx.needs[0] else None, None,
            unbroadcast(g_val, values) if ctx.needs[2] else None)


@register_vjp("where", saves=(0,))
def _where(ctx, g):
    cond, x, y = ctx.inputs
    zero = ops.zeros_like(g)
    return (None,
            unbroadcast(ops.where(cond, g, zero), x) if ctx.needs[1] else None,
            unbroadcast(ops.where(cond, zero, g), y) if ctx.needs[2] else None)


@register_vjp("masked_select", saves=(1,))
def _masked_select(ctx, g):
    x, mask = ctx.inputs
    return unbroadcast(apply("masked_select_grad", [x, mask, g]), x), None


@register_vjp("masked_select_grad", saves=(1,))
def _masked_select_grad(ctx, u):
    mask = ctx.inputs[1]
    return None, None, apply("masked_select", [u, mask])


@register_vjp("sort")
def _sort(ctx, g):
    x = ctx.inputs[0]
    if not shape_of(x):
        return (g,)
    order = apply("argsort", [x], dict(ctx.attrs))
    return (apply("put_along_axis", [ops.zeros_like(x), order, g],
                  {"axis": ctx.attrs["axis"], "reduce": "add", "include_self": True}),)


@register_vjp("topk", saves=())
def _topk(ctx, g, g_idx):
    x = ctx.inputs[0]
    idx = ctx.outputs[1]
    gx = apply("put_along_axis", [ops.zeros_like(x), idx, g],
               {"axis": ctx.attrs["axis"], "reduce": "add", "include_self": True})
    return (gx,) + (None,) * (len(ctx.inputs) - 1)


mark_no_grad("scatter_winners")
