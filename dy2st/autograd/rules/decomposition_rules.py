"""Gradient rules of det, slogdet, cholesky, eigh, svd and qr (real matrices; eigh and svd need
distinct eigen / singular values, as every framework's rules do)."""
from __future__ import annotations

from ...runtime import ops
from ...runtime.ops.linalg import inv as _inv
from . import GradientError, register_vjp
from .util import shape_of


def mT(x):
    n = len(shape_of(x))
    perm = list(range(n))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return ops.transpose(x, perm)


def _col(v):
    return ops.unsqueeze(ops.unsqueeze(v, -1), -1)


def _lower_only(sym):
    """The gradient with respect to the entries a lower-triangle kernel reads, from the gradient
    `sym` with respect to the symmetric matrix: off-diagonal entries stand for two."""
    both = sym + mT(sym)
    return ops.tril(both) - _diag_matrix(sym)


def _eye(x):
    """The identity matrix of the size of x's last dim (known or not when tracing)."""
    n = shape_of(x)[-1]
    if n >= 0:
        return ops.eye(n, dtype=x.dtype)
    idx = ops.arange(0, x.shape[-1], 1, "int64")
    return ops.cast(ops.unsqueeze(idx, -1) == ops.unsqueeze(idx, 0), x.dtype)


def _diag_matrix(x):
    return x * _eye(x)


@register_vjp("det", saves=(0,))
def _det(ctx, g):
    (x,), (out,) = ctx.inputs, ctx.outputs
    # d det = det * tr(X^-1 dX)
    return (_col(g * out) * mT(_inv(x)),)


@register_vjp("slogdet", saves=(0,))
def _slogdet(ctx, g):
    (x,) = ctx.inputs
    g_log = ops.squeeze(ops.slice(g, [0], [1], [2]), [0])
    return (_col(g_log) * mT(_inv(x)),)


@register_vjp("cholesky", saves=())
def _cholesky(ctx, g):
    (out,) = ctx.outputs
    upper = ctx.attrs["upper"]
    low = mT(out) if upper else out
    gl = ops.tril(mT(g) if upper else g)      # the zero triangle of the factor is constant
    # A = L L^T: Abar = 1/2 L^-T Phi(L^T Lbar) L^-1 (symmetrised), Phi = lower part, half diagonal
    phi = ops.matmul(low, gl, True, False)
    phi = ops.tril(phi) - 0.5 * _diag_matrix(phi)
    linv = _inv(low)
    s = ops.matmul(ops.matmul(linv, phi, True, False), linv)
    return (_lower_only(0.5 * (s + mT(s))),)


def _gap_inverse(w):
    """F[i, j] = 1 / (w[j] - w[i]) off the diagonal, 0 on it."""
    diff = ops.unsqueeze(w, -2) - ops.unsqueeze(w, -1)
    eye = _eye(w)
    return (1.0 - eye) / (diff + eye)


@register_vjp("eigh", saves=())
def _eigh(ctx, gw, gv):
    w, v = ctx.outputs
    inner = _diag_matrix(ops.unsqueeze(gw, -2)) if gw is not None else 0.0
    if gv is not None:
        inner = inner + _gap_inverse(w) * ops.matmul(v, gv, True, False)
    sym = ops.matmul(ops.matmul(v, inner), v, False, True)
    sym = 0.5 * (sym + mT(sym))
    full = _lower_only(sym)
    return (full if ctx.attrs["lower"] else mT(full),)


@register_vjp("svd", saves=())
def _svd(ctx, gu, gs, gvh):
    (x,) = ctx.inputs
    u, s, vh = ctx.outputs
    m, n = shape_of(x)[-2:]
    k = shape_of(s)[-1]
    if ctx.attrs["full_matrices"] and (m != n or m < 0) and (gu is not None or gvh is not None):
        raise GradientError("svd: no gradient through U or VH with full_matrices=True for a "
                            "non-square input (they are not unique); use full_matrices=False")
    v = mT(vh)
    s2 = s * s
    f = _gap_inverse(s2)
    sm = _diag_matrix(ops.unsqueeze(s, -2))
    inner = _diag_matrix(ops.unsqueeze(gs, -2)) if gs is not None else sm * 0.0
    extra = None
    s_inv = _diag_matrix(ops.unsqueeze(1.0 / s, -2))
    if gu is not None:
        j = f * ops.matmul(u, gu, True, False)
        inner = inner + ops.matmul(j + mT(j), sm)
        if m < 0 or k < 0 or m > k:      # the part of gu outside U's span
            proj = gu - ops.matmul(u, ops.matmul(u, gu, True, False))
            extra = ops.matmul(ops.matmul(proj, s_inv), vh)
    if gvh is not None:
        gv = mT(gvh)
        kv = f * ops.matmul(v, gv, True, False)
        inner = inner + ops.matmul(sm, kv + mT(kv))
        if n < 0 or k < 0 or n > k:
            proj = gv - ops.matmul(v, ops.matmul(v, gv, True, False))
            term = ops.matmul(ops.matmul(u, s_inv), proj, False, True)
            extra = term if extra is None else extra + term
    out = ops.matmul(ops.matmul(u, inner), vh)
    return (out if extra is None else out + extra,)


@register_vjp("qr", saves=())
def _qr(ctx, gq, gr):
    (x,) = ctx.inputs
    q, r = ctx.outputs
    m, n = shape_of(x)[-2:]
    if (m >= 0 and n >= 0 and m < n) or ctx.attrs["mode"] == "complete" and (m != n or m < 0):
        raise GradientError("qr: gradients need a matrix with at least as many rows as columns "
                            "and mode='reduced'")
    gq = q * 0.0 if gq is None else gq
    gr = r * 0.0 if gr is None else gr
    # M = R Rbar^T - Qbar^T Q; Abar = (Qbar + Q copyltu(M)) R^-T
    mm = ops.matmul(r, gr, False, True) - ops.matmul(gq, q, True, False)
    sym = ops.tril(mm) + mT(ops.tril(mm, -1))
    return (ops.matmul(gq + ops.matmul(q, sym), mT(_inv(r))),)
