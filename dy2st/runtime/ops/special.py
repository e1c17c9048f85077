"""Special functions on scipy.special's vectorized kernels: lgamma, digamma, polygamma, erfinv,
the modified Bessel functions i0 / i0e / i1 / i1e and the regularized incomplete gamma functions
gammainc / gammaincc; gammaln and multigammaln composed from lgamma. Each kernel computes in
float64; autograd/rules/special_rules.py holds their derivatives."""
from __future__ import annotations

import math as _math
from typing import Any, Optional

import numpy as np

from ..dtype import float32
from ..registry import Meta, apply, register_op
from . import infer as I
from .operands import as_tensor, binary_operands, cast
from .scipy_special import special


def _float_infer(x, **attrs):
    return Meta(x._shape, x.dtype if x.dtype in I.FLOATING else float32)


def _out(x: np.ndarray, value: np.ndarray) -> np.ndarray:
    return np.asarray(value, np.float64).astype(x.dtype if x.dtype.kind == "f" else np.float32)


def _f64(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, np.float64)


def _poles(x: np.ndarray) -> np.ndarray:
    return (x <= 0) & (x == np.floor(x))


def _lgamma64(x: np.ndarray) -> np.ndarray:
    """log |Gamma(x)| in float64: inf at the poles and at +inf, NaN at -inf."""
    x = _f64(x)
    out = special().gammaln(x)
    return np.where(np.isneginf(x), np.nan, out)


def _digamma64(x: np.ndarray) -> np.ndarray:
    x = _f64(x)
    return np.where(_poles(x), np.nan, special().psi(x))


def _polygamma64(x: np.ndarray, n: int) -> np.ndarray:
    if n == 0:
        return _digamma64(x)
    x = _f64(x)
    # scipy gives inf at the poles and at -inf; both are NaN here (no one-sided limit)
    return np.where(_poles(x) | np.isneginf(x), np.nan, special().polygamma(n, x))


@register_op("lgamma", infer=_float_infer)
def _lgamma_kernel(x):
    return _out(x, _lgamma64(x))


@register_op("digamma", infer=_float_infer)
def _digamma_kernel(x):
    return _out(x, _digamma64(x))


@register_op("polygamma", infer=_float_infer)
def _polygamma_kernel(x, n):
    return _out(x, _polygamma64(x, n))


@register_op("erfinv", infer=_float_infer)
def _erfinv_kernel(x):
    return _out(x, special().erfinv(_f64(x)))


def _bessel(name: str, at_inf: float, odd: bool):
    """A kernel for scipy.special's `name`, with the limits at +-inf (scipy's Chebyshev series
    give NaN there)."""
    def kernel(x):
        x64 = _f64(x)
        out = getattr(special(), name)(x64)
        limit = np.copysign(at_inf, x64) if odd else at_inf
        return _out(x, np.where(np.isinf(x64), limit, out))
    return kernel


for _name, _at_inf, _odd in (("i0", np.inf, False), ("i1", np.inf, True),
                             ("i0e", 0.0, False), ("i1e", 0.0, True)):
    register_op(_name, infer=_float_infer)(_bessel(_name, _at_inf, _odd))


def _gamma_infer(x, y, **attrs):
    return Meta(I.broadcast_shapes("gammainc", x._shape, y._shape),
                x.dtype if x.dtype in I.FLOATING else float32)


@register_op("gammainc", infer=_gamma_infer)
def _gammainc_kernel(x, y):
    return _out(x, special().gammainc(_f64(x), _f64(y)))


@register_op("gammaincc", infer=_gamma_infer)
def _gammaincc_kernel(x, y):
    return _out(x, special().gammaincc(_f64(x), _f64(y)))


def _float(x: Any) -> Any:
    x = as_tensor(x)
    return x if x.dtype.is_floating else cast(x, "float32")


def lgamma(x: Any, name: Optional[str] = None) -> Any:
    """log |Gamma(x)|, elementwise (inf at the poles 0, -1, -2, ...)."""
    return apply("lgamma", [_float(x)])


def gammaln(x: Any, name: Optional[str] = None) -> Any:
    """log |Gamma(x)| (lgamma under its SciPy name)."""
    return lgamma(x)


def digamma(x: Any, name: Optional[str] = None) -> Any:
    """The logarithmic derivative of Gamma, psi(x) (NaN at the poles)."""
    return apply("digamma", [_float(x)])


def polygamma(x: Any, n: int, name: Optional[str] = None) -> Any:
    """The n-th derivative of digamma (n = 0 is digamma itself)."""
    if int(n) != n or n < 0:
        raise ValueError(f"polygamma: n must be a non-negative int, got {n!r}")
    return apply("polygamma", [_float(x)], {"n": int(n)})


def multigammaln(x: Any, p: int, name: Optional[str] = None) -> Any:
    """The log of the multivariate Gamma function of dimension p:
    p (p - 1) / 4 log(pi) + sum_{j=1..p} lgamma(x + (1 - j) / 2)."""
    if int(p) != p or p < 1:
        raise ValueError(f"multigammaln: p must be a positive int, got {p!r}")
    x = _float(x)
    out = lgamma(x)
    for j in range(2, int(p) + 1):
        out = out + lgamma(x + (1 - j) / 2.0)
    return out + p * (p - 1) / 4.0 * _math.log(_math.pi)


def erfinv(x: Any, name: Optional[str] = None) -> Any:
    """The inverse of erf on (-1, 1) (+-inf at +-1, NaN outside)."""
    return apply("erfinv", [_float(x)])


def i0(x: Any, name: Optional[str] = None) -> Any:
    """The modified Bessel function of the first kind of order 0."""
    return apply("i0", [_float(x)])


def i0e(x: Any, name: Optional[str] = None) -> Any:
    """exp(-|x|) * i0(x)."""
    return apply("i0e", [_float(x)])


def i1(x: Any, name: Optional[str] = None) -> Any:
    """The modified Bessel function of the first kind of order 1."""
    return apply("i1", [_float(x)])


def i1e(x: Any, name: Optional[str] = None) -> Any:
    """exp(-|x|) * i1(x)."""
    return apply("i1e", [_float(x)])


def _gamma_pair(x: Any, y: Any):
    x, y = binary_operands(x, y)
    return (x, y) if x.dtype.is_floating else (cast(x, "float32"), cast(y, "float32"))


def gammainc(x: Any, y: Any, name: Optional[str] = None) -> Any:
    """The regularized lower incomplete gamma function P(x, y) (x the shape parameter, y the
    upper limit); differentiable in y."""
    return apply("gammainc", list(_gamma_pair(x, y)))


def gammaincc(x: Any, y: Any, name: Optional[str] = None) -> Any:
    """The regularized upper incomplete gamma function Q(x, y) = 1 - P(x, y); differentiable
    in y."""
    return apply("gammaincc", list(_gamma_pair(x, y)))
