"""Lowerings of the gradient bookkeeping ops the static backward and optimizers append."""
from __future__ import annotations

import numpy as np

from .loader import jax_modules
from .ops_index import decode
from .ops_shape import split_bounds
from .table import lowers

_m = jax_modules


@lowers("grad_clear")
def _grad_clear(cx, x, set_to_zero=True):
    return _m().jnp.zeros(x.shape, x.dtype)


@lowers("grad_accumulate")
def _grad_accumulate(cx, old, new):
    return old + new


@lowers("grad_present")
def _grad_present(cx, x):
    # a device array cannot be the host's dropped-gradient marker: here, as grad_clear's
    # lowering does, a dropped gradient is zeros, which is a gradient
    return _m().jnp.array(True)


@lowers("py_layer")
def _py_layer(cx, out, *inputs, layer, call, frozen):
    return out          # the PyLayer's forward, traced before this op, is its value


@lowers("py_layer_multi")
def _py_layer_multi(cx, *ins, layer, call, live, n_outs):
    return tuple(ins[:len(live)])   # the forward's outputs, as for py_layer


def _pad_axis(g, axis, before, after):
    widths = [(0, 0)] * g.ndim
    widths[axis] = (before, after)
    return _m().jnp.pad(g, widths)


@lowers("split_grad")
def _split_grad(cx, x, g, axis, num, sections, index):
    lo, hi = split_bounds(cx, x, axis, {"num": num, "sections": sections, "index": index})
    return _pad_axis(g, axis, lo, x.shape[axis] - hi)


@lowers("unbind_grad")
def _unbind_grad(cx, x, g, axis, index):
    return _pad_axis(_m().jnp.expand_dims(g, axis), axis, index, x.shape[axis] - index - 1)


@lowers("getitem_grad")
def _getitem_grad(cx, x, g, *tensors, items):
    # basic indexes reach each position once; advanced ones add repeats (np.add.at)
    return _m().jnp.zeros(x.shape, g.dtype).at[decode(cx, items, tensors)].add(g)


@lowers("strided_slice_grad")
def _strided_slice_grad(cx, x, g, *tensors, axes, starts, ends, strides):
    it = iter(tensors)

    def bounds(slots):
        return [cx.static_int(next(it), "a slice bound") if v is None else v for v in slots]
    s, e, st = bounds(starts), bounds(ends), bounds(strides)
    index = [slice(None)] * x.ndim
    for a, b0, b1, step in zip(axes, s, e, st):
        index[a] = slice(b0, b1, step)
    return _m().jnp.zeros(x.shape, g.dtype).at[tuple(index)].set(g)


@lowers("gather_grad")
def _gather_grad(cx, x, index, g, axis):
    jnp = _m().jnp
    moved = jnp.zeros(jnp.moveaxis(jnp.zeros(x.shape, g.dtype), axis, 0).shape, g.dtype)
    gm = jnp.moveaxis(g, axis, 0) if np.ndim(index) else jnp.expand_dims(g, 0)
    moved = moved.at[jnp.reshape(index, -1)].add(gm.reshape((-1,) + moved.shape[1:]))
    return jnp.moveaxis(moved, 0, axis)


@lowers("embedding_grad")
def _embedding_grad(cx, ids, w, g, padding_idx):
    jnp = _m().jnp
    out = jnp.zeros(w.shape, g.dtype).at[jnp.reshape(ids, -1)].add(g.reshape(-1, w.shape[-1]))
    if padding_idx is not None:
        out = out.at[padding_idx % w.shape[0]].set(0)
    return out


@lowers("tile_grad")
def _tile_grad(cx, x, g, *dims, repeat_times):
    nd = g.ndim
    shape = (1,) * (nd - x.ndim) + tuple(x.shape)
    split = []
    for d, total in zip(shape, g.shape):
        split += [total // d if d else 0, d]
    return g.reshape(split).sum(axis=tuple(range(0, 2 * nd, 2))).reshape(x.shape)
