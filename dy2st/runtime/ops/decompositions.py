"""Matrix functions and decompositions over the last two dims (batches allowed): det, slogdet,
cholesky, eigh, svd, qr. Each is one op with a numpy (LAPACK) kernel."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..dtype import dtype_name
from ..registry import Meta, apply, register_op
from .dims import dims
from .operands import as_tensor


def check_matrices(op: str, x: Any, square: bool = True, complex_ok: bool = False) -> tuple:
    s = dims(x)
    if len(s) < 2 or (square and s[-1] >= 0 and s[-2] >= 0 and s[-1] != s[-2]):
        what = "square matrices" if square else "matrices"
        raise ValueError(f"{op}: the input must be a (batch of) {what}, got shape {list(s)}")
    if not (x.dtype.is_floating or (complex_ok and x.dtype.is_complex)):
        wanted = "float32, float64, complex64 or complex128" if complex_ok else \
            "float32 or float64"
        raise TypeError(f"{op}: the input must be {wanted}, got {dtype_name(x.dtype)}")
    return s


# det is holomorphic: its real rule serves complex matrices through the conjugate convention
@register_op("det", infer=lambda x: Meta(check_matrices("det", x, complex_ok=True)[:-2], x.dtype))
def _det_kernel(x):
    return np.asarray(np.linalg.det(x), dtype=x.dtype)


@register_op("slogdet", infer=lambda x: Meta((2,) + check_matrices("slogdet", x)[:-2], x.dtype))
def _slogdet_kernel(x):
    sign, logabs = np.linalg.slogdet(x)
    return np.stack([sign, logabs]).astype(x.dtype)


@register_op("cholesky", infer=lambda x, upper: Meta(check_matrices("cholesky", x), x.dtype))
def _cholesky_kernel(x, upper):
    try:
        low = np.linalg.cholesky(x)      # reads the lower triangle only
    except np.linalg.LinAlgError as e:
        raise ValueError(f"cholesky: the input is not symmetric positive definite ({e})") from None
    return (np.swapaxes(low, -1, -2) if upper else low).astype(x.dtype)


def _eigh_infer(x, lower):
    s = check_matrices("eigh", x)
    return [Meta(s[:-1], x.dtype), Meta(s, x.dtype)]


@register_op("eigh", infer=_eigh_infer, n_outputs=2)
def _eigh_kernel(x, lower):
    w, v = np.linalg.eigh(x, UPLO="L" if lower else "U")
    return w.astype(x.dtype), v.astype(x.dtype)


def _svd_infer(x, full_matrices):
    s = check_matrices("svd", x, square=False)
    m, n = s[-2], s[-1]
    k = min(m, n) if m >= 0 and n >= 0 else -1
    um, vn = (m, n) if full_matrices else (k, k)
    return [Meta(s[:-2] + (m, um), x.dtype), Meta(s[:-2] + (k,), x.dtype),
            Meta(s[:-2] + (vn, n), x.dtype)]


@register_op("svd", infer=_svd_infer, n_outputs=3)
def _svd_kernel(x, full_matrices):
    u, s, vh = np.linalg.svd(x, full_matrices=full_matrices)
    return u.astype(x.dtype), s.astype(x.dtype), vh.astype(x.dtype)


def _qr_infer(x, mode):
    s = check_matrices("qr", x, square=False)
    m, n = s[-2], s[-1]
    k = min(m, n) if m >= 0 and n >= 0 else -1
    qk = m if mode == "complete" else k
    return [Meta(s[:-2] + (m, qk), x.dtype), Meta(s[:-2] + (qk, n), x.dtype)]


@register_op("qr", infer=_qr_infer, n_outputs=2)
def _qr_kernel(x, mode):
    q, r = np.linalg.qr(x, mode="complete" if mode == "complete" else "reduced")
    return q.astype(x.dtype), r.astype(x.dtype)


def det(x: Any, name: Optional[str] = None) -> Any:
    """The determinant of each square matrix (shape [*, n, n] -> [*])."""
    x = as_tensor(x)
    check_matrices("det", x, complex_ok=True)
    return apply("det", [x])


def slogdet(x: Any, name: Optional[str] = None) -> Any:
    """sign and log|det| of each square matrix, stacked: shape [2, *] (as Paddle returns it)."""
    x = as_tensor(x)
    check_matrices("slogdet", x)
    return apply("slogdet", [x])


def cholesky(x: Any, upper: bool = False, name: Optional[str] = None) -> Any:
    """The Cholesky factor of symmetric positive definite matrices (lower, or upper=True),
    computed from the lower triangle."""
    x = as_tensor(x)
    check_matrices("cholesky", x)
    return apply("cholesky", [x], {"upper": bool(upper)})


def eigh(x: Any, UPLO: str = "L", name: Optional[str] = None) -> Any:
    """Eigenvalues (ascending) and eigenvectors of symmetric matrices, read from the lower
    (UPLO='L') or upper ('U') triangle."""
    if UPLO not in ("L", "U"):
        raise ValueError(f"eigh: UPLO must be 'L' or 'U', got {UPLO!r}")
    x = as_tensor(x)
    check_matrices("eigh", x)
    return tuple(apply("eigh", [x], {"lower": UPLO == "L"}))


def eigvalsh(x: Any, UPLO: str = "L", name: Optional[str] = None) -> Any:
    """The eigenvalues (ascending) of symmetric matrices."""
    return eigh(x, UPLO)[0]


def svd(x: Any, full_matrices: bool = False, name: Optional[str] = None) -> Any:
    """U, S, VH with x = U @ diag(S) @ VH (S descending)."""
    x = as_tensor(x)
    check_matrices("svd", x, square=False)
    return tuple(apply("svd", [x], {"full_matrices": bool(full_matrices)}))


def qr(x: Any, mode: str = "reduced", name: Optional[str] = None) -> Any:
    """Q, R with x = Q @ R (mode 'reduced' or 'complete'); mode 'r' returns R only."""
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"qr: mode must be 'reduced', 'complete' or 'r', got {mode!r}")
    x = as_tensor(x)
    check_matrices("qr", x, square=False)
    q, r = apply("qr", [x], {"mode": "complete" if mode == "complete" else "reduced"})
    return r if mode == "r" else (q, r)
