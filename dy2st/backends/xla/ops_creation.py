"""Creation lowerings for values not known while tracing (a fill value or size computed from the
data); with known inputs these ops are computed while tracing by their numpy kernels."""
from __future__ import annotations

from .loader import jax_modules
from .table import lowers

_m = jax_modules


@lowers("fill")
def _fill(cx, value, *dims, shape, dtype):
    it = iter(dims)
    real = [cx.static_int(next(it), "a shape") if d is None else d for d in shape]
    return _m().jnp.full(real, value, dtype=cx.out_dtype())


@lowers("full_like")
def _full_like(cx, x, value, dtype):
    return _m().jnp.full(x.shape, value, dtype=cx.out_dtype())


@lowers("full")
def _full(cx, shape, value, dtype):
    return _m().jnp.full(shape, value, dtype=cx.out_dtype())


@lowers("eye")
def _eye(cx, n, m, dtype):
    return _m().jnp.eye(n, m, dtype=cx.out_dtype())


@lowers("full_range")
def _full_range(cx, start, end, step, dtype, n):
    return _m().jnp.arange(start, end, step).astype(cx.out_dtype())


@lowers("arange")
def _arange(cx, start, end, step, dtype):
    raise cx.not_lowerable("arange with bounds computed from the data has a data-dependent "
                           "length")
