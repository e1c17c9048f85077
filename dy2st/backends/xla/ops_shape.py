"""Shape and layout lowerings: reshape, transpose, squeeze, concat, expand, slicing, and the
element rearrangements (flip, roll, tile, diag, ...) lowered as one gather whose positions the
op's own numpy kernel computes on an index grid while tracing (exact by construction)."""
from __future__ import annotations

import numpy as np

from ...runtime.registry import OPS
from .loader import jax_modules
from .lower import is_static
from .table import lowers

_m = jax_modules


@lowers("shape")
def _shape(cx, x):
    return np.array(x.shape, dtype=np.int64)


@lowers("numel")
def _numel(cx, x):
    return np.array(int(np.prod(x.shape)), dtype=np.int64)


def _dims(cx, template, dims, x_shape=None):
    it = iter(dims)
    out = []
    for i, d in enumerate(template):
        if d is None:
            out.append(cx.static_int(next(it), "a shape"))
        elif d == 0 and x_shape is not None:
            out.append(x_shape[i])
        else:
            out.append(d)
    return out


@lowers("reshape")
def _reshape(cx, x, *dims, shape):
    return x.reshape(_dims(cx, shape, dims, x.shape))


@lowers("flatten")
def _flatten(cx, x, start_axis, stop_axis):
    return x.reshape(x.shape[:start_axis] + (-1,) + x.shape[stop_axis + 1:])


@lowers("squeeze")
def _squeeze(cx, x, axes):
    return _m().jnp.squeeze(x, axis=tuple(axes)) if axes else x


@lowers("unsqueeze")
def _unsqueeze(cx, x, axes):
    for a in axes:
        x = _m().jnp.expand_dims(x, a)
    return x


@lowers("transpose")
def _transpose(cx, x, perm):
    return _m().jnp.transpose(x, perm)


@lowers("concat")
def _concat(cx, *xs, axis):
    return _m().jnp.concatenate(xs, axis=axis)


@lowers("stack")
def _stack(cx, *xs, axis):
    return _m().jnp.stack(xs, axis=axis)


@lowers("expand")
def _expand(cx, x, *dims, shape):
    it = iter(dims)
    offset = len(shape) - x.ndim
    real = []
    for i, d in enumerate(shape):
        if d is None:
            real.append(cx.static_int(next(it), "a shape"))
        elif d == -1:
            real.append(x.shape[i - offset])
        else:
            real.append(d)
    return _m().jnp.broadcast_to(x, real)


@lowers("tril")
def _tril(cx, x, diagonal):
    return _m().jnp.tril(x, diagonal)


@lowers("triu")
def _triu(cx, x, diagonal):
    return _m().jnp.triu(x, diagonal)


@lowers("strided_slice")
def _strided(cx, x, *tensors, axes, starts, ends, strides):
    it = iter(tensors)

    def decode(slots):
        return [cx.static_int(next(it), "a slice bound") if v is None else v for v in slots]
    s, e, st = decode(starts), decode(ends), decode(strides)
    index = [slice(None)] * x.ndim
    for a, b0, b1, step in zip(axes, s, e, st):
        index[a] = slice(b0, b1, step)
    return x[tuple(index)]


def rearranged(cx, x, *rest, **attrs):
    """The op's kernel applied to the positions of x's elements, then one gather of x."""
    if not all(is_static(v) for v in rest):
        raise cx.not_lowerable("a shape or position depends on the data")
    size = int(np.prod(x.shape))
    positions = np.arange(size, dtype=np.int64 if size > 2 ** 31 - 1 else np.int32)
    index = np.asarray(OPS[cx.op.type].kernel(positions.reshape(x.shape), *rest, **attrs))
    flat = x.reshape(-1)
    if index.size == 0:
        return _m().jnp.zeros(index.shape, x.dtype)
    if index.ndim == 1 and np.array_equal(index, np.arange(index.size)):
        return flat[:index.size]
    return flat[index]


lowers("flip", "roll", "tile")(rearranged)


def split_bounds(cx, x, axis, attrs) -> tuple:
    """[lo, hi) of a split piece along `axis`: the split kernel run on the positions of that
    axis alone (a thin array: every other dim 1)."""
    thin = [1] * x.ndim
    thin[axis] = x.shape[axis]
    positions = np.arange(x.shape[axis]).reshape(thin)
    piece = np.asarray(OPS["split"].kernel(positions, axis=axis, **attrs)).reshape(-1)
    return (int(piece[0]), int(piece[-1]) + 1) if piece.size else (0, 0)


@lowers("split")
def _split(cx, x, axis, num, sections, index):
    lo, hi = split_bounds(cx, x, axis, {"num": num, "sections": sections, "index": index})
    return _m().lax.slice_in_dim(x, lo, hi, axis=axis)


@lowers("unbind")
def _unbind(cx, x, axis, index):
    return _m().lax.index_in_dim(x, index, axis, keepdims=False)


@lowers("diag")
def _diag(cx, x, offset, padding_value):
    jnp = _m().jnp
    if x.ndim == 1:
        n = x.shape[0] + abs(offset)
        idx = np.arange(x.shape[0])
        rows, cols = (idx, idx + offset) if offset >= 0 else (idx - offset, idx)
        return jnp.full((n, n), padding_value, x.dtype).at[rows, cols].set(x)
    return jnp.diagonal(x, offset)
