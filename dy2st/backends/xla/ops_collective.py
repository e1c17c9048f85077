"""Collective lowerings: inside a computation that every process of a data-parallel job runs
(spmd.py), all-reduce, all-gather and broadcast are lax collectives over the process axis; in a
job of one process they give their input back."""
from __future__ import annotations

from .loader import jax_modules
from .table import lowers

_m = jax_modules


@lowers("c_allreduce")
def _allreduce(cx, x, op):
    if cx.axis is None:
        return x
    lax = _m().lax
    if op == "sum":
        return lax.psum(x, cx.axis)
    if op == "avg":
        return lax.pmean(x, cx.axis)
    if op == "max":
        return lax.pmax(x, cx.axis)
    if op == "min":
        return lax.pmin(x, cx.axis)
    return _m().jnp.prod(lax.all_gather(x, cx.axis), axis=0)       # prod: no lax.pprod


@lowers("c_allgather")
def _allgather(cx, x, world_size):
    if cx.axis is None:
        return x.reshape((1,)) if x.ndim == 0 else x
    return _m().lax.all_gather(x, cx.axis, axis=0, tiled=x.ndim > 0)


@lowers("c_broadcast")
def _broadcast(cx, x, src):
    if cx.axis is None:
        return x
    return _m().lax.all_gather(x, cx.axis)[src]
