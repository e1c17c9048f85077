"""Convolution and max-pooling lowerings. A convolution is lax.conv_general_dilated; its input
and filter gradients are the vjp of that same convolution. Max pooling gathers each window (the
window bounds are learnt while compiling from the op's own numpy kernel, run on position grids)
and keeps the maximum and its flat position, as the kernel does."""
from __future__ import annotations

from typing import Any, List, Tuple

import numpy as np

from ...runtime.ops.window_index import window_gather_index
from ...runtime.registry import OPS
from .loader import jax_modules
from .table import lowers

_m = jax_modules


def _first(x: Any, channel_last: bool) -> Any:
    return _m().jnp.moveaxis(x, -1, 1) if channel_last else x


def _last(x: Any, channel_last: bool) -> Any:
    return _m().jnp.moveaxis(x, 1, -1) if channel_last else x


def _conv(x, w, stride, pads, dilation, groups):
    """Cross-correlation of channel-first x [N, C, *S] with w [O, C/groups, *K]."""
    nd = w.ndim - 2
    spatial = "DHW"[-nd:] if nd <= 3 else None
    if spatial is None:
        raise ValueError("convolutions of more than 3 spatial dims")
    dims = ("NC" + spatial, "OI" + spatial, "NC" + spatial)
    return _m().lax.conv_general_dilated(
        x, w.astype(x.dtype), tuple(stride), [tuple(p) for p in pads],
        rhs_dilation=tuple(dilation), dimension_numbers=dims, feature_group_count=groups)


@lowers("conv_nd", "conv2d")
def _conv_nd(cx, x, w, *bias, stride, pads, dilation, groups, channel_last):
    out = _conv(_first(x, channel_last), w, stride, pads, dilation, groups)
    if bias:
        out = out + bias[0].reshape((1, -1) + (1,) * (out.ndim - 2))
    return _last(out, channel_last)


@lowers("conv_nd_input_grad")
def _conv_input_grad(cx, g, w, x, *, stride, pads, dilation, groups, channel_last):
    xf = _first(x, channel_last).astype(g.dtype)
    _, vjp = _m().jax.vjp(lambda v: _conv(v, w, stride, pads, dilation, groups), xf)
    return _last(vjp(_first(g, channel_last))[0], channel_last)


@lowers("conv_nd_filter_grad")
def _conv_filter_grad(cx, x, g, w, *, stride, pads, dilation, groups, channel_last):
    xf = _first(x, channel_last).astype(g.dtype)
    _, vjp = _m().jax.vjp(lambda v: _conv(xf, v, stride, pads, dilation, groups),
                          w.astype(g.dtype))
    return vjp(_first(g, channel_last))[0]


def _window_bounds(specs: Any, sizes: Tuple[int, ...]) -> List[List[Tuple[int, int]]]:
    """Per spatial axis, the [lo, hi) input range of every output position: the pooling
    kernel's maximum over a grid rising along the axis is hi - 1; over a falling one, -lo."""
    kernel = OPS["max_pool_nd"].kernel
    nd = len(sizes)
    bounds = []
    for d in range(nd):
        shape = [1] * nd
        shape[d] = sizes[d]
        grid = np.broadcast_to(np.arange(sizes[d], dtype=np.float64).reshape(shape), sizes)
        grid = np.ascontiguousarray(grid)[None, None]
        last = kernel(grid, specs, False)[0][0, 0]
        first = kernel(-grid, specs, False)[0][0, 0]
        pick = (0,) * d + (slice(None),) + (0,) * (nd - d - 1)
        bounds.append([(int(-a), int(b) + 1) for a, b in zip(first[pick], last[pick])])
    return bounds


@lowers("max_pool_nd")
def _max_pool(cx, x, specs, channel_last):
    jnp = _m().jnp
    xf = _first(x, channel_last)
    sizes = tuple(xf.shape[2:])
    nd = len(sizes)
    bounds = _window_bounds(specs, sizes)
    low = -jnp.inf if np.dtype(xf.dtype).kind == "f" else np.iinfo(np.dtype(xf.dtype)).min
    xp = jnp.pad(xf, ((0, 0), (0, 0)) + ((0, 1),) * nd, constant_values=low)
    index, flat = window_gather_index(bounds, sizes)
    vals = xp[(slice(None), slice(None)) + index]          # [N, C, *outs, *ks]
    vals = vals.reshape(vals.shape[:2 + nd] + (-1,))
    best = jnp.argmax(vals, axis=-1)
    out = jnp.max(vals, axis=-1)
    mask = jnp.take_along_axis(jnp.broadcast_to(jnp.asarray(flat), vals.shape), best[..., None],
                               axis=-1)[..., 0]
    return _last(out, channel_last), _last(mask.astype(jnp.int64), channel_last)


@lowers("max_pool_grad")
def _max_pool_grad(cx, g, mask, x, channel_last):
    jnp = _m().jnp
    g, mask, xf = _first(g, channel_last), _first(mask, channel_last), _first(x, channel_last)
    n, c = xf.shape[:2]
    area = int(np.prod(xf.shape[2:]))
    rows = jnp.arange(n * c)[:, None]
    out = jnp.zeros((n * c, area), g.dtype).at[rows, mask.reshape(n * c, -1)].add(
        g.reshape(n * c, -1))
    return _last(out.reshape(xf.shape), channel_last)
