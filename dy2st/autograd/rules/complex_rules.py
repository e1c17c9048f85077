"""Gradient rules of the complex ops (runtime/ops/complex.py), in Paddle's convention: the
gradient of a real loss L at z is dL/dRe z + 1j * dL/dIm z."""
from __future__ import annotations

from ...runtime import ops
from ...runtime.ops.linalg import inv
from ...runtime.registry import apply
from . import register_vjp
from .util import unbroadcast


@register_vjp("complex", saves=(), complex_aware=True)
def _complex(ctx, g):
    re, im = ctx.inputs
    return (unbroadcast(apply("real", [g]), re) if ctx.needs[0] else None,
            unbroadcast(apply("imag", [g]), im) if ctx.needs[1] else None)


@register_vjp("real", saves=(), complex_aware=True)
def _real(ctx, g):
    return (apply("complex", [g, ops.zeros_like(g)]),)


@register_vjp("imag", saves=(), complex_aware=True)
def _imag(ctx, g):
    return (apply("complex", [ops.zeros_like(g), g]),)


@register_vjp("conj", saves=(), complex_aware=True)
def _conj(ctx, g):
    return (apply("conj", [g]),)


@register_vjp("angle", complex_aware=True)
def _angle(ctx, g):
    z = ctx.inputs[0]
    if not z.dtype.is_complex:
        return (ops.zeros_like(z),)      # 0 or pi: piecewise constant
    # d angle = (x dy - y dx) / |z|^2, so the gradient is g * 1j * z / |z|^2 (0 at z = 0)
    x, y = apply("real", [z]), apply("imag", [z])
    mag2 = x * x + y * y
    safe = ops.where(mag2 == 0, ops.ones_like(mag2), mag2)
    scale = ops.where(mag2 == 0, ops.zeros_like(mag2), g / safe)
    return (apply("complex", [ops.neg(y) * scale, x * scale]),)


@register_vjp("as_complex", saves=(), complex_aware=True)
def _as_complex(ctx, g):
    return (apply("as_real", [g]),)


@register_vjp("as_real", saves=(), complex_aware=True)
def _as_real(ctx, g):
    return (apply("as_complex", [g]),)


def _mH(a):
    n = len(a.shape)
    return apply("conj", [ops.transpose(a, list(range(n - 2)) + [n - 1, n - 2])])


@register_vjp("eig", complex_aware=True)
def _eig(ctx, gw, gv):
    """For distinct eigenvalues: gA = V^-H (diag(gw) + (V^H gV - V^H V Re diag(V^H gV)) / E) V^H
    with E_ij = conj(w_j) - conj(w_i) off the diagonal (the unit-norm eigenvectors' phase is
    free, so only losses that do not depend on it have a gradient); the real part for a real
    input."""
    x = ctx.inputs[0]
    w, v = ctx.outputs
    vh = _mH(v)
    # the identity from index grids, so that a dim unknown while tracing is fine
    count = ops.cumsum(ops.ones_like(apply("real", [w])), axis=-1)
    eye = ops.cast(ops.unsqueeze(count, -1) == ops.unsqueeze(count, -2), v.dtype)
    inner = ops.unsqueeze(gw, -2) * eye if gw is not None else ops.zeros_like(v)
    if gv is not None:
        vhgv = ops.matmul(vh, gv)
        re_diag = apply("real", [ops.sum(vhgv * eye, axis=-2)])     # Re diag(V^H gV)
        term = vhgv - ops.matmul(vh, v * ops.cast(ops.unsqueeze(re_diag, -2), v.dtype))
        wc = apply("conj", [w])
        e = ops.unsqueeze(wc, -2) - ops.unsqueeze(wc, -1) + eye
        inner = inner + term / e * (1.0 - eye)
    ga = ops.matmul(inv(vh), ops.matmul(inner, vh))
    return (ga if x.dtype.is_complex else apply("real", [ga]),)
