"""Statistical reductions: std, var, logsumexp, and norm (vector and matrix norms)."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..dtype import float32
from ..registry import Meta, apply, register_op
from . import infer as I
from .operands import as_tensor
from .reduce import norm_axis, np_axis


def _float_dtype(x):
    return x.dtype if x.dtype.is_floating else float32


def _np_float(x: np.ndarray) -> np.dtype:
    return x.dtype if x.dtype.kind == "f" else np.dtype(np.float32)


def _moment_infer(x, axis, keepdim, unbiased):
    return Meta(I.reduced_shape(x._shape, axis, keepdim), _float_dtype(x))


@register_op("var", infer=_moment_infer)
def _var_kernel(x, axis, keepdim, unbiased):
    out = np.var(x, axis=np_axis(axis), keepdims=keepdim, ddof=1 if unbiased else 0)
    return np.asarray(out).astype(_np_float(x))


@register_op("std", infer=_moment_infer)
def _std_kernel(x, axis, keepdim, unbiased):
    out = np.std(x, axis=np_axis(axis), keepdims=keepdim, ddof=1 if unbiased else 0)
    return np.asarray(out).astype(_np_float(x))


def var(x: Any, axis: Any = None, unbiased: bool = True, keepdim: bool = False,
        name: Optional[str] = None) -> Any:
    """Variance over `axis` (unbiased: divides by N - 1)."""
    return apply("var", [as_tensor(x)], {"axis": norm_axis(axis), "keepdim": bool(keepdim),
                                         "unbiased": bool(unbiased)})


def std(x: Any, axis: Any = None, unbiased: bool = True, keepdim: bool = False,
        name: Optional[str] = None) -> Any:
    """Standard deviation over `axis` (unbiased: divides by N - 1)."""
    return apply("std", [as_tensor(x)], {"axis": norm_axis(axis), "keepdim": bool(keepdim),
                                         "unbiased": bool(unbiased)})


def _lse_infer(x, axis, keepdim):
    return Meta(I.reduced_shape(x._shape, axis, keepdim), _float_dtype(x))


@register_op("logsumexp", infer=_lse_infer)
def _logsumexp_kernel(x, axis, keepdim):
    x = x.astype(_np_float(x), copy=False)
    ax = np_axis(axis)
    m = np.max(x, axis=ax, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)          # all -inf (or inf) slices: don't subtract inf
    with np.errstate(divide="ignore"):
        out = np.log(np.sum(np.exp(x - m), axis=ax, keepdims=True)) + m
    if not keepdim:
        out = np.squeeze(out, axis=ax) if ax is not None else out.reshape(())
    return np.asarray(out).astype(x.dtype)


def logsumexp(x: Any, axis: Any = None, keepdim: bool = False, name: Optional[str] = None) -> Any:
    """log(sum(exp(x))) over `axis`, computed without overflow."""
    return apply("logsumexp", [as_tensor(x)], {"axis": norm_axis(axis), "keepdim": bool(keepdim)})


# ----------------------------------------------------------------------------- norm
def _norm_p(p: Any) -> Any:
    """p as a JSON-able attribute: numbers stay numbers, infinities become strings."""
    if p is None or isinstance(p, str):
        return p
    p = float(p)
    if np.isinf(p):
        return "inf" if p > 0 else "-inf"
    return p


def _np_ord(p: Any) -> Any:
    return {"inf": np.inf, "-inf": -np.inf}.get(p, p) if isinstance(p, str) else p


def _norm_infer(x, p, axis, keepdim):
    if axis is None:
        return Meta((1,) * len(x._shape) if keepdim else (), _float_dtype(x))
    return Meta(I.reduced_shape(x._shape, axis, keepdim), _float_dtype(x))


@register_op("norm", infer=_norm_infer)
def _norm_kernel(x, p, axis, keepdim):
    x = x.astype(_np_float(x), copy=False)
    ord_ = _np_ord(p)
    if axis is None:                          # the flattened tensor as one vector
        out = np.linalg.norm(x.reshape(-1), ord=None if ord_ in (None, "fro") else ord_)
        return np.asarray(out).reshape((1,) * x.ndim if keepdim else ()).astype(x.dtype)
    axes = [axis] if isinstance(axis, int) else list(axis)
    if len(axes) == 1:
        if ord_ == "nuc":
            raise ValueError("norm: p='nuc' needs a matrix (two axes)")
        ord_ = None if ord_ in (None, "fro") else ord_
        out = np.linalg.norm(x, ord=ord_, axis=axes[0], keepdims=keepdim)
    elif len(axes) == 2:
        out = np.linalg.norm(x, ord="fro" if ord_ is None else ord_, axis=tuple(axes),
                             keepdims=keepdim)
    else:
        raise ValueError(f"norm: axis must be an int or a list of one or two ints, got {axis}")
    return np.asarray(out).astype(x.dtype)


def norm(x: Any, p: Any = None, axis: Any = None, keepdim: bool = False,
         name: Optional[str] = None) -> Any:
    """Vector norm (axis None or an int) or matrix norm (axis of two ints), as paddle.linalg.norm."""
    ax = norm_axis(axis)
    if isinstance(ax, (list, tuple)):
        if not 1 <= len(ax) <= 2:
            raise ValueError(f"norm: axis must be an int or a list of one or two ints, got {ax}")
        ax = [int(a) % max(x.ndim, 1) for a in ax]
    elif ax is not None:
        ax = int(ax) % max(x.ndim, 1)
    x = as_tensor(x)
    p = _norm_p(p)
    if x.dtype.is_complex:
        # entrywise norms depend on |z| only; spectral ones would need a complex SVD
        if isinstance(ax, list) and len(ax) == 2 and p not in (None, "fro", "inf", "-inf", 1, -1):
            raise ValueError(f"norm: the matrix norm p={p!r} of a complex tensor is not supported "
                             "(entrywise norms and p='fro' are)")
        x = apply("abs", [x])
    return apply("norm", [x], {"p": p, "axis": ax, "keepdim": bool(keepdim)})
