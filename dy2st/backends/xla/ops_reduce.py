"""Reduction and scan lowerings (sum, mean, max, argmax, any, cumsum, reduce_as)."""
from __future__ import annotations

from .loader import jax_modules
from .table import lowers

_m = jax_modules


def _axis(axis):
    if axis is None:
        return None
    if isinstance(axis, (list, tuple)):
        return tuple(axis) if axis else None
    return axis


@lowers("sum")
def _sum(cx, x, axis, keepdim, dtype):
    if x.dtype == bool or x.dtype.kind in "iu":
        x = x.astype(cx.out_dtype())
    return _m().jnp.sum(x, axis=_axis(axis), keepdims=keepdim)


@lowers("mean")
def _mean(cx, x, axis, keepdim):
    return _m().jnp.mean(x.astype(cx.out_dtype()), axis=_axis(axis), keepdims=keepdim)


def _same(name):
    def lower(cx, x, axis, keepdim):
        return getattr(_m().jnp, name)(x, axis=_axis(axis), keepdims=keepdim)
    return lower


for _op, _fn in {"max": "max", "min": "min", "prod": "prod", "any": "any",
                 "all": "all"}.items():
    lowers(_op)(_same(_fn))


def _arg(name):
    def lower(cx, x, axis, keepdim, dtype):
        jnp = _m().jnp
        if axis is None:
            out = getattr(jnp, name)(x.reshape(-1))
            return out.reshape((1,) * x.ndim) if keepdim else out
        out = getattr(jnp, name)(x, axis=axis)
        return jnp.expand_dims(out, axis) if keepdim else out
    return lower


lowers("argmax")(_arg("argmax"))
lowers("argmin")(_arg("argmin"))


@lowers("cumsum")
def _cumsum(cx, x, axis, dtype):
    x = x.astype(cx.out_dtype())
    if axis is None:
        x, axis = x.reshape(-1), 0
    return _m().jnp.cumsum(x, axis=axis)


@lowers("reduce_as")
def _reduce_as(cx, x, target):
    if x.shape == target.shape:
        return x
    lead = x.ndim - target.ndim
    axes = tuple(range(lead)) + tuple(
        lead + i for i, d in enumerate(target.shape) if d == 1 and x.shape[lead + i] != 1)
    return _m().jnp.sum(x, axis=axes).reshape(target.shape)


@lowers("shape_holder")
def _shape_holder(cx, x):
    # zeros of x's shape and dtype (what a loop tape keeps of a value read for its shape)
    return _m().jnp.zeros(x.shape, x.dtype)
