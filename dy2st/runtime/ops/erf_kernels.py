"""Vectorized erf and GELU kernels: scipy.special.erf for float64, and for float32 (and narrower)
a rational approximation evaluated in float32 in cache-sized blocks, 3-4x faster than scipy's."""
from __future__ import annotations

import math

import numpy as np

from .scipy_special import special

# erf(x) ~ x * P(x^2) / Q(x^2) on |x| <= 4, fitted for this project (iterated weighted least
# squares on the relative error); the fit's own error is 2e-9, below float32's rounding. Past
# |x| = 3.92 erf rounds to +-1 in float32, so clipping the argument at 4 costs nothing.
_P = (1.1283791693811358, 0.18520288822544678, 0.05431690180978587, 0.0038496025087357937,
      0.00037961007101445105, 4.6848169304852404e-06, -1.3202407802181392e-08)
_Q = (1.0, 0.4974652000946563, 0.11395830901312096, 0.01546207577561396,
      0.0013075696704053623, 6.311095383142027e-05)
_P32 = [np.float32(c) for c in reversed(_P)]
_Q32 = [np.float32(c) for c in reversed(_Q)]
_CLIP = np.float32(4.0)
_ONE = np.float32(1.0)
# elements per block: the argument, two scratch arrays and the output stay in L2
_BLOCK = 1 << 15
_SQRT_HALF = np.float32(1.0 / math.sqrt(2.0))
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


def _erf32_block(x: np.ndarray, out: np.ndarray, t: np.ndarray, num: np.ndarray,
                 den: np.ndarray) -> None:
    """out = erf(x) for one contiguous float32 block (out may be x itself)."""
    np.clip(x, -_CLIP, _CLIP, out=out)
    np.multiply(out, out, out=t)
    num.fill(_P32[0])
    for c in _P32[1:]:
        num *= t
        num += c
    den.fill(_Q32[0])
    for c in _Q32[1:]:
        den *= t
        den += c
    out *= num
    out /= den
    # rounding can carry the ratio a hair past 1 near the clip point
    np.clip(out, -_ONE, _ONE, out=out)


def _blocked(fn, x: np.ndarray, out: np.ndarray, scratch: int = 3) -> np.ndarray:
    """Runs fn(x_block, out_block, *scratch float32 blocks) over flat contiguous blocks."""
    flat_x, flat_out = x.reshape(-1), out.reshape(-1)
    n = flat_x.size
    buffers = np.empty((scratch, min(n, _BLOCK)), np.float32)
    for start in range(0, n, _BLOCK):
        stop = min(start + _BLOCK, n)
        fn(flat_x[start:stop], flat_out[start:stop], *buffers[:, :stop - start])
    return out


def erf32(x: np.ndarray) -> np.ndarray:
    """erf of a float32 array in float32 (about 1 ulp on average, at most 7 ulp from the
    correctly rounded value); NaN stays NaN and +-inf give +-1."""
    x = np.asarray(x, np.float32, order="C")
    return _blocked(_erf32_block, x, np.empty_like(x))


def _float_array(x: np.ndarray) -> np.ndarray:
    return x if x.dtype.kind == "f" else x.astype(np.float32)


def erf_array(x: np.ndarray) -> np.ndarray:
    """erf elementwise, keeping a float dtype (integers give float32): float64 through scipy,
    float32 through erf32, narrower floats through erf32 and back."""
    x = _float_array(np.asarray(x))
    if x.dtype == np.float64:
        return np.asarray(special().erf(x))
    if x.dtype == np.float32:
        return erf32(x)
    return erf32(x.astype(np.float32)).astype(x.dtype)


def _gelu32_block(x: np.ndarray, out: np.ndarray, t: np.ndarray, num: np.ndarray,
                  den: np.ndarray) -> None:
    # 0.5 x (1 + erf(x / sqrt 2)), erf of the scaled argument computed into out
    np.multiply(x, _SQRT_HALF, out=out)
    _erf32_block(out, out, t, num, den)
    out += np.float32(1.0)
    out *= x
    out *= np.float32(0.5)


def gelu_array(x: np.ndarray, approximate: bool) -> np.ndarray:
    """GELU elementwise with the exact erf form or the tanh approximation, keeping a float dtype
    (integers give float32)."""
    x = _float_array(np.asarray(x))
    if approximate:
        # sqrt(2/pi) (x + 0.044715 x^3), tanh, then 0.5 x (1 + tanh): five passes in x's dtype
        out = np.empty_like(x)
        np.multiply(x, x, out=out)
        out *= 0.044715
        out += 1.0
        out *= x
        out *= _SQRT_2_OVER_PI
        np.tanh(out, out=out)
        out += 1.0
        out *= x
        out *= 0.5
        return out.astype(x.dtype, copy=False)
    if x.dtype == np.float64:
        return np.asarray(0.5 * x * (1.0 + special().erf(x * (1.0 / math.sqrt(2.0)))))
    if x.dtype == np.float32:
        x = np.asarray(x, order="C")
        return _blocked(_gelu32_block, x, np.empty_like(x))
    return gelu_array(x.astype(np.float32), False).astype(x.dtype)


def _gelu32_into_block(x: np.ndarray, out: np.ndarray, e: np.ndarray, t: np.ndarray,
                       num: np.ndarray, den: np.ndarray) -> None:
    # out may be x itself: the erf part is built in the scratch block e, x is read last
    np.multiply(x, _SQRT_HALF, out=e)
    _erf32_block(e, e, t, num, den)
    e += np.float32(1.0)
    e *= np.float32(0.5)
    np.multiply(x, e, out=out)


def gelu_into(x: np.ndarray, out: np.ndarray, approximate: bool) -> np.ndarray:
    """gelu_array(x, approximate) written into out (x's shape and float dtype; out may be x)."""
    if x.dtype == np.float32 and not approximate and x.flags.c_contiguous and out.flags.c_contiguous:
        return _blocked(_gelu32_into_block, x, out, scratch=4)
    np.copyto(out, gelu_array(x, approximate))
    return out


def _gelu_grad32_block(x: np.ndarray, out: np.ndarray, t: np.ndarray, num: np.ndarray,
                       den: np.ndarray) -> None:
    # Phi(x) + x phi(x): the erf part into out, then the density in the scratch block t
    np.multiply(x, _SQRT_HALF, out=out)
    _erf32_block(out, out, t, num, den)
    out += np.float32(1.0)
    out *= np.float32(0.5)
    np.multiply(x, x, out=t)
    t *= np.float32(-0.5)
    np.exp(t, out=t)
    t *= x
    t *= np.float32(1.0 / math.sqrt(2.0 * math.pi))
    out += t


def gelu_grad_array(x: np.ndarray, approximate: bool) -> np.ndarray:
    """d gelu(x) / dx elementwise, in x's float dtype."""
    x = _float_array(np.asarray(x))
    if approximate:
        c = _SQRT_2_OVER_PI
        th = np.tanh(c * (x + 0.044715 * x * x * x))
        slope = c * (1.0 + 3 * 0.044715 * x * x)
        return (0.5 * (1.0 + th) + 0.5 * x * (1.0 - th * th) * slope).astype(x.dtype, copy=False)
    if x.dtype == np.float64:
        cdf = 0.5 * (1.0 + special().erf(x * (1.0 / math.sqrt(2.0))))
        return np.asarray(cdf + x * np.exp(-0.5 * x * x) * (1.0 / math.sqrt(2.0 * math.pi)))
    if x.dtype == np.float32:
        x = np.asarray(x, order="C")
        return _blocked(_gelu_grad32_block, x, np.empty_like(x))
    return gelu_grad_array(x.astype(np.float32), False).astype(x.dtype)
