"""Gradient rules of the elementwise math ops (runtime/ops/math.py)."""
from __future__ import annotations

from ...runtime import ops
from . import mark_no_grad, register_vjp
from .util import unbroadcast


@register_vjp("add", saves=())
def _add(ctx, g):
    x, y = ctx.inputs
    return unbroadcast(g, x), unbroadcast(g, y)


@register_vjp("subtract", saves=())
def _subtract(ctx, g):
    x, y = ctx.inputs
    return unbroadcast(g, x), unbroadcast(ops.neg(g), y) if ctx.needs[1] else None


@register_vjp("multiply")
def _multiply(ctx, g):
    x, y = ctx.inputs
    return (unbroadcast(g * y, x) if ctx.needs[0] else None,
            unbroadcast(g * x, y) if ctx.needs[1] else None)


@register_vjp("divide")
def _divide(ctx, g):
    x, y = ctx.inputs
    gx = g / y
    gy = unbroadcast(ops.neg(gx) * ctx.outputs[0], y) if ctx.needs[1] else None
    return unbroadcast(gx, x) if ctx.needs[0] else None, gy


@register_vjp("pow")
def _pow(ctx, g):
    x, y = ctx.inputs
    out = ctx.outputs[0]
    gx = unbroadcast(g * y * ops.pow(x, y - 1), x) if ctx.needs[0] else None
    # d/dy x**y = x**y log x, taken as 0 where x == 0 (the limit for y > 0)
    gy = None
    if ctx.needs[1]:
        safe = ops.where(x > 0, x, ops.ones_like(x))
        gy = unbroadcast(g * out * ops.log(safe), y)
    return gx, gy


@register_vjp("maximum", "minimum")
def _max_min(ctx, g):
    x, y = ctx.inputs
    # ties split the gradient evenly, as Paddle does
    pick_x = (x > y) if ctx.op_type == "maximum" else (x < y)
    tie = ops.cast(x == y, g.dtype) * 0.5
    wx = ops.cast(pick_x, g.dtype) + tie
    return (unbroadcast(g * wx, x) if ctx.needs[0] else None,
            unbroadcast(g * (1.0 - wx), y) if ctx.needs[1] else None)


@register_vjp("neg", saves=())
def _neg(ctx, g):
    return (ops.neg(g),)


@register_vjp("exp", saves=())
def _exp(ctx, g):
    return (g * ctx.outputs[0],)


@register_vjp("log")
def _log(ctx, g):
    return (g / ctx.inputs[0],)


@register_vjp("log2")
def _log2(ctx, g):
    return (g / (ctx.inputs[0] * 0.6931471805599453),)


@register_vjp("log10")
def _log10(ctx, g):
    return (g / (ctx.inputs[0] * 2.302585092994046),)


@register_vjp("log1p")
def _log1p(ctx, g):
    return (g / (ctx.inputs[0] + 1.0),)


@register_vjp("sqrt", saves=())
def _sqrt(ctx, g):
    return (g * 0.5 / ctx.outputs[0],)


@register_vjp("rsqrt", saves=())
def _rsqrt(ctx, g):
    out = ctx.outputs[0]
    return (g * -0.5 * out * out * out,)


@register_vjp("square")
def _square(ctx, g):
    return (g * 2.0 * ctx.inputs[0],)


@register_vjp("reciprocal", saves=())
def _reciprocal(ctx, g):
    out = ctx.outputs[0]
    return (ops.neg(g) * out * out,)


@register_vjp("abs")
def _abs(ctx, g):
    x = ctx.inputs[0]
    if x.dtype.is_complex:
        # g * z / |z| (0 at z = 0), written without sign(), whose rule is 0, so that second
        # derivatives see that z / |z| varies
        out = ctx.outputs[0]
        return (g / ops.where(out == 0, ops.ones_like(out), out) * x,)
    return (g * ops.sign(x),)


@register_vjp("sin")
def _sin(ctx, g):
    return (g * ops.cos(ctx.inputs[0]),)


@register_vjp("cos")
def _cos(ctx, g):
    return (ops.neg(g) * ops.sin(ctx.inputs[0]),)


@register_vjp("tan", saves=())
def _tan(ctx, g):
    out = ctx.outputs[0]
    return (g * (1.0 + out * out),)


@register_vjp("tanh", saves=())
def _tanh(ctx, g):
    out = ctx.outputs[0]
    return (g * (1.0 - out * out),)


@register_vjp("sinh")
def _sinh(ctx, g):
    return (g * ops.cosh(ctx.inputs[0]),)


@register_vjp("cosh")
def _cosh(ctx, g):
    return (g * ops.sinh(ctx.inputs[0]),)


@register_vjp("asin")
def _asin(ctx, g):
    x = ctx.inputs[0]
    return (g * ops.rsqrt(1.0 - x * x),)


@register_vjp("acos")
def _acos(ctx, g):
    x = ctx.inputs[0]
    return (ops.neg(g) * ops.rsqrt(1.0 - x * x),)


@register_vjp("atan")
def _atan(ctx, g):
    x = ctx.inputs[0]
    return (g / (1.0 + x * x),)


@register_vjp("sigmoid", saves=())
def _sigmoid(ctx, g):
    out = ctx.outputs[0]
    return (g * out * (1.0 - out),)


@register_vjp("erf")
def _erf(ctx, g):
    x = ctx.inputs[0]
    return (g * 1.1283791670955126 * ops.exp(ops.neg(x * x)),)


@register_vjp("floor", "ceil", "round", "sign", saves=())
def _piecewise_constant(ctx, g):
    return (ops.zeros_like(g),)


@register_vjp("scale", saves=())
def _scale(ctx, g):
    return (ops.scale(g, ctx.attrs["scale"]),)


@register_vjp("clip")
def _clip(ctx, g):
    x = ctx.inputs[0]
    lo, hi = ctx.attrs["min"], ctx.attrs["max"]
    inside = ops.ones_like(x) if lo is None else ops.cast(x >= lo, g.dtype)
    if hi is not None:
        inside = inside * ops.cast(x <= hi, g.dtype)
    return (g * inside,)


@register_vjp("remainder")
def _remainder(ctx, g):
    x, y = ctx.inputs
    gy = None
    if ctx.needs[1]:
        gy = unbroadcast(ops.neg(g) * ops.floor(x / y), y)
    return unbroadcast(g, x) if ctx.needs[0] else None, gy


mark_no_grad("equal", "not_equal", "less_than", "less_equal", "greater_than", "greater_equal",
             "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_and",
             "bitwise_or", "bitwise_xor", "bitwise_not", "isnan", "isinf", "isfinite",
             "floor_divide", "increment")
