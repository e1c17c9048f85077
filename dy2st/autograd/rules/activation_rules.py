"""Gradient rules of the activation functions (nn/functional/activation.py)."""
from __future__ import annotations

import math

from ...runtime import ops
from ...runtime.registry import apply
from . import register_vjp


def _mask(cond, g):
    return ops.cast(cond, g.dtype)


@register_vjp("relu6")
def _relu6(ctx, g):
    x = ctx.inputs[0]
    return (g * _mask(x > 0, g) * _mask(x < ctx.attrs["threshold"], g),)


@register_vjp("leaky_relu")
def _leaky_relu(ctx, g):
    x = ctx.inputs[0]
    # at 0 the slope is negative_slope, as Paddle's kernel takes it
    return (ops.where(x > 0, g, g * ctx.attrs["negative_slope"]),)


@register_vjp("hardtanh")
def _hardtanh(ctx, g):
    x = ctx.inputs[0]
    return (g * _mask(x > ctx.attrs["min"], g) * _mask(x < ctx.attrs["max"], g),)


@register_vjp("hardsigmoid")
def _hardsigmoid(ctx, g):
    x = ctx.inputs[0]
    slope = ctx.attrs["slope"]
    z = x * slope + ctx.attrs["offset"]
    return (g * slope * _mask(z > 0, g) * _mask(z < 1, g),)


@register_vjp("hardswish")
def _hardswish(ctx, g):
    x = ctx.inputs[0]
    # x * relu6(x + 3) / 6: slope (2x + 3) / 6 inside (-3, 3), 1 above, 0 below
    inside = g * (x * 2.0 + 3.0) / 6.0
    return (ops.where(x >= 3.0, g, ops.where(x > -3.0, inside, ops.zeros_like(g))),)


@register_vjp("elu")
def _elu(ctx, g):
    x, out = ctx.inputs[0], ctx.outputs[0]
    return (ops.where(x > 0, g, g * (out + ctx.attrs["alpha"])),)


@register_vjp("gelu")
def _gelu(ctx, g):
    return (apply("gelu_grad", [ctx.inputs[0], g], ctx.attrs),)


def _gelu_second(x, approximate):
    """gelu''(x), composed from ops (double gradients only)."""
    if approximate:
        # f = x (1 + tanh u) / 2, u = c (x + a x^3):
        # f'' = (1 - tanh^2 u) (u' - x tanh(u) u'^2 + x u'' / 2)
        c, a = math.sqrt(2.0 / math.pi), 0.044715
        t = ops.tanh((x + x * x * x * a) * c)
        du = (x * x * (3 * a) + 1.0) * c
        return (1.0 - t * t) * (du - x * t * du * du + x * x * (3 * a * c))
    # f = x Phi(x): f'' = phi(x) (2 - x^2)
    pdf = ops.exp(x * x * -0.5) * (1.0 / math.sqrt(2.0 * math.pi))
    return pdf * (2.0 - x * x)


@register_vjp("gelu_grad")
def _gelu_grad(ctx, gg):
    x, g = ctx.inputs
    approximate = ctx.attrs["approximate"]
    gx = gg * g * _gelu_second(x, approximate) if ctx.needs[0] else None
    gg_g = apply("gelu_grad", [x, gg], ctx.attrs) if ctx.needs[1] else None
    return gx, gg_g


@register_vjp("silu")
def _silu(ctx, g):
    x = ctx.inputs[0]
    s = ops.sigmoid(x)
    return (g * s * (x * (1.0 - s) + 1.0),)


@register_vjp("softplus")
def _softplus(ctx, g):
    x = ctx.inputs[0]
    bx = x * ctx.attrs["beta"]
    # a complex input switches on its real part, as the kernel does
    big = (ops.real(bx) if bx.dtype.is_complex else bx) > ctx.attrs["threshold"]
    return (ops.where(big, g, g * ops.sigmoid(bx)),)


@register_vjp("mish")
def _mish(ctx, g):
    x = ctx.inputs[0]
    sp = ops.where(x > 20.0, x, ops.log1p(ops.exp(ops.minimum(x, ops.full_like(x, 20.0)))))
    t = ops.tanh(sp)
    return (g * (t + x * (1.0 - t * t) * ops.sigmoid(x)),)
