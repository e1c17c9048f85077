"""Collective lowerings: inside a computation that every process of a data-parallel job runs
(spmd.py), all-reduce, all-gather, broadcast, reduce-scatter, all-to-all and SyncBatchNorm's
statistics are lax collectives over the process axis; in a job of one process they give their
input back (or the local statistics)."""
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


@lowers("c_reducescatter")
def _reducescatter(cx, x, op, nranks):
    if cx.axis is None:
        return x
    lax, jnp = _m().lax, _m().jnp
    dtype = x.dtype
    if dtype == jnp.bool_:
        x = x.astype(jnp.int32)
    if op in ("sum", "avg"):
        out = lax.psum_scatter(x, cx.axis, scatter_dimension=0, tiled=True)
        if op == "avg":
            out = out / nranks
    else:
        reduce = {"max": jnp.max, "min": jnp.min, "prod": jnp.prod}[op]
        whole = reduce(lax.all_gather(x, cx.axis), axis=0)
        k = x.shape[0] // nranks
        out = lax.dynamic_slice_in_dim(whole, lax.axis_index(cx.axis) * k, k, axis=0)
    return out.astype(dtype)


@lowers("c_alltoall")
def _alltoall(cx, x, nranks):
    if cx.axis is None:
        return x
    return _m().lax.all_to_all(x, cx.axis, 0, 0, tiled=True)


@lowers("sync_batch_norm_stats")
def _sync_batch_norm_stats(cx, x, axis):
    jnp, lax = _m().jnp, _m().lax
    axes = tuple(i for i in range(x.ndim) if i != axis)
    c = x.shape[axis]

    def total(v):
        return v if cx.axis is None else lax.psum(v, cx.axis)
    # two reductions across the processes (sums and counts, then squared deviations) keep the
    # variance exact in float32, where E[x^2] - mean^2 would cancel
    sums = total(jnp.concatenate([x.sum(axis=axes), jnp.full((1,), x.size // max(c, 1), x.dtype)]))
    count = sums[-1]
    mean = sums[:c] / count
    var = total(jnp.square(x - jnp.expand_dims(mean, axes)).sum(axis=axes)) / count
    return mean.astype(x.dtype), var.astype(x.dtype), count.astype(x.dtype)
