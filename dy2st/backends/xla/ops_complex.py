"""Lowerings of the complex ops (runtime/ops/complex.py) to jax.numpy."""
from __future__ import annotations

from .loader import jax_modules
from .table import lowers

_m = jax_modules


@lowers("complex")
def _complex(cx, re, im):
    return _m().lax.complex(*_m().jnp.broadcast_arrays(re, im))


@lowers("real")
def _real(cx, x):
    return _m().jnp.real(x)


@lowers("imag")
def _imag(cx, x):
    return _m().jnp.imag(x)


@lowers("conj")
def _conj(cx, x):
    return _m().jnp.conj(x)


@lowers("angle")
def _angle(cx, x):
    return _m().jnp.angle(x).astype(cx.out_dtype())


@lowers("as_complex")
def _as_complex(cx, x):
    return _m().lax.complex(x[..., 0], x[..., 1])


@lowers("as_real")
def _as_real(cx, x):
    jnp = _m().jnp
    return jnp.stack([jnp.real(x), jnp.imag(x)], axis=-1)


@lowers("eig")
def _eig(cx, x):
    w, v = _m().jnp.linalg.eig(x)      # XLA's general eigensolver runs on the CPU
    return w.astype(cx.out_dtype(0)), v.astype(cx.out_dtype(1))
