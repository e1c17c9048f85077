"""Gradient rules of the shape, indexing and linear-algebra ops."""
from __future__ import annotations

from ...runtime import ops
from ...runtime.registry import apply
from . import mark_no_grad, register_vjp
from .util import shape_of, unbroadcast


def _back_to(g, x):
    return ops.reshape(g, x.shape)


@register_vjp("reshape", "flatten", "squeeze", "unsqueeze", saves=())
def _reshape(ctx, g):
    x = ctx.inputs[0]
    return (_back_to(g, x),) + (None,) * (len(ctx.inputs) - 1)


@register_vjp("transpose", saves=())
def _transpose(ctx, g):
    perm = ctx.attrs["perm"]
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    return (ops.transpose(g, inverse),)


@register_vjp("expand", saves=())
def _expand(ctx, g):
    return (unbroadcast(g, ctx.inputs[0]),) + (None,) * (len(ctx.inputs) - 1)


@register_vjp("assign", saves=())
def _assign(ctx, g):
    return (g,)


mark_no_grad("detach")     # a copy that gradients do not flow through


@register_vjp("no_grad_update", saves=())
def _no_grad_update(ctx, g):
    return (None, g)        # the change itself was made under no_grad


@register_vjp("cast", saves=())
def _cast(ctx, g):
    x = ctx.inputs[0]
    if x.dtype.is_inexact:
        return (ops.cast(g, x.dtype),)
    return (None,)


@register_vjp("concat", saves=())
def _concat(ctx, g):
    axis = ctx.attrs["axis"]
    out, start = [], 0
    dynamic = None
    for x, need in zip(ctx.inputs, ctx.needs):
        n = shape_of(x)[axis]
        if n < 0 or dynamic is not None:
            dynamic = start if dynamic is None else dynamic
            size = ops.shape(x)[axis]
            end = dynamic + size
            piece = ops.slice(g, [axis], [dynamic], [end]) if need else None
            dynamic = end
        else:
            piece = ops.slice(g, [axis], [start], [start + n]) if need else None
            start += n
        out.append(piece)
    return tuple(out)


@register_vjp("stack", saves=())
def _stack(ctx, g):
    axis = ctx.attrs["axis"]
    n = len(ctx.inputs)
    return tuple(ops.squeeze(ops.slice(g, [axis], [i], [i + 1]), [axis]) if need else None
                 for i, need in zip(range(n), ctx.needs))


@register_vjp("getitem", saves=())
def _getitem(ctx, g):
    x, *tensors = ctx.inputs
    gx = apply("getitem_grad", [x, g, *tensors], {"items": ctx.attrs["items"]})
    return (gx,) + (None,) * len(tensors)


@register_vjp("setitem", saves=())
def _setitem(ctx, g):
    x, value, *tensors = ctx.inputs
    items = ctx.attrs["items"]
    gx = gv = None
    if ctx.needs[0]:
        gx = apply("setitem", [g, ops.zeros([], g.dtype), *tensors], {"items": items})
    if ctx.needs[1]:
        picked = apply("getitem", [g, *tensors], {"items": items})
        gv = unbroadcast(picked, value)
    return (gx, gv) + (None,) * len(tensors)


@register_vjp("matmul")
def _matmul(ctx, g):
    x, y = ctx.inputs
    tx, ty = ctx.attrs["transpose_x"], ctx.attrs["transpose_y"]
    xs, ys = shape_of(x), shape_of(y)
    x2 = ops.unsqueeze(x, 0) if len(xs) == 1 else x
    y2 = ops.unsqueeze(y, -1) if len(ys) == 1 else y
    tx, ty = tx and len(xs) > 1, ty and len(ys) > 1
    g2 = g
    if len(xs) == 1:
        g2 = ops.unsqueeze(g2, -2)
    if len(ys) == 1:
        g2 = ops.unsqueeze(g2, -1)
    gx = gy = None
    if ctx.needs[0]:
        gx = ops.matmul(y2, g2, ty, True) if tx else ops.matmul(g2, y2, False, not ty)
        gx = unbroadcast(gx, x2)
        if len(xs) == 1:
            gx = ops.reshape(gx, [-1])
    if ctx.needs[1]:
        gy = ops.matmul(g2, x2, True, tx) if ty else ops.matmul(x2, g2, not tx, False)
        gy = unbroadcast(gy, y2)
        if len(ys) == 1:
            gy = ops.reshape(gy, [-1])
    return gx, gy


mark_no_grad("shape", "numel", "full", "fill", "full_like", "arange", "full_range", "eye",
             "create_array", "assert", "print", "raise", "check_defined", "nonzero",
             "argsort", "one_hot", "randint", "gaussian_random", "uniform_random", "equal_all",
             "allclose", "isclose", "unique")

mark_no_grad("grad_clear", "grad_accumulate", "grad_present")
# collectives are not differentiated (as in Paddle's eager mode): DataParallel reduces the
# gradients themselves, after backward
mark_no_grad("c_allreduce", "c_allgather", "c_broadcast", "c_reducescatter", "c_alltoall")
