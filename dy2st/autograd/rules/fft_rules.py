"""Gradient rules of the FFT ops (runtime/ops/fft.py). Each op is linear, so its rule is its
adjoint: the transform the other way with the same scale (Paddle's complex convention); the
adjoints of r2c and c2r are ops of their own, whose adjoints are r2c and c2r again."""
from __future__ import annotations

from ...runtime.ops.fft import ADJOINT_NORM
from ...runtime.registry import apply
from . import register_vjp


@register_vjp("fft_c2c", saves=(), complex_aware=True)
def _c2c(ctx, g):
    a = ctx.attrs
    return (apply("fft_c2c", [g], {"axes": a["axes"], "norm": ADJOINT_NORM[a["norm"]],
                                   "forward": not a["forward"]}),)


@register_vjp("fft_r2c", complex_aware=True)
def _r2c(ctx, g):
    return (apply("fft_r2c_grad", [g, ctx.inputs[0]], dict(ctx.attrs)),)


@register_vjp("fft_c2r", saves=(), complex_aware=True)
def _c2r(ctx, g):
    return (apply("fft_c2r_grad", [g], dict(ctx.attrs)),)


@register_vjp("fft_r2c_grad", saves=(), complex_aware=True)
def _r2c_grad(ctx, h):
    return (apply("fft_r2c", [h], dict(ctx.attrs)), None)


@register_vjp("fft_c2r_grad", saves=(), complex_aware=True)
def _c2r_grad(ctx, h):
    return (apply("fft_c2r", [h], dict(ctx.attrs)),)
