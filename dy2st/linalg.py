"""`dy2st.linalg`: Paddle's linear-algebra namespace. The decompositions are ops; solve, pinv,
lstsq, matrix_power, multi_dot, cond and matrix_rank are composed from them."""
from __future__ import annotations

from typing import Any, Optional, Sequence

from .runtime import ops as _ops
from .runtime.dtype import dtype_name
from .runtime.ops.decompositions import cholesky, det, eigh, eigvalsh, qr, slogdet, svd  # noqa: F401
from .runtime.ops.dims import dims as _dims
from .runtime.ops.eig import eig, eigvals  # noqa: F401
from .runtime.ops.extra_math import cross  # noqa: F401
from .runtime.ops.linalg import bmm, dot, inv, matmul, mm, outer  # noqa: F401
from .runtime.ops.stats import norm  # noqa: F401

__all__ = ["inv", "norm", "matmul", "mm", "bmm", "dot", "outer", "det", "slogdet", "cholesky",
           "eig", "eigvals", "eigh", "eigvalsh", "svd", "qr", "solve", "pinv", "lstsq", "matrix_power",
           "multi_dot", "cond", "matrix_rank", "triangular_solve", "cholesky_solve",
           "vector_norm", "matrix_norm", "cross", "cov", "corrcoef", "svdvals"]


def _swap(x: Any) -> Any:
    n = len(_dims(x))
    perm = list(range(n))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return _ops.transpose(x, perm)


def solve(x: Any, y: Any, left: bool = True, name: Optional[str] = None) -> Any:
    """X with x @ X = y (left=True) or X @ x = y (left=False), x square and invertible."""
    return _ops.matmul(inv(x), y) if left else _ops.matmul(y, inv(x))


def triangular_solve(x: Any, y: Any, upper: bool = True, transpose: bool = False,
                     unitriangular: bool = False, name: Optional[str] = None) -> Any:
    """X with T @ X = y for the triangle T of x (its transpose with transpose=True)."""
    t = _ops.triu(x) if upper else _ops.tril(x)
    if unitriangular:
        n = _dims(x)[-1]
        eye = _ops.eye(n, dtype=x.dtype)
        t = t * (1 - eye) + eye
    if transpose:
        t = _swap(t)
    return _ops.matmul(inv(t), y)


def cholesky_solve(x: Any, y: Any, upper: bool = False, name: Optional[str] = None) -> Any:
    """X with A @ X = x, where y is the Cholesky factor of A (lower, or upper=True)."""
    low = _swap(y) if upper else y
    return _ops.matmul(inv(_ops.matmul(low, low, False, True)), x)


def _diag(s: Any) -> Any:
    n = _dims(s)[-1]
    return _ops.unsqueeze(s, -2) * _ops.eye(n, dtype=s.dtype)


def pinv(x: Any, rcond: float = 1e-15, hermitian: bool = False, name: Optional[str] = None) -> Any:
    """The Moore-Penrose pseudo-inverse (singular values below rcond * the largest are
    dropped)."""
    u, s, vh = svd(x)
    cutoff = _ops.max(s, axis=-1, keepdim=True) * rcond
    keep = s > cutoff
    s_inv = _ops.where(keep, 1.0 / _ops.where(keep, s, s * 0 + 1), s * 0)
    return _ops.matmul(_ops.matmul(vh, _diag(s_inv), True, False), u, False, True)


def svdvals(x: Any, name: Optional[str] = None) -> Any:
    """The singular values, descending."""
    return svd(x)[1]


def matrix_rank(x: Any, tol: Any = None, hermitian: bool = False, atol: Any = None,
                rtol: Any = None, name: Optional[str] = None) -> Any:
    """How many singular values exceed the tolerance (default: max(m, n) * eps * largest)."""
    import numpy as np
    s = svd(x)[1]
    m, n = _dims(x)[-2:]
    if tol is None and atol is None and rtol is None:
        eps = float(np.finfo(dtype_name(x.dtype)).eps)
        tol = _ops.max(s, axis=-1, keepdim=True) * (max(m, n) * eps)
    elif tol is None:
        tol = (atol or 0.0) + _ops.max(s, axis=-1, keepdim=True) * (rtol or 0.0)
    return _ops.sum(_ops.cast(s > tol, "int64"), axis=-1)


def lstsq(x: Any, y: Any, rcond: Any = None, driver: Optional[str] = None,
          name: Optional[str] = None) -> tuple:
    """The least-squares solution of x @ X = y, the residual sums of squares (empty unless x
    has more rows than columns and full rank), the rank of x and its singular values."""
    import numpy as np
    m, n = _dims(x)[-2:]
    s = svd(x)[1]
    r = float(np.finfo(dtype_name(x.dtype)).eps) * max(m, n) if rcond is None else rcond
    solution = _ops.matmul(pinv(x, rcond=r), y)
    rank = _ops.sum(_ops.cast(s > _ops.max(s, axis=-1, keepdim=True) * r, "int64"), axis=-1)
    if m > n:
        resid = _ops.matmul(x, solution) - y
        residuals = _ops.sum(resid * resid, axis=-2)
    else:
        residuals = _ops.zeros([0], x.dtype)
    return solution, residuals, rank, s


def matrix_power(x: Any, n: int, name: Optional[str] = None) -> Any:
    """x multiplied by itself n times (n = 0: identity; n < 0: powers of the inverse)."""
    n = int(n)
    if n == 0:
        return _ops.zeros_like(x) + _ops.eye(_dims(x)[-1], dtype=x.dtype)
    base = inv(x) if n < 0 else x
    n = abs(n)
    out = None
    while n:
        if n & 1:
            out = base if out is None else _ops.matmul(out, base)
        n >>= 1
        if n:
            base = _ops.matmul(base, base)
    return out


def multi_dot(x: Sequence[Any], name: Optional[str] = None) -> Any:
    """The product of a chain of matrices (the first may be 1-D, as may the last)."""
    if len(x) < 2:
        raise ValueError(f"multi_dot: needs at least 2 tensors, got {len(x)}")
    out = x[0]
    for t in x[1:]:
        out = _ops.matmul(out, t)
    return out


def matrix_norm(x: Any, p: Any = "fro", axis: Sequence[int] = (-2, -1), keepdim: bool = False,
                name: Optional[str] = None) -> Any:
    """Matrix norms over the two dims `axis`: 'fro', 'nuc', inf, -inf, 1, -1, 2, -2."""
    a0, a1 = axis
    if p == "fro":
        x = _ops.abs(x) if x.dtype.is_complex else x     # |z|^2, not z^2
        return _ops.sqrt(_ops.sum(x * x, axis=list(axis), keepdim=keepdim))
    if p in ("nuc", 2, -2):
        moved = _ops.moveaxis(x, list(axis), [-2, -1])
        s = svd(moved)[1]
        out = _ops.sum(s, axis=-1) if p == "nuc" else (_ops.max(s, axis=-1) if p == 2 else
                                                        _ops.min(s, axis=-1))
        if keepdim:
            for a in sorted(ax % len(_dims(x)) for ax in axis):
                out = _ops.unsqueeze(out, a)
        return out
    if p in (1, -1, float("inf"), float("-inf")):
        summed_axis, pick_axis = (a0, a1) if p in (1, -1) else (a1, a0)
        sums = _ops.sum(_ops.abs(x), axis=summed_axis, keepdim=True)
        pick = _ops.max if p in (1, float("inf")) else _ops.min
        out = pick(sums, axis=pick_axis, keepdim=True)
        if not keepdim:
            out = _ops.squeeze(out, sorted([a0 % len(_dims(x)), a1 % len(_dims(x))]))
        return out
    raise ValueError(f"matrix_norm: unsupported p {p!r}")


def vector_norm(x: Any, p: float = 2.0, axis: Any = None, keepdim: bool = False,
                name: Optional[str] = None) -> Any:
    """The p-norm of x as a vector (over `axis`, or all entries)."""
    return norm(x, p=p, axis=axis, keepdim=keepdim)


def cond(x: Any, p: Any = None, name: Optional[str] = None) -> Any:
    """The condition number of square (or, for p None / 2 / -2, any) matrices in norm p."""
    if p is None or p in (2, -2):
        s = svd(x)[1]
        hi, lo = _ops.max(s, axis=-1), _ops.min(s, axis=-1)
        return hi / lo if p in (None, 2) else lo / hi
    return matrix_norm(x, p) * matrix_norm(inv(x), p)


def cov(x: Any, rowvar: bool = True, ddof: bool = True, fweights: Any = None,
        aweights: Any = None, name: Optional[str] = None) -> Any:
    """The covariance matrix of the variables in the rows (rowvar=True) of x (unweighted)."""
    if fweights is not None or aweights is not None:
        raise NotImplementedError("cov: fweights / aweights are not supported")
    if len(_dims(x)) == 1:
        x = _ops.unsqueeze(x, 0)
    if not rowvar:
        x = _swap(x)
    centred = x - _ops.mean(x, axis=1, keepdim=True)
    n = _dims(x)[1]
    # E[(x - mean)(x - mean)^H]: complex variables pair with the conjugate
    other = _ops.conj(centred) if centred.dtype.is_complex else centred
    return _ops.matmul(centred, other, False, True) / (n - 1 if ddof else n)


def corrcoef(x: Any, rowvar: bool = True, name: Optional[str] = None) -> Any:
    """Pearson correlation coefficients of the variables in the rows of x."""
    c = cov(x, rowvar)
    d = _ops.sqrt(_ops.diagonal(c))
    return c / _ops.unsqueeze(d, 1) / _ops.unsqueeze(d, 0)


def matrix_transpose(x: Any, name: Optional[str] = None) -> Any:
    """x with its last two dims swapped."""
    return _swap(x)


def vecdot(x: Any, y: Any, axis: int = -1, name: Optional[str] = None) -> Any:
    """The dot product of x and y along `axis` (broadcasting the others); a complex x is
    conjugated, sum(conj(x) * y), as in Paddle 3.3.1 (and numpy's vecdot)."""
    return _ops.vecdot(x, y, axis=axis)


def cholesky_inverse(x: Any, upper: bool = False, name: Optional[str] = None) -> Any:
    """The inverse of A from its Cholesky factor x (A = x x^T, or x^T x with upper=True)."""
    h = _ops.conj(x) if x.dtype.is_complex else x      # A = L L^H for complex factors
    a = _ops.matmul(h, x, True, False) if upper else _ops.matmul(x, h, False, True)
    return inv(a)


__all__ += ["matrix_transpose", "vecdot", "cholesky_inverse"]

# paddle.linalg.diagonal is paddle.diagonal (same op, signature and gradient)
from .runtime.ops import diagonal  # noqa: E402

__all__ += ["diagonal"]

# LU, the matrix exponential, Householder products and randomised low-rank SVD / PCA
from .runtime.ops.householder import householder_product, ormqr  # noqa: E402
from .runtime.ops.lowrank import pca_lowrank, svd_lowrank  # noqa: E402
from .runtime.ops.lu import lu, lu_unpack  # noqa: E402
from .runtime.ops.matrix_exp import matrix_exp  # noqa: E402


def lu_solve(b: Any, lu: Any, pivots: Any, trans: str = "N", name: Optional[str] = None) -> Any:
    """X with A @ X = b (trans "N") or A^T @ X = b ("T"; "C" the conjugate transpose), where
    (lu, pivots) is A's factorisation from linalg.lu (1-based pivots); batches broadcast."""
    if trans not in ("N", "T", "C"):
        raise ValueError(f"lu_solve: trans must be 'N', 'T' or 'C', got {trans!r}")
    p, lower, upper = lu_unpack(lu, pivots)
    if trans == "N":
        z = _ops.matmul(_swap(p), b)
        return triangular_solve(upper, triangular_solve(lower, z, upper=False,
                                                        unitriangular=True), upper=True)
    if trans == "C" and lower.dtype.is_complex:
        lower, upper = _ops.conj(lower), _ops.conj(upper)
    w = triangular_solve(upper, b, upper=True, transpose=True)
    z = triangular_solve(lower, w, upper=False, transpose=True, unitriangular=True)
    return _ops.matmul(p, z)


__all__ += ["lu", "lu_unpack", "lu_solve", "matrix_exp", "householder_product", "ormqr", "svd_lowrank",
            "pca_lowrank"]


def _install_methods() -> None:
    """Paddle binds these as Tensor methods too."""
    # here, not at the top: paddle.linalg's namespace holds Paddle's names only
    from .runtime.tensor import TensorLike
    for _name in ("lu", "lu_unpack", "householder_product", "ormqr", "svd_lowrank",
                  "pca_lowrank", "cholesky_inverse"):
        if not hasattr(TensorLike, _name):
            setattr(TensorLike, _name, globals()[_name])


_install_methods()
