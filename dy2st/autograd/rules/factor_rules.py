"""Gradient rules of lu (square matrices) and matrix_exp; lu_permutation (pivots to P) has none."""
from __future__ import annotations

from ...runtime import ops
from ...runtime.dtype import dtype_name
from ...runtime.ops.linalg import inv as _inv
from ...runtime.registry import apply
from . import GradientError, mark_no_grad, register_vjp
from .decomposition_rules import mT
from .util import shape_of

mark_no_grad("lu_permutation")


@register_vjp("lu", saves=())
def _lu(ctx, g, g_pivots, g_infos):
    (x,) = ctx.inputs
    packed, pivots, _ = ctx.outputs
    m, n = shape_of(x)[-2:]
    if m != n or m < 0:
        raise GradientError(f"lu: gradients are supported for square matrices of known size, "
                            f"got shape {list(shape_of(x))}")
    # x = P L U, and the packed output holds L's strict lower part and U's upper part:
    # xbar = P L^-T (tril(L^T Lbar, -1) + triu(Ubar U^T)) U^-T
    eye = ops.eye(n, dtype=x.dtype)
    low = ops.tril(packed, -1) + eye
    up = ops.triu(packed)
    phi = ops.tril(ops.matmul(low, ops.tril(g, -1), True, False), -1) \
        + ops.triu(ops.matmul(ops.triu(g), up, False, True))
    inner = ops.matmul(ops.matmul(_inv(low), phi, True, False), _inv(up), False, True)
    perm = apply("lu_permutation", [pivots], {"m": n, "dtype": dtype_name(x.dtype)})
    return (ops.matmul(perm, inner),)


@register_vjp("matrix_exp", saves=(0,))
def _matrix_exp(ctx, g):
    (x,) = ctx.inputs
    # the adjoint of the Frechet derivative of exp at X is its derivative at X^T: the top right
    # block of exp([[X^T, G], [0, X^T]])
    xt = mT(x)
    top = ops.concat([xt, g], axis=-1)
    bottom = ops.concat([ops.zeros_like(xt), xt], axis=-1)
    big = apply("matrix_exp", [ops.concat([top, bottom], axis=-2)])
    n = shape_of(x)[-1]
    if n >= 0:
        return (big[..., :n, n:],)
    size = x.shape[-1]
    return (ops.slice(ops.slice(big, [-2], [0], [size]), [-1], [size], [2 * size]),)
