"""Linear algebra lowerings: matmul, linear."""
from __future__ import annotations

from .loader import jax_modules
from .table import lowers

_m = jax_modules


@lowers("matmul")
def _matmul(cx, x, y, transpose_x, transpose_y):
    jnp = _m().jnp
    if transpose_x and x.ndim >= 2:
        x = jnp.swapaxes(x, -1, -2)
    if transpose_y and y.ndim >= 2:
        y = jnp.swapaxes(y, -1, -2)
    return jnp.matmul(x, y)


@lowers("linear")
def _linear(cx, x, w, *bias):
    out = _m().jnp.matmul(x, w)
    return out + bias[0] if bias else out
