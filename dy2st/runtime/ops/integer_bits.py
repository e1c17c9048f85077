"""Integer and floating-point bit arithmetic: gcd, lcm, bitwise shifts and bitwise_invert,
frexp (composed, differentiable in the mantissa) and nextafter."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..dtype import dtype_name
from ..registry import apply, register_op
from . import infer as I
from .math import abs as _abs, bitwise_not, floor, log2
from .operands import as_tensor, binary_operands, cast
from .selection import where


def _int_pair(op: str, x: Any, y: Any):
    x, y = binary_operands(x, y)
    if x.dtype.is_floating or dtype_name(x.dtype) == "bool":
        raise TypeError(f"{op}: x and y must be integer tensors, got {dtype_name(x.dtype)}")
    return x, y


@register_op("gcd", infer=I.binary("gcd"))
def _gcd_kernel(x, y):
    return np.gcd(x, y).astype(x.dtype)


@register_op("lcm", infer=I.binary("lcm"))
def _lcm_kernel(x, y):
    return np.abs(np.lcm(x, y)).astype(x.dtype)


def gcd(x: Any, y: Any, name: Optional[str] = None) -> Any:
    """The greatest common divisor of |x| and |y|, elementwise (gcd(0, 0) = 0)."""
    return apply("gcd", list(_int_pair("gcd", x, y)))


def lcm(x: Any, y: Any, name: Optional[str] = None) -> Any:
    """The least common multiple of |x| and |y|, elementwise (0 when either is 0)."""
    return apply("lcm", list(_int_pair("lcm", x, y)))


@register_op("bitwise_shift", infer=I.binary("bitwise_shift"))
def _shift_kernel(x, y, left, arithmetic):
    if left:
        return np.left_shift(x, y).astype(x.dtype)
    if arithmetic or x.dtype.kind == "u":
        return np.right_shift(x, y).astype(x.dtype)
    # a logical shift moves zeros in from the left: shift the unsigned view
    unsigned = x.view(np.dtype(f"u{x.dtype.itemsize}"))
    return np.right_shift(unsigned, y.astype(unsigned.dtype)).view(x.dtype)


def bitwise_left_shift(x: Any, y: Any, is_arithmetic: bool = True, out: Any = None,
                       name: Optional[str] = None) -> Any:
    """x shifted left by y bits, elementwise."""
    x, y = _int_pair("bitwise_left_shift", x, y)
    return apply("bitwise_shift", [x, y], {"left": True, "arithmetic": bool(is_arithmetic)})


def bitwise_right_shift(x: Any, y: Any, is_arithmetic: bool = True, out: Any = None,
                        name: Optional[str] = None) -> Any:
    """x shifted right by y bits: arithmetic (sign-filling) or logical (zero-filling)."""
    x, y = _int_pair("bitwise_right_shift", x, y)
    return apply("bitwise_shift", [x, y], {"left": False, "arithmetic": bool(is_arithmetic)})


def bitwise_invert(x: Any, out: Any = None, name: Optional[str] = None) -> Any:
    """~x, elementwise (bitwise_not)."""
    return bitwise_not(x)


def frexp(x: Any, name: Optional[str] = None) -> Any:
    """(mantissa, exponent) with x = mantissa * 2 ** exponent and 0.5 <= |mantissa| < 1
    (both 0 where x is 0); the exponent has x's dtype, as in Paddle."""
    x = as_tensor(x)
    if not x.dtype.is_floating:
        x = cast(x, "float32")
    zero = x == 0
    safe = where(zero, x * 0.0 + 1.0, _abs(x))
    exponent = floor(log2(safe)) + 1.0
    mantissa = x / (exponent * 0.0 + 2.0) ** exponent
    # log2 can round across a power of two: fix the exponent where |mantissa| left [0.5, 1)
    big = _abs(mantissa) >= 1.0
    mantissa = where(big, mantissa / 2.0, mantissa)
    exponent = where(big, exponent + 1.0, exponent)
    small = (_abs(mantissa) < 0.5) & ~zero
    mantissa = where(small, mantissa * 2.0, mantissa)
    exponent = where(small, exponent - 1.0, exponent)
    return where(zero, x, mantissa), where(zero, x * 0.0, exponent)


@register_op("nextafter", infer=I.binary("nextafter"))
def _nextafter_kernel(x, y):
    return np.nextafter(x, y).astype(x.dtype)


def nextafter(x: Any, y: Any, name: Optional[str] = None) -> Any:
    """The next floating-point value after x towards y, elementwise."""
    x, y = binary_operands(x, y)
    if not x.dtype.is_floating:
        x, y = cast(x, "float32"), cast(y, "float32")
    return apply("nextafter", [x, y])
