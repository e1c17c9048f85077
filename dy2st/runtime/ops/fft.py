"""The FFT ops under paddle.fft's three kernels: fft_c2c (complex to complex), fft_r2c (real to
complex, one-sided by default) and fft_c2r (the inverse of r2c), plus the two ops their
gradients need (fft_r2c_grad, fft_c2r_grad). numpy.fft computes them; `forward` is the sign of
the exponent and `norm` Paddle's label ("backward": the forward transform is unscaled)."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ..dtype import COMPLEX_OF, REAL_OF
from ..registry import Meta, register_op

NORMS = ("backward", "ortho", "forward")
# the adjoint of a transform is the opposite direction with the same scale: its label swaps
ADJOINT_NORM = {"backward": "forward", "ortho": "ortho", "forward": "backward"}


def _c2c(x: np.ndarray, axes: Sequence[int], norm: str, forward: bool) -> np.ndarray:
    fn = np.fft.fftn if forward else np.fft.ifftn
    return fn(x, axes=axes, norm=norm)


def _onesided_size(n: int) -> int:
    return n // 2 + 1


# ----------------------------------------------------------------------------- c2c
def _c2c_infer(x, axes, norm, forward):
    return Meta(x._shape, x.dtype)


@register_op("fft_c2c", infer=_c2c_infer)
def _c2c_kernel(x, axes, norm, forward):
    return np.asarray(_c2c(x, axes, norm, forward), x.dtype)


# ----------------------------------------------------------------------------- r2c
def _r2c_infer(x, axes, norm, forward, onesided):
    shape = list(x._shape)
    last = axes[-1]
    if onesided and shape[last] >= 0:
        shape[last] = _onesided_size(shape[last])
    return Meta(tuple(shape), COMPLEX_OF[x.dtype])


@register_op("fft_r2c", infer=_r2c_infer)
def _r2c_kernel(x, axes, norm, forward, onesided):
    out = _c2c(x, axes, norm, forward)
    if onesided:
        keep = [slice(None)] * x.ndim
        keep[axes[-1]] = slice(0, _onesided_size(x.shape[axes[-1]]))
        out = out[tuple(keep)]
    return np.asarray(out, COMPLEX_OF[str(x.dtype)])


# ----------------------------------------------------------------------------- c2r
def _c2r_size(m: int, last_dim_size: int) -> int:
    """The real length of a one-sided spectrum of m bins (Paddle: 2 (m - 1) unless given)."""
    return last_dim_size if last_dim_size > 0 else 2 * (m - 1)


def _c2r_infer(x, axes, norm, forward, last_dim_size):
    shape = list(x._shape)
    last = axes[-1]
    shape[last] = last_dim_size if last_dim_size > 0 else (
        2 * (shape[last] - 1) if shape[last] >= 0 else -1)
    return Meta(tuple(shape), REAL_OF[x.dtype])


@register_op("fft_c2r", infer=_c2r_infer)
def _c2r_kernel(x, axes, norm, forward, last_dim_size):
    n = _c2r_size(x.shape[axes[-1]], last_dim_size)
    if n < 1:
        raise ValueError(f"fft_c2r: the output length along axis {axes[-1]} would be {n}; "
                         "give n (or s) explicitly")
    s = [x.shape[a] for a in axes[:-1]] + [n]
    if forward:     # the forward transform of a Hermitian signal: the inverse of its conjugate
        out = np.fft.irfftn(np.conj(x), s=s, axes=axes, norm=ADJOINT_NORM[norm])
    else:
        out = np.fft.irfftn(x, s=s, axes=axes, norm=norm)
    return np.asarray(out, REAL_OF[str(x.dtype)])


# ----------------------------------------------------------------------------- gradients
def _r2c_grad_infer(g, x, axes, norm, forward, onesided):
    return Meta(x._shape, x.dtype)


@register_op("fft_r2c_grad", infer=_r2c_grad_infer)
def _r2c_grad_kernel(g, x, axes, norm, forward, onesided):
    """The adjoint of fft_r2c: the one-sided spectrum zero-filled to full length, transformed
    back, its real part."""
    last = axes[-1]
    n = x.shape[last]
    if onesided and g.shape[last] < n:
        pad = [(0, 0)] * g.ndim
        pad[last] = (0, n - g.shape[last])
        g = np.pad(g, pad)
    out = _c2c(g, axes, ADJOINT_NORM[norm], not forward)
    return np.asarray(out.real, x.dtype)


def _c2r_grad_infer(g, axes, norm, forward, last_dim_size):
    shape = list(g._shape)
    last = axes[-1]
    if shape[last] >= 0:
        shape[last] = _onesided_size(shape[last])
    return Meta(tuple(shape), COMPLEX_OF[g.dtype])


@register_op("fft_c2r_grad", infer=_c2r_grad_infer)
def _c2r_grad_kernel(g, axes, norm, forward, last_dim_size):
    """The adjoint of fft_c2r: the one-sided transform of g the other way, its bins that stand
    for a conjugate pair (all but 0 and, for an even length, n / 2) doubled."""
    last = axes[-1]
    n = g.shape[last]
    out = _r2c_kernel(g, axes, ADJOINT_NORM[norm], not forward, True)
    weight = np.full(_onesided_size(n), 2.0, g.dtype)
    weight[0] = 1.0
    if n % 2 == 0:
        weight[-1] = 1.0
    shape = [1] * g.ndim
    shape[last] = weight.size
    return np.asarray(out * weight.reshape(shape), out.dtype)
