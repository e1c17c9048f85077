"""LU factorisation with partial pivoting (`paddle.linalg.lu`) and its unpacking into P, L, U
(`lu_unpack`), over the last two dims with batches. Pivots are 1-based row swaps, as LAPACK's."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..dtype import dtype_name, int32
from ..registry import Meta, apply, register_op
from . import triangular
from .creation import eye, zeros
from .decompositions import check_matrices
from .operands import as_tensor


def _lu_infer(x, pivot):
    s = check_matrices("lu", x, square=False)
    m, n = s[-2], s[-1]
    k = min(m, n) if m >= 0 and n >= 0 else -1
    return [Meta(s, x.dtype), Meta(s[:-2] + (k,), int32), Meta(s[:-2], int32)]


@register_op("lu", infer=_lu_infer, n_outputs=3)
def _lu_kernel(x, pivot):
    """Doolittle elimination, one column at a time across the whole batch: the pivot is the
    largest magnitude at or below the diagonal (or the diagonal itself with pivot=False)."""
    m, n = x.shape[-2:]
    k = min(m, n)
    a = np.array(x, dtype=x.dtype).reshape((-1, m, n))
    b = a.shape[0]
    rows = np.arange(b)
    piv = np.zeros((b, k), np.int32)
    info = np.zeros(b, np.int32)
    for j in range(k):
        p = j + np.argmax(np.abs(a[:, j:, j]), axis=1) if pivot else np.full(b, j)
        piv[:, j] = p + 1
        top, other = a[rows, j].copy(), a[rows, p].copy()
        a[rows, j], a[rows, p] = other, top
        d = a[:, j, j]
        singular = d == 0
        info[singular & (info == 0)] = j + 1
        # a zero pivot (with pivoting: a zero column) leaves its multipliers as they are
        mult = a[:, j + 1:, j] / np.where(singular, 1, d)[:, None]
        a[:, j + 1:, j] = mult
        a[:, j + 1:, j + 1:] -= mult[:, :, None] * a[:, j, None, j + 1:]
    batch = x.shape[:-2]
    return a.reshape(x.shape), piv.reshape(batch + (k,)), info.reshape(batch)


def lu(x: Any, pivot: bool = True, get_infos: bool = False, name: Optional[str] = None) -> Any:
    """The packed LU factorisation of x ([*, m, n]): the unit-lower L below the diagonal and U
    on and above it, with the 1-based row swaps ([*, min(m, n)], int32) so that
    x = P @ L @ U; with get_infos=True also the status ([*], int32: 0 ok, i > 0 when U[i-1, i-1]
    is exactly zero). pivot=False factors without row swaps (pivots 1..k)."""
    x = as_tensor(x)
    check_matrices("lu", x, square=False)
    out, pivots, infos = apply("lu", [x], {"pivot": bool(pivot)})
    return (out, pivots, infos) if get_infos else (out, pivots)


def _permutation_infer(y, m, dtype):
    return Meta(tuple(y._shape[:-1]) + (m, m), dtype)


@register_op("lu_permutation", infer=_permutation_infer)
def _permutation_kernel(y, m, dtype):
    """P with x = P @ L @ U from LAPACK's row swaps: swap i <-> pivots[i] - 1 in order gives
    the order `perm` of x's rows in L @ U, so P[perm[r], r] = 1."""
    k = y.shape[-1]
    flat = y.reshape((-1, k)).astype(np.int64) - 1
    if flat.size and (flat.min() < 0 or flat.max() >= m):
        raise ValueError(f"lu_unpack: pivots must lie in [1, {m}], got values from "
                         f"{flat.min() + 1} to {flat.max() + 1}")
    out = np.zeros((flat.shape[0], m, m), dtype)
    for b, swaps in enumerate(flat):
        perm = np.arange(m)
        for i, p in enumerate(swaps):
            perm[i], perm[p] = perm[p], perm[i]
        out[b, perm, np.arange(m)] = 1
    return out.reshape(y.shape[:-1] + (m, m))


def lu_unpack(x: Any, y: Any, unpack_ludata: bool = True, unpack_pivots: bool = True,
              name: Optional[str] = None) -> tuple:
    """P ([*, m, m]), L ([*, m, k], unit diagonal) and U ([*, k, n]) from lu's packed x and
    pivots y, with x = P @ L @ U. What is not asked for comes back as an empty tensor."""
    x, y = as_tensor(x), as_tensor(y)
    s = check_matrices("lu_unpack", x, square=False)
    m, n = s[-2], s[-1]
    if m < 0 or n < 0:
        raise ValueError(f"lu_unpack: the matrix dims must be known, got shape {list(s)}")
    if y.dtype.is_floating:
        raise TypeError(f"lu_unpack: pivots must be an integer tensor, got {dtype_name(y.dtype)}")
    k = min(m, n)
    empty = zeros([0], x.dtype)
    p = apply("lu_permutation", [y], {"m": m, "dtype": dtype_name(x.dtype)}) if unpack_pivots \
        else empty
    if not unpack_ludata:
        return p, empty, empty
    low = triangular.tril(x[..., :, :k], -1) + eye(m, k, dtype=x.dtype)
    up = triangular.triu(x[..., :k, :])
    return p, low, up
