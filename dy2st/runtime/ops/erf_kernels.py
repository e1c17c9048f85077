"""Vectorized erf and GELU kernels: scipy.special.erf for float64; for float32 (and narrower),
in cache-sized blocks, a rational approximation of erf evaluated in float64 (within 1 ulp), and
GELU as x / (1 + exp(x A(x^2))) in float32 (the encoder's hot path: 17 numpy passes)."""
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
# highest degree first, for Horner's scheme; the float32 numerator is halved (exact: a power of
# two), so the float32 kernel gives erf / 2, the form GELU and its gradient read
_P64 = [float(c) for c in reversed(_P)]
_Q64 = [float(c) for c in reversed(_Q)]
_HALF_P32 = [np.float32(c) * np.float32(0.5) for c in reversed(_P)]
_Q32 = [np.float32(c) for c in reversed(_Q)]
# float32 GELU: Phi(x) = 1 / (1 + exp(x A(x^2))) with A(t) = ln((1 - Phi) / Phi) / x fitted for
# this project on |x| <= 7 (weighted minimax: GELU's relative error for x > 0, its absolute
# error for x < 0; the fit's own error is 7e-8 there). A stays negative and decreasing for every
# t >= 0, so +inf gives inf, large negative x give -0 and -inf gives NaN, as the erf form does.
# Against the exact GELU: at most 3 ulp for x > 0 and 6e-7 absolute below, better than 0.5 x
# (1 + erf) in float32, which cancels for x < -2.
_GELU_A = (-1.5957692472374592, -0.07266746604605576, 6.57402988649175e-05,
           0.00011059257024595831, -7.950130015638665e-06, 2.674898200633453e-07,
           -3.6224016259989074e-09)
_GELU_A32 = [np.float32(c) for c in reversed(_GELU_A)]
_CLIP = np.float32(4.0)
_HALF = np.float32(0.5)
_ONE = np.float32(1.0)
# elements per block: the argument, the scratch arrays and the output stay in L2
_BLOCK = 1 << 15
# GELU's four blocks (x, two scratch, out) of 64K float32 also fit this machine's 2 MB L2, and
# half the calls cost 8% less than 32K blocks at 1M elements (3.1 against 3.4 ms, one thread)
_GELU_BLOCK = 1 << 16
_BLOCK64 = 1 << 13
_SQRT_HALF = np.float32(1.0 / math.sqrt(2.0))
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


def _horner(t: np.ndarray, coeffs, out: np.ndarray) -> None:
    """out = the polynomial with coeffs (highest degree first) at t, one pass per step."""
    np.multiply(t, coeffs[0], out=out)
    out += coeffs[1]
    for c in coeffs[2:]:
        out *= t
        out += c


def _half_erf32_block(x: np.ndarray, out: np.ndarray, t: np.ndarray, num: np.ndarray,
                      den: np.ndarray) -> None:
    """out = erf(x) / 2 in float32 for one contiguous block (out may be x): about 1 ulp on
    average, at most 7 ulp. np.minimum / np.maximum, not np.clip: its Python wrapper cost more
    than the pass itself at this block size."""
    np.minimum(x, _CLIP, out=out)
    np.maximum(out, -_CLIP, out=out)
    np.multiply(out, out, out=t)
    _horner(t, _HALF_P32, num)
    _horner(t, _Q32, den)
    out *= num
    out /= den
    # rounding can carry the ratio a hair past 1/2 near the clip point
    np.minimum(out, _HALF, out=out)
    np.maximum(out, -_HALF, out=out)


def _erf64_block(x: np.ndarray, out: np.ndarray, u: np.ndarray, t: np.ndarray, num: np.ndarray,
                 den: np.ndarray) -> None:
    """out (float32) = erf(x) for one float32 block, the rational evaluated in float64: its error
    (2e-9) and float64's rounding stay far below float32's, so the result is the correctly
    rounded erf but where erf lies within 2e-9 of a rounding midpoint (then 1 ulp away)."""
    np.minimum(x, _CLIP, out=u)
    np.maximum(u, -_CLIP, out=u)
    np.multiply(u, u, out=t)
    _horner(t, _P64, num)
    _horner(t, _Q64, den)
    num *= u
    np.divide(num, den, out=out, casting="same_kind")


def _blocked(fn, x: np.ndarray, out: np.ndarray, scratch: int = 3, dtype: type = np.float32,
             block: int = _BLOCK) -> np.ndarray:
    """Runs fn(x_block, out_block, *scratch blocks of dtype) over flat contiguous blocks."""
    flat_x, flat_out = x.reshape(-1), out.reshape(-1)
    n = flat_x.size
    buffers = np.empty((scratch, min(n, block)), dtype)
    for start in range(0, n, block):
        stop = min(start + block, n)
        fn(flat_x[start:stop], flat_out[start:stop], *buffers[:, :stop - start])
    return out


def erf32(x: np.ndarray) -> np.ndarray:
    """erf of a float32 array in float32, within 1 ulp of the exact value (correctly rounded
    but within 2e-9 of a midpoint); NaN stays NaN, +-inf give +-1, -0 gives -0."""
    x = np.asarray(x, np.float32, order="C")
    return _blocked(_erf64_block, x, np.empty_like(x), scratch=4, dtype=np.float64,
                    block=_BLOCK64)


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


def _gelu32_block(x: np.ndarray, out: np.ndarray, t: np.ndarray, a: np.ndarray) -> None:
    """out = gelu(x) = x / (1 + exp(x A(x^2))) for one contiguous float32 block (out may be x:
    x is read last). 17 passes, the erf form's 30: see _GELU_A."""
    np.multiply(x, x, out=t)
    _horner(t, _GELU_A32, a)
    a *= x
    np.exp(a, out=a)            # overflows to inf for x < -13: x / inf is the -0 GELU gives
    a += _ONE
    np.divide(x, a, out=out)


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
        with np.errstate(over="ignore"):
            return _blocked(_gelu32_block, x, np.empty_like(x), scratch=2, block=_GELU_BLOCK)
    return gelu_array(x.astype(np.float32), False).astype(x.dtype)


def gelu_into(x: np.ndarray, out: np.ndarray, approximate: bool) -> np.ndarray:
    """gelu_array(x, approximate) written into out (x's shape and float dtype; out may be x)."""
    if x.dtype == np.float32 and not approximate and x.flags.c_contiguous and out.flags.c_contiguous:
        with np.errstate(over="ignore"):
            return _blocked(_gelu32_block, x, out, scratch=2, block=_GELU_BLOCK)
    np.copyto(out, gelu_array(x, approximate))
    return out


def _gelu_grad32_block(x: np.ndarray, out: np.ndarray, t: np.ndarray, num: np.ndarray,
                       den: np.ndarray) -> None:
    # Phi(x) + x phi(x): the erf part into out, then the density in the scratch block t
    np.multiply(x, _SQRT_HALF, out=out)
    _half_erf32_block(out, out, t, num, den)
    out += _HALF
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
