"""Products of Householder reflectors H_i = I - tau_i v_i v_i^T (the form QR factorisations store
Q in): `householder_product` builds Q's first columns, `ormqr` multiplies by Q. Composed from
differentiable ops, so both have gradients."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from .creation import to_tensor
from .decompositions import check_matrices
from .dims import dims
from .linalg import matmul
from .operands import as_tensor
from .shape import expand_as, unsqueeze


def _reflectors(op: str, x: Any, tau: Any) -> tuple:
    """x's dims m, n and the number k of reflectors, checked against tau."""
    s = check_matrices(op, x, square=False)
    m, n = s[-2], s[-1]
    if m < 0 or n < 0:
        raise ValueError(f"{op}: the matrix dims of x must be known, got shape {list(s)}")
    ts = dims(tau)
    if len(ts) != len(s) - 1:
        raise ValueError(f"{op}: tau must have one dim less than x, got shapes {list(ts)} and "
                         f"{list(s)}")
    k = ts[-1]
    if k < 0 or k > min(m, n):
        raise ValueError(f"{op}: tau's last dim ({k}) must be known and at most min(m, n) = "
                         f"{min(m, n)} for x of shape {list(s)}")
    return m, n, k


def _vector(x: Any, i: int, m: int) -> Any:
    """v_i as a column [*, m, 1]: 1 at row i, x's column i below it, 0 above."""
    below = np.zeros((m, 1))
    below[i + 1:] = 1.0
    unit = np.zeros((m, 1))
    unit[i] = 1.0
    col = x[..., :, i:i + 1]
    return col * to_tensor(below, x.dtype) + to_tensor(unit, x.dtype)


def _tau(tau: Any, i: int) -> Any:
    return unsqueeze(tau[..., i:i + 1], -1)          # [*, 1, 1]


def _reflect_left(y: Any, v: Any, t: Any) -> Any:
    """H y = y - tau v (v^T y)."""
    return y - t * matmul(v, matmul(v, y, True, False))


def _reflect_right(y: Any, v: Any, t: Any) -> Any:
    """y H = y - tau (y v) v^T."""
    return y - t * matmul(matmul(y, v), v, False, True)


def householder_product(x: Any, tau: Any, name: Optional[str] = None) -> Any:
    """The first n columns of Q = H_1 H_2 ... H_k ([*, m, n], m >= n), where H_i's vector has
    1 at row i and x[i+1:, i] below it, and tau ([*, k]) holds the scalars."""
    x, tau = as_tensor(x), as_tensor(tau)
    m, n, k = _reflectors("householder_product", x, tau)
    if m < n:
        raise ValueError(f"householder_product: x must have at least as many rows as columns, "
                         f"got shape {list(dims(x))}")
    q = to_tensor(np.eye(m, n), x.dtype)
    for i in reversed(range(k)):
        q = _reflect_left(q, _vector(x, i, m), _tau(tau, i))
    if k == 0:
        q = expand_as(q, x) if len(dims(x)) > 2 else q
    return q


def ormqr(x: Any, tau: Any, y: Any, left: bool = True, transpose: bool = False,
          name: Optional[str] = None) -> Any:
    """Q @ y (left=True) or y @ Q (left=False), with Q^T for transpose=True, where
    Q = H_1 ... H_k is given by reflectors stored as in householder_product: x is [*, m, k]
    (m = y's rows when left, y's columns otherwise) and tau [*, k]."""
    x, tau, y = as_tensor(x), as_tensor(tau), as_tensor(y)
    m, _, k = _reflectors("ormqr", x, tau)
    ys = check_matrices("ormqr", y, square=False)
    size = ys[-2] if left else ys[-1]
    if size >= 0 and size != m:
        side = "rows" if left else "columns"
        raise ValueError(f"ormqr: y must have {m} {side} (x's rows) with left={left}, got shape "
                         f"{list(ys)}")
    # Q y applies H_k first; Q^T y, y Q apply H_1 first; y Q^T applies H_k first
    order = range(k) if left == bool(transpose) else reversed(range(k))
    reflect = _reflect_left if left else _reflect_right
    for i in order:
        y = reflect(y, _vector(x, i, m), _tau(tau, i))
    return y
