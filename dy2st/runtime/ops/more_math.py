"""More elementwise math composed from existing differentiable ops: inverse hyperbolics, expm1,
trunc / frac, logit, sinc, logaddexp, heaviside, fmax / fmin, copysign, signbit, nan_to_num,
stanh, ldexp, isposinf / isneginf, and Paddle's alternative names of existing ops."""
from __future__ import annotations

import math as _math
from typing import Any, Optional

import numpy as np

from ..complex_capable import refuse_complex
from ..dtype import dtype_name
from ..registry import classified_as
from .complex import real
from .creation import zeros_like
from .extra_math import atan2
from .math import (
    abs as _abs,
    acos,
    asin,
    atan,
    clip,
    divide,
    exp,
    floor,
    isinf,
    isnan,
    less_than,
    log,
    log1p,
    logical_and,
    logical_or,
    maximum,
    minimum,
    multiply,
    neg,
    remainder,
    sign,
    sin,
    sqrt,
    subtract,
    tanh,
)
from .operands import as_tensor, cast
from .rearrange import flip
from .selection import where


def _float(x: Any) -> Any:
    # a complex x is refused (naming the calling function) by the cast
    x = as_tensor(x)
    return x if x.dtype.is_floating else cast(x, "float32")


def _inexact(x: Any) -> Any:
    # for the holomorphic functions below, which Paddle also computes on complex tensors
    x = as_tensor(x)
    return x if x.dtype.is_inexact else cast(x, "float32")


def acosh(x: Any, name: Optional[str] = None) -> Any:
    """Inverse hyperbolic cosine, log(x + sqrt(x^2 - 1)); for complex x the principal branch
    log(x + sqrt(x + 1) sqrt(x - 1))."""
    x = _inexact(x)
    if x.dtype.is_complex:
        return log(x + sqrt(x + 1.0) * sqrt(x - 1.0))
    return log(x + sqrt(x * x - 1.0))


def asinh(x: Any, name: Optional[str] = None) -> Any:
    """Inverse hyperbolic sine, log(x + sqrt(x^2 + 1)) (odd-symmetric, so accurate for negative
    x)."""
    x = _inexact(x)

    def positive_side(a):
        return log(a + sqrt(a * a + 1.0))
    if x.dtype.is_complex:
        # the odd symmetry, on the half plane Re z < 0 (no ordering of complex values)
        return where(real(x) < 0, neg(positive_side(neg(x))), positive_side(x))
    return where(x < 0, neg(positive_side(neg(x))), positive_side(x))


@classified_as("atanh")
def atanh(x: Any, name: Optional[str] = None) -> Any:
    """Inverse hyperbolic tangent, log((1 + x) / (1 - x)) / 2."""
    x = _inexact(x)
    return 0.5 * (log1p(x) - log1p(neg(x)))


@classified_as("expm1")
def expm1(x: Any, name: Optional[str] = None) -> Any:
    """exp(x) - 1."""
    return exp(_inexact(x)) - 1.0


def deg2rad(x: Any, name: Optional[str] = None) -> Any:
    return _inexact(x) * (_math.pi / 180.0)


def rad2deg(x: Any, name: Optional[str] = None) -> Any:
    return _inexact(x) * (180.0 / _math.pi)


def trunc(input: Any, name: Optional[str] = None) -> Any:
    """Round toward zero."""
    x = as_tensor(input)
    refuse_complex("trunc", x)
    if not x.dtype.is_floating:
        return x
    return sign(x) * floor(_abs(x))


def frac(x: Any, name: Optional[str] = None) -> Any:
    """The fractional part, x - trunc(x)."""
    return x - trunc(x)


def logit(x: Any, eps: Optional[float] = None, name: Optional[str] = None) -> Any:
    """log(x / (1 - x)), x clipped to [eps, 1 - eps] when eps is given."""
    x = _float(x)
    if eps is not None:
        x = clip(x, eps, 1.0 - eps)
    return log(x) - log1p(neg(x))


def sinc(x: Any, name: Optional[str] = None) -> Any:
    """sin(pi x) / (pi x), 1 at 0."""
    x = _inexact(x)
    zero = x == 0
    px = where(zero, x * 0 + 1.0, x) * _math.pi
    return where(zero, x * 0 + 1.0, sin(px) / px)


def logaddexp(x: Any, y: Any, name: Optional[str] = None) -> Any:
    """log(exp(x) + exp(y)), without overflow."""
    x, y = _float(x), _float(y)
    return maximum(x, y) + log1p(exp(neg(_abs(x - y))))


def heaviside(x: Any, y: Any, name: Optional[str] = None) -> Any:
    """0 where x < 0, y where x == 0, 1 where x > 0."""
    x = as_tensor(x)
    y = cast(as_tensor(y), x.dtype)
    zero = zeros_like(x)
    return where(x == 0, y + zero, where(x > 0, zero + 1, zero))


def fmax(x: Any, y: Any, name: Optional[str] = None) -> Any:
    """The elementwise maximum ignoring NaNs (NaN only where both are)."""
    x, y = as_tensor(x), as_tensor(y)
    return where(isnan(x), y, where(isnan(y), x, maximum(x, y)))


def fmin(x: Any, y: Any, name: Optional[str] = None) -> Any:
    """The elementwise minimum ignoring NaNs (NaN only where both are)."""
    x, y = as_tensor(x), as_tensor(y)
    return where(isnan(x), y, where(isnan(y), x, minimum(x, y)))


def signbit(x: Any, name: Optional[str] = None) -> Any:
    """Whether the sign bit is set (true for -0.0 and negative NaN-free values)."""
    x = as_tensor(x)
    if not x.dtype.is_floating:
        return less_than(x, zeros_like(x))
    # -0.0: 1 / x is -inf
    return logical_or(x < 0, logical_and(x == 0, divide(x * 0 + 1.0, x) < 0))


def copysign(x: Any, y: Any, name: Optional[str] = None) -> Any:
    """|x| with the sign of y."""
    x = _float(x)
    y = as_tensor(y)
    return where(signbit(y), neg(_abs(x)), _abs(x))


def nan_to_num(x: Any, nan: float = 0.0, posinf: Optional[float] = None,
               neginf: Optional[float] = None, name: Optional[str] = None) -> Any:
    """x with NaN, +inf and -inf replaced (infinities by the dtype's largest values)."""
    x = as_tensor(x)
    refuse_complex("nan_to_num", x)
    if not x.dtype.is_floating:
        return x
    info = np.finfo(dtype_name(x.dtype))
    hi = float(info.max) if posinf is None else posinf
    lo = float(info.min) if neginf is None else neginf
    zero = zeros_like(x)
    out = where(isnan(x), zero + nan, x)
    out = where(logical_and(isinf(x), x > 0), zero + hi, out)
    return where(logical_and(isinf(x), x < 0), zero + lo, out)


def stanh(x: Any, scale_a: float = 0.67, scale_b: float = 1.7159,
          name: Optional[str] = None) -> Any:
    """scale_b * tanh(scale_a * x)."""
    return tanh(_inexact(x) * scale_a) * scale_b


def ldexp(x: Any, y: Any, name: Optional[str] = None) -> Any:
    """x * 2 ** y."""
    x = _float(x)
    return x * exp(cast(as_tensor(y), x.dtype) * _math.log(2.0))


def isposinf(x: Any, name: Optional[str] = None) -> Any:
    x = as_tensor(x)
    return logical_and(isinf(x), x > 0)


def isneginf(x: Any, name: Optional[str] = None) -> Any:
    x = as_tensor(x)
    return logical_and(isinf(x), x < 0)


def positive(x: Any, name: Optional[str] = None) -> Any:
    """x itself (+x)."""
    return x


# Paddle's other names of existing ops
absolute = _abs
negative = neg
arccos = acos
arcsin = asin
arctan = atan
arctan2 = atan2
arccosh = acosh
arcsinh = asinh
arctanh = atanh
true_divide = divide
div = divide
mul = multiply
sub = subtract
floor_mod = remainder
less = less_than
reverse = flip
