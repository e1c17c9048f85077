"""Lowerings of the FFT ops (runtime/ops/fft.py) to jax.numpy.fft, with the numpy kernels'
conventions (`forward`: the exponent's sign; `norm`: Paddle's label)."""
from __future__ import annotations

from ...runtime.ops.fft import ADJOINT_NORM
from .loader import jax_modules
from .table import lowers

_m = jax_modules


def _c2c(x, axes, norm, forward):
    fft = _m().jnp.fft
    return (fft.fftn if forward else fft.ifftn)(x, axes=axes, norm=norm)


def _r2c(x, axes, norm, forward, onesided):
    out = _c2c(x, axes, norm, forward)
    if onesided:
        last = axes[-1]
        out = _m().lax.slice_in_dim(out, 0, x.shape[last] // 2 + 1, axis=last)
    return out


def _c2r(x, axes, norm, forward, last_dim_size):
    jnp = _m().jnp
    m = x.shape[axes[-1]]
    s = [x.shape[a] for a in axes[:-1]] + [last_dim_size if last_dim_size > 0 else 2 * (m - 1)]
    if forward:
        return jnp.fft.irfftn(jnp.conj(x), s=s, axes=axes, norm=ADJOINT_NORM[norm])
    return jnp.fft.irfftn(x, s=s, axes=axes, norm=norm)


@lowers("fft_c2c")
def _fft_c2c(cx, x, axes, norm, forward):
    return _c2c(x, axes, norm, forward).astype(cx.out_dtype())


@lowers("fft_r2c")
def _fft_r2c(cx, x, axes, norm, forward, onesided):
    return _r2c(x, axes, norm, forward, onesided).astype(cx.out_dtype())


@lowers("fft_c2r")
def _fft_c2r(cx, x, axes, norm, forward, last_dim_size):
    return _c2r(x, axes, norm, forward, last_dim_size).astype(cx.out_dtype())


@lowers("fft_r2c_grad")
def _fft_r2c_grad(cx, g, x, axes, norm, forward, onesided):
    jnp = _m().jnp
    last = axes[-1]
    n = x.shape[last]
    if onesided and g.shape[last] < n:
        pad = [(0, 0)] * g.ndim
        pad[last] = (0, n - g.shape[last])
        g = jnp.pad(g, pad)
    return jnp.real(_c2c(g, axes, ADJOINT_NORM[norm], not forward)).astype(cx.out_dtype())


@lowers("fft_c2r_grad")
def _fft_c2r_grad(cx, g, axes, norm, forward, last_dim_size):
    jnp = _m().jnp
    last = axes[-1]
    n = g.shape[last]
    out = _r2c(g, axes, ADJOINT_NORM[norm], not forward, True)
    weight = [1.0] + [2.0] * (n // 2) if n % 2 else [1.0] + [2.0] * (n // 2 - 1) + [1.0]
    shape = [1] * g.ndim
    shape[last] = len(weight)
    return (out * jnp.asarray(weight, g.dtype).reshape(shape)).astype(cx.out_dtype())
