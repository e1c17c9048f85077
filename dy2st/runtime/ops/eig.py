"""The eigendecomposition of general (non-symmetric) square matrices: eig and eigvals, whose
results are complex (complex64 for float32 / complex64 input, complex128 otherwise)."""
from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

from ..dtype import COMPLEX_OF, dtype_name
from ..registry import Meta, apply, register_op
from .dims import dims
from .operands import as_tensor


def _complex_dtype(x) -> Any:
    return x.dtype if x.dtype.is_complex else COMPLEX_OF[x.dtype]


def _check(x: Any) -> None:
    s = dims(x)
    if len(s) < 2 or (s[-1] >= 0 and s[-2] >= 0 and s[-1] != s[-2]):
        raise ValueError(f"eig: the input must be a (batch of) square matrices, got shape "
                         f"{list(s)}")
    if not x.dtype.is_inexact or x.dtype == "float16":
        raise TypeError(f"eig: the input must be float32, float64, complex64 or complex128, got "
                        f"{dtype_name(x.dtype)}")


def _eig_infer(x):
    _check(x)
    d = _complex_dtype(x)
    return [Meta(tuple(x._shape[:-1]), d), Meta(tuple(x._shape), d)]


@register_op("eig", infer=_eig_infer, n_outputs=2)
def _eig_kernel(x):
    if not np.all(np.isfinite(x)):
        raise ValueError("eig: the input holds inf or nan")
    w, v = np.linalg.eig(x)
    d = np.complex64 if x.dtype in (np.float32, np.complex64) else np.complex128
    return w.astype(d), v.astype(d)


def eig(x: Any, name: Optional[str] = None) -> Tuple[Any, Any]:
    """(eigenvalues [..., n], eigenvectors [..., n, n]) of square matrices: x @ v = v * w, each
    eigenvector (column of v) of unit norm; complex, as in Paddle."""
    x = as_tensor(x)
    _check(x)
    return apply("eig", [x])


def eigvals(x: Any, name: Optional[str] = None) -> Any:
    """The eigenvalues of square matrices (complex; their gradient flows as eig's does)."""
    return eig(x)[0]
