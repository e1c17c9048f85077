"""Gradient rules of the special functions (runtime/ops/special.py) and the no-gradient marks of
the integer, sampling and index ops added with them."""
from __future__ import annotations

import math

from ...runtime import ops
from ...runtime.registry import apply
from . import mark_no_grad, register_vjp
from .util import unbroadcast


@register_vjp("lgamma")
def _lgamma(ctx, g):
    return (g * apply("digamma", [ctx.inputs[0]]),)


@register_vjp("digamma")
def _digamma(ctx, g):
    return (g * apply("polygamma", [ctx.inputs[0]], {"n": 1}),)


@register_vjp("polygamma")
def _polygamma(ctx, g):
    return (g * apply("polygamma", [ctx.inputs[0]], {"n": ctx.attrs["n"] + 1}),)


@register_vjp("erfinv", saves=())
def _erfinv(ctx, g):
    y = ctx.outputs[0]          # d erfinv(x) / dx = sqrt(pi) / 2 * exp(erfinv(x) ** 2)
    return (g * (math.sqrt(math.pi) / 2) * ops.exp(y * y),)


def _safe_inverse(x):
    zero = x == 0
    return zero, 1.0 / ops.where(zero, ops.ones_like(x), x)


@register_vjp("i0")
def _i0(ctx, g):
    return (g * apply("i1", [ctx.inputs[0]]),)


@register_vjp("i1")
def _i1(ctx, g):
    x = ctx.inputs[0]           # I1'(x) = I0(x) - I1(x) / x, 1/2 at 0
    zero, inv = _safe_inverse(x)
    slope = apply("i0", [x]) - ctx.outputs[0] * inv
    return (g * ops.where(zero, ops.full_like(x, 0.5), slope),)


@register_vjp("i0e")
def _i0e(ctx, g):
    x = ctx.inputs[0]           # (e^-|x| I0)' = e^-|x| I1 - sign(x) e^-|x| I0
    return (g * (apply("i1e", [x]) - ops.sign(x) * ctx.outputs[0]),)


@register_vjp("i1e")
def _i1e(ctx, g):
    x = ctx.inputs[0]           # (e^-|x| I1)' = e^-|x| I0 - e^-|x| I1 (sign(x) + 1 / x)
    zero, inv = _safe_inverse(x)
    slope = apply("i0e", [x]) - ctx.outputs[0] * (ops.sign(x) + inv)
    return (g * ops.where(zero, ops.full_like(x, 0.5), slope),)


def _density(a, y):
    # d P(a, y) / dy = exp(-y) y^(a - 1) / Gamma(a)
    return ops.exp(ops.neg(y) + (a - 1.0) * ops.log(y) - apply("lgamma", [a]))


@register_vjp("gammainc")
def _gammainc(ctx, g):
    a, y = ctx.inputs
    return None, (unbroadcast(g * _density(a, y), y) if ctx.needs[1] else None)


@register_vjp("gammaincc")
def _gammaincc(ctx, g):
    a, y = ctx.inputs
    return None, (unbroadcast(ops.neg(g) * _density(a, y), y) if ctx.needs[1] else None)


mark_no_grad("gcd", "lcm", "bitwise_shift", "nextafter", "unique_consecutive", "mode_index",
             "poisson", "standard_gamma", "binomial")
