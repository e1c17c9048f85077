"""Randomised low-rank SVD and PCA (`svd_lowrank`, `pca_lowrank`; Halko, Martinsson and Tropp
2009, algorithm 5.1): a Gaussian sketch of x's range, refined by power iterations, then an
exact SVD of the small projected matrix. Composed from differentiable ops."""
from __future__ import annotations

from typing import Any, Optional

from .decompositions import check_matrices, qr, svd
from .dims import dims
from .linalg import matmul
from .operands import as_tensor
from .random import randn
from .reduce import mean
from .shape import transpose


def _range_basis(x: Any, m_sub: Any, q: int, niter: int) -> Any:
    """An orthonormal [*, m, q] basis approximately spanning the range of x - m_sub."""
    n = check_matrices("svd_lowrank", x, square=False)[-1]

    def times(t):            # (x - M) @ t
        return matmul(x, t) if m_sub is None else matmul(x, t) - matmul(m_sub, t)

    def times_t(t):          # (x - M)^T @ t
        out = matmul(x, t, True, False)
        return out if m_sub is None else out - matmul(m_sub, t, True, False)

    basis = qr(times(randn([n, q], dtype=x.dtype)))[0]
    for _ in range(niter):
        basis = qr(times_t(basis))[0]
        basis = qr(times(basis))[0]
    return basis


def svd_lowrank(x: Any, q: Optional[int] = None, niter: int = 2, M: Any = None,
                name: Optional[str] = None) -> tuple:
    """U ([*, m, q]), S ([*, q]) and V ([*, n, q]) with x - M ~ U diag(S) V^T, for a rank
    estimate q (default 6, at most min(m, n)); exact when x - M has rank <= q."""
    x = as_tensor(x)
    s = check_matrices("svd_lowrank", x, square=False)
    m, n = s[-2], s[-1]
    q = 6 if q is None else int(q)
    if m < 0 or n < 0:
        raise ValueError(f"svd_lowrank: the matrix dims must be known, got shape {list(s)}")
    if not 0 < q <= min(m, n):
        raise ValueError(f"svd_lowrank: q must be in [1, min(m, n) = {min(m, n)}], got {q}")
    if int(niter) < 0:
        raise ValueError(f"svd_lowrank: niter must be >= 0, got {niter}")
    m_sub = None if M is None else as_tensor(M)
    basis = _range_basis(x, m_sub, q, int(niter))
    projected = matmul(basis, x, True, False)
    if m_sub is not None:
        projected = projected - matmul(basis, m_sub, True, False)
    u, sv, vh = svd(projected)
    return matmul(basis, u), sv, _swap_last(vh)


def _swap_last(t: Any) -> Any:
    perm = list(range(len(dims(t))))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return transpose(t, perm)


def pca_lowrank(x: Any, q: Optional[int] = None, center: bool = True, niter: int = 2,
                name: Optional[str] = None) -> tuple:
    """U, S, V of svd_lowrank on x with each column's mean removed (center=True); q defaults to
    min(6, m, n). The principal directions are V's columns, the variances S**2 / (m - 1)."""
    x = as_tensor(x)
    s = check_matrices("pca_lowrank", x, square=False)
    if q is None:
        q = min(6, s[-2], s[-1])
    if center:
        x = x - mean(x, axis=-2, keepdim=True)
    return svd_lowrank(x, q=q, niter=niter)
