"""Special functions with numpy kernels written for this project (no scipy): lgamma, digamma,
polygamma, erfinv, the modified Bessel functions i0 / i0e / i1 / i1e and the regularized
incomplete gamma functions gammainc / gammaincc; gammaln and multigammaln composed from lgamma.
Each kernel computes in float64; autograd/rules/special_rules.py holds their derivatives."""
from __future__ import annotations

import math as _math
from typing import Any, Optional

import numpy as np

from ..dtype import float32
from ..registry import Meta, apply, register_op
from . import infer as I
from .operands import as_tensor, binary_operands, cast

_LGAMMA = np.frompyfunc(_math.lgamma, 1, 1)
_ERFC = np.frompyfunc(_math.erfc, 1, 1)


def _float_infer(x, **attrs):
    return Meta(x._shape, x.dtype if x.dtype in I.FLOATING else float32)


def _out(x: np.ndarray, value: np.ndarray) -> np.ndarray:
    return np.asarray(value, np.float64).astype(x.dtype if x.dtype.kind == "f" else np.float32)


def _lgamma64(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, np.float64)
    poles = (x <= 0) & (x == np.floor(x))
    safe = np.where(poles | ~np.isfinite(x), 1.0, x)
    out = _LGAMMA(safe).astype(np.float64)
    out = np.where(np.isposinf(x) | poles, np.inf, out)
    return np.where(np.isnan(x) | np.isneginf(x), np.nan, out)


def _shift_up(x: np.ndarray, bound: float, term):
    """Adds term(x) and steps x by 1 until every entry reaches `bound` (the recurrences)."""
    acc = np.zeros_like(x)
    x = x.copy()
    low = x < bound
    while np.any(low):
        acc = acc + np.where(low, term(np.where(low, x, 1.0)), 0.0)
        x = np.where(low, x + 1.0, x)
        low = x < bound
    return acc, x


def _digamma64(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, np.float64)
    finite = np.isfinite(x)
    xs = np.where(finite, x, 1.0)
    reflect = xs < 0.5
    z = np.where(reflect, 1.0 - xs, xs)     # psi(x) = psi(1 - x) - pi / tan(pi x)
    acc, z = _shift_up(z, 10.0, lambda v: -1.0 / v)     # psi(v) = psi(v + 1) - 1 / v
    w = 1.0 / (z * z)
    series = w * (1 / 12 - w * (1 / 120 - w * (1 / 252 - w * (1 / 240 - w * (
        1 / 132 - w * (691 / 32760 - w / 12))))))
    out = acc + np.log(z) - 0.5 / z - series
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(reflect, out - np.pi / np.tan(np.pi * xs), out)
    poles = (x <= 0) & (x == np.floor(x))
    out = np.where(poles, np.nan, out)
    return np.where(finite, out, np.where(np.isposinf(x), np.inf, np.nan))


# Bernoulli numbers B_2 .. B_16 for the Euler-Maclaurin tail of the Hurwitz zeta function
_B2K = [1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510]


def _hurwitz_zeta(s: int, x: np.ndarray) -> np.ndarray:
    """zeta(s, x) = sum_k (x + k) ** -s for an integer s >= 2 and any x off the poles."""
    acc, z = _shift_up(x, 12.0, lambda v: v ** (-s))
    tail = z ** (1 - s) / (s - 1) + 0.5 * z ** (-s)
    rising, fact = float(s), 2.0        # s (s+1) ... (s+2j-2) and (2j)!
    power = z ** (-s - 1)
    for j, b in enumerate(_B2K, start=1):
        tail = tail + b / fact * rising * power
        rising *= (s + 2 * j - 1) * (s + 2 * j)
        fact *= (2 * j + 1) * (2 * j + 2)
        power = power / (z * z)
    return acc + tail


def _polygamma64(x: np.ndarray, n: int) -> np.ndarray:
    if n == 0:
        return _digamma64(x)
    x = np.asarray(x, np.float64)
    poles = (x <= 0) & (x == np.floor(x))
    finite = np.isfinite(x) & ~poles
    z = _hurwitz_zeta(n + 1, np.where(finite, x, 1.0))
    out = (-1.0) ** (n + 1) * _math.factorial(n) * z
    bad = np.where(np.isposinf(x), 0.0, np.nan)
    return np.where(finite, out, bad)


@register_op("lgamma", infer=_float_infer)
def _lgamma_kernel(x):
    return _out(x, _lgamma64(x))


@register_op("digamma", infer=_float_infer)
def _digamma_kernel(x):
    return _out(x, _digamma64(x))


@register_op("polygamma", infer=_float_infer)
def _polygamma_kernel(x, n):
    return _out(x, _polygamma64(x, n))


def _erfinv64(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, np.float64)
    a = np.abs(np.where(np.isnan(x), 0.0, x))
    inside = a < 1
    t = np.where(inside, a, 0.5)
    # Winitzki's closed form (error about 2e-3) as the start of Newton's iteration
    ln = np.log1p(-t * t)
    k = 0.147
    base = 2 / (np.pi * k) + ln / 2
    y = np.sqrt(np.sqrt(base * base - ln / k) - base)
    for _ in range(6):
        # erf(y) - t written as (1 - t) - erfc(y): exact enough close to 1
        resid = (1.0 - t) - _ERFC(y).astype(np.float64)
        y = y - resid / (2 / np.sqrt(np.pi) * np.exp(-y * y))
    y = np.where(t == 0, 0.0, y)
    out = np.where(inside, y, np.where(a == 1, np.inf, np.nan))
    out = np.copysign(out, x)
    return np.where(np.isnan(x), np.nan, out)


@register_op("erfinv", infer=_float_infer)
def _erfinv_kernel(x):
    return _out(x, _erfinv64(x))


def _bessel_series(x: np.ndarray, nu: int) -> np.ndarray:
    half = x / 2
    term = np.ones_like(x) if nu == 0 else half.copy()
    total = term.copy()
    q = half * half
    for k in range(1, 130):
        term = term * q / (k * (k + nu))
        total = total + term
    return total


def _bessel_scaled_asymptotic(z: np.ndarray, nu: int) -> np.ndarray:
    """I_nu(z) * exp(-z) for z >= 20 (Hankel's expansion)."""
    mu = 4.0 * nu * nu
    term = np.ones_like(z)
    total = term.copy()
    for k in range(1, 31):
        term = term * -(mu - (2 * k - 1) ** 2) / (k * 8.0 * z)
        total = total + term
    return total / np.sqrt(2 * np.pi * z)


_SERIES_LIMIT = 20.0


def _bessel_scaled(x: np.ndarray, nu: int) -> np.ndarray:
    """exp(-|x|) * I_nu(x) for nu in (0, 1)."""
    x = np.asarray(x, np.float64)
    a = np.abs(x)
    small = a <= _SERIES_LIMIT
    series = _bessel_series(np.where(small, a, 0.0), nu) * np.exp(-np.where(small, a, 0.0))
    tail = _bessel_scaled_asymptotic(np.where(small, _SERIES_LIMIT + 1, np.where(np.isinf(a), 1e300, a)), nu)
    out = np.where(small, series, tail)
    if nu == 1:
        out = np.copysign(out, x)
    return np.where(np.isnan(x), np.nan, out)


def _bessel(x: np.ndarray, nu: int) -> np.ndarray:
    x = np.asarray(x, np.float64)
    a = np.abs(x)
    small = a <= _SERIES_LIMIT
    series = _bessel_series(np.where(small, x, 0.0), nu)
    with np.errstate(over="ignore", invalid="ignore"):
        big = _bessel_scaled(np.where(small, _SERIES_LIMIT + 1, x), nu) * np.exp(
            np.where(small, 0.0, a))
    return np.where(small, series, big)


def _bessel_kernel(nu: int, scaled: bool):
    def kernel(x):
        return _out(x, _bessel_scaled(x, nu) if scaled else _bessel(x, nu))
    return kernel


for _name, _nu, _scaled in (("i0", 0, False), ("i1", 1, False), ("i0e", 0, True),
                            ("i1e", 1, True)):
    register_op(_name, infer=_float_infer)(_bessel_kernel(_nu, _scaled))


_TINY = 1e-300
_EPS = 1e-16


def _gamma_lower_regularized(a: np.ndarray, y: np.ndarray) -> np.ndarray:
    """P(a, y) by its power series where y < a + 1 and 1 - Q(a, y) by Legendre's continued
    fraction (Lentz's method) elsewhere."""
    a, y = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(y, np.float64))
    valid = (a > 0) & (y > 0) & np.isfinite(a) & np.isfinite(y)
    aa, yy = np.where(valid, a, 1.0), np.where(valid, y, 1.0)
    with np.errstate(over="ignore", under="ignore"):
        front = np.exp(-yy + aa * np.log(yy) - _lgamma64(aa))
    use_series = yy < aa + 1
    # series
    ys = np.where(use_series, yy, 0.0)
    ap, delta = aa.copy(), 1.0 / aa
    total = delta.copy()
    for _ in range(2000):
        ap = ap + 1
        delta = delta * ys / ap
        total = total + delta
        if np.all(np.abs(delta) <= np.abs(total) * _EPS):
            break
    p_series = total * front
    # continued fraction for Q
    yc = np.where(use_series, aa + 1, yy)
    b = yc + 1 - aa
    c = np.full_like(b, 1 / _TINY)
    d = 1 / np.where(np.abs(b) < _TINY, _TINY, b)
    h = d.copy()
    for i in range(1, 2000):
        an = -i * (i - aa)
        b = b + 2
        d = an * d + b
        d = 1 / np.where(np.abs(d) < _TINY, _TINY, d)
        c = b + an / c
        c = np.where(np.abs(c) < _TINY, _TINY, c)
        step = d * c
        h = h * step
        if np.all(np.abs(step - 1) <= _EPS):
            break
    p_fraction = 1 - front * h
    p = np.where(use_series, p_series, p_fraction)
    p = np.where(valid, p, np.nan)
    p = np.where((y == 0) & (a > 0), 0.0, p)
    p = np.where(np.isposinf(y) & (a > 0), 1.0, p)
    return np.where((a == 0) & (y > 0), 1.0, p)


def _gamma_infer(x, y, **attrs):
    return Meta(I.broadcast_shapes("gammainc", x._shape, y._shape),
                x.dtype if x.dtype in I.FLOATING else float32)


@register_op("gammainc", infer=_gamma_infer)
def _gammainc_kernel(x, y):
    return _out(x, _gamma_lower_regularized(x, y))


@register_op("gammaincc", infer=_gamma_infer)
def _gammaincc_kernel(x, y):
    return _out(x, 1.0 - _gamma_lower_regularized(x, y))


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
