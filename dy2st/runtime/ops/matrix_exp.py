"""The matrix exponential (`paddle.linalg.matrix_exp`): scaling and squaring with the degree-13
Padé approximant (Higham, 2005), per matrix of a batch."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..registry import Meta, apply, register_op
from .decompositions import check_matrices
from .operands import as_tensor

# numerator coefficients of the [13/13] Padé approximant of exp; the denominator's alternate signs
_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
           129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
           40840800.0, 960960.0, 16380.0, 182.0, 1.0)
# the largest 1-norm for which the [13/13] approximant is accurate to double precision
_THETA13 = 5.371920351148152


def _pade13(a: np.ndarray) -> np.ndarray:
    b = _PADE13
    ident = np.broadcast_to(np.eye(a.shape[-1]), a.shape)
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2)
             + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * ident)
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 \
        + b[0] * ident
    return np.linalg.solve(v - u, v + u)


@register_op("matrix_exp", infer=lambda x: Meta(check_matrices("matrix_exp", x), x.dtype))
def _matrix_exp_kernel(x):
    n = x.shape[-1]
    a = np.asarray(x, np.float64).reshape((-1, n, n))
    norm1 = np.abs(a).sum(axis=-2).max(axis=-1) if n else np.zeros(a.shape[0])
    if not np.all(np.isfinite(norm1)):
        raise ValueError("matrix_exp: the input has inf or nan entries")
    # halve each matrix s times so that its norm is within the approximant's range
    s = np.maximum(0, np.ceil(np.log2(np.maximum(norm1, 1e-300) / _THETA13))).astype(np.int64)
    out = _pade13(a / (2.0 ** s)[:, None, None])
    for step in range(int(s.max()) if s.size else 0):
        squared = out @ out
        out = np.where((s > step)[:, None, None], squared, out)
    return out.reshape(x.shape).astype(x.dtype)


def matrix_exp(x: Any, name: Optional[str] = None) -> Any:
    """exp(x) = sum_k x^k / k! of each square matrix of x ([*, n, n])."""
    x = as_tensor(x)
    check_matrices("matrix_exp", x)
    return apply("matrix_exp", [x])
