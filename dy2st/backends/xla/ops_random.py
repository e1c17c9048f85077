"""Random lowerings: each op draws from a jax key split off the run's key, which is derived from
`paddle.seed`'s generator at every run (a seeded script repeats; two runs differ)."""
from __future__ import annotations

from .loader import jax_modules
from .table import lowers

_m = jax_modules


def _shape(cx, shape, dims):
    it = iter(dims)
    return tuple(cx.static_int(next(it), "a shape") if d is None else d for d in shape)


@lowers("uniform_random")
def _uniform(cx, *dims, shape, dtype, min, max):
    d = cx.out_dtype()
    return _m().random.uniform(cx.next_key(), _shape(cx, shape, dims), dtype=d, minval=min,
                               maxval=max)


@lowers("gaussian_random")
def _gaussian(cx, *dims, shape, dtype, mean, std):
    d = cx.out_dtype()
    return mean + std * _m().random.normal(cx.next_key(), _shape(cx, shape, dims), dtype=d)


@lowers("randint")
def _randint(cx, *dims, shape, dtype, low, high):
    return _m().random.randint(cx.next_key(), _shape(cx, shape, dims), low, high,
                               dtype=cx.out_dtype())


@lowers("dropout")
def _dropout(cx, x, p, axis, upscale, seed=0):
    mask_shape = tuple(x.shape) if axis is None else \
        tuple(d if i in axis else 1 for i, d in enumerate(x.shape))
    key = _m().random.key(seed) if seed else cx.next_key()     # seed: Program.random_seed
    keep = _m().random.uniform(key, mask_shape) >= p
    out = x * keep
    if upscale:
        out = out / (1.0 - p)
    return out.astype(x.dtype), keep
