"""Pooling: max/avg pooling (1-D to 3-D), adaptive pooling, with Paddle's padding forms,
ceil_mode, exclusive and return_mask. Average pooling is a `resample` op; max pooling is one
kernel that also returns the index of each maximum (strided slices for regular windows, a
gather for adaptive ones)."""
from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

from ...runtime.dtype import int64
from ...runtime.ops import scale
from ...runtime.ops.operands import as_tensor
from ...runtime.ops.window_index import window_gather_index
from ...runtime.registry import Meta, apply, classified_as, register_op
from .conv_nd import as_ints, padding_pairs, same_pads
from .dims import known_dims
from .resample import out_len, windows
from .strided_pool import strided_max_applies, strided_window_max

__all__ = ["max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d",
           "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
           "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d"]

_LAYOUTS = {1: ("NCL", "NLC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


# ----------------------------------------------------------------------------- max pooling op
def _spatial_axes(ndim: int, channel_last: bool) -> List[int]:
    return list(range(1, ndim - 1)) if channel_last else list(range(2, ndim))


def _max_pool_infer(x, specs, channel_last):
    shape = list(x._shape)
    for axis, spec in zip(_spatial_axes(len(shape), channel_last), specs):
        shape[axis] = out_len(spec, shape[axis])
    return Meta(tuple(shape), x.dtype), Meta(tuple(shape), int64)


@register_op("max_pool_nd", infer=_max_pool_infer, n_outputs=2)
def _max_pool_kernel(x, specs, channel_last):
    """The maximum of every window and its flat index in the input's spatial dims."""
    xf = np.moveaxis(x, -1, 1) if channel_last else x
    if strided_max_applies(specs, xf.shape[2:]):
        out, mask = strided_window_max(xf, specs)
    else:
        spans = [[(lo, hi) for lo, hi, _ in windows(spec, size)]
                 for spec, size in zip(specs, xf.shape[2:])]
        out, mask = window_max(xf, spans)
    if channel_last:
        out, mask = np.moveaxis(out, 1, -1), np.moveaxis(mask, 1, -1)
    return np.ascontiguousarray(out), np.ascontiguousarray(mask)


def window_max(xf: np.ndarray, spans: List[List[tuple]]):
    """For [N, C, *sizes] input and per spatial axis a list of [lo, hi) windows: the maximum of
    every window product and its flat index in the spatial dims (the first one on ties)."""
    nd = len(spans)
    sizes = xf.shape[2:]
    low = -np.inf if xf.dtype.kind == "f" else np.iinfo(xf.dtype).min
    # one extra slot per axis holding `low`: index -1 (no input position) reads it
    xp = np.pad(xf, ((0, 0), (0, 0)) + ((0, 1),) * nd, constant_values=low)
    index, flat = window_gather_index(spans, sizes)
    vals = xp[(slice(None), slice(None)) + index]          # [N, C, *outs, *ks]
    vals = vals.reshape(vals.shape[:2 + nd] + (-1,))
    best = vals.argmax(axis=-1)[..., None]
    out = np.take_along_axis(vals, best, axis=-1)[..., 0]
    mask = np.take_along_axis(np.broadcast_to(flat, vals.shape), best, axis=-1)[..., 0]
    return out, mask.astype(np.int64)


@register_op("max_pool_grad", infer=lambda g, mask, x, channel_last: Meta(x._shape, g.dtype))
def _max_pool_grad_kernel(g, mask, x, channel_last):
    """g added at the input positions `mask` picked (x gives the shape)."""
    if channel_last:
        g, mask, x = np.moveaxis(g, -1, 1), np.moveaxis(mask, -1, 1), np.moveaxis(x, -1, 1)
    n, c = x.shape[:2]
    area = int(np.prod(x.shape[2:]))
    flat = mask.reshape(n * c, -1) + (np.arange(n * c) * area)[:, None]
    out = np.bincount(flat.ravel(), weights=g.reshape(-1).astype(np.float64), minlength=n * c * area)
    out = out.reshape(x.shape).astype(g.dtype, copy=False)
    return np.ascontiguousarray(np.moveaxis(out, 1, -1) if channel_last else out)


# ----------------------------------------------------------------------------- argument forms
def prepare_pool(op: str, nd: int, x: Any, data_format: str):
    if data_format not in _LAYOUTS[nd]:
        raise ValueError(f"{op}: data_format must be {' or '.join(map(repr, _LAYOUTS[nd]))}, "
                         f"got {data_format!r}")
    x = as_tensor(x)
    shape = known_dims(x)
    if len(shape) != nd + 2:
        raise ValueError(f"{op}: expected a {nd + 2}-D input ({_LAYOUTS[nd][0]} or "
                         f"{_LAYOUTS[nd][1]}), got shape {shape}")
    channel_last = data_format == _LAYOUTS[nd][1]
    return x, channel_last, (shape[1:-1] if channel_last else shape[2:])


def pool_specs(op: str, nd: int, sizes: List[int], kernel_size: Any, stride: Any, padding: Any,
                ceil_mode: bool, exclusive: bool, channel_last: bool) -> List[dict]:
    kernel = as_ints(kernel_size, nd, "kernel_size", op)
    strides = kernel if stride is None else as_ints(stride, nd, "stride", op)
    if isinstance(padding, str):
        mode = padding.upper()
        if mode not in ("SAME", "VALID"):
            raise ValueError(f"{op}: padding must be 'SAME', 'VALID' or numbers, got {padding!r}")
        if mode == "VALID" and ceil_mode:
            raise ValueError(f"{op}: ceil_mode must be False when padding is 'VALID'")
        pads = same_pads(sizes, kernel, strides, op) if mode == "SAME" else [[0, 0]] * nd
    else:
        pads = padding_pairs(padding, nd, channel_last, op)
    if any(k < 1 for k in kernel) or any(s < 1 for s in strides):
        raise ValueError(f"{op}: kernel_size and stride must be positive, got {kernel} and {strides}")
    return [{"kind": "pool", "k": k, "s": s, "lo": lo, "hi": hi, "ceil": bool(ceil_mode),
             "exclusive": bool(exclusive)} for k, s, (lo, hi) in zip(kernel, strides, pads)]


def _adaptive_specs(op: str, nd: int, sizes: List[int], output_size: Any) -> List[dict]:
    outs = [output_size] * nd if output_size is None or isinstance(output_size, int) else list(output_size)
    if len(outs) != nd:
        raise ValueError(f"{op}: output_size must be an int or {nd} values, got {output_size}")
    specs = []
    for o, size in zip(outs, sizes):
        if o is None:
            if size < 0:
                raise ValueError(f"{op}: output_size None keeps an input dim, which is unknown here")
            o = size
        if int(o) < 1:
            raise ValueError(f"{op}: output_size must be positive, got {output_size}")
        specs.append({"kind": "adaptive", "out": int(o)})
    return specs


def avg_pool_op(x: Any, specs: List[dict], channel_last: bool, divisor_override: Any = None) -> Any:
    axes = _spatial_axes(x.ndim, channel_last)
    out = apply("resample", [x], {"axes": axes, "specs": specs})
    if divisor_override is not None:
        if divisor_override <= 0:
            raise ValueError(f"avg_pool: divisor_override must be positive, got {divisor_override}")
        sizes = 1
        for s in specs:
            sizes *= s["k"]
        out = scale(out, sizes / float(divisor_override))
    return out


def max_pool_op(x: Any, specs: List[dict], channel_last: bool, return_mask: bool) -> Any:
    out, mask = apply("max_pool_nd", [x], {"specs": specs, "channel_last": channel_last})
    return (out, mask) if return_mask else out


# ----------------------------------------------------------------------------- public functions
def _max_pool(op, nd, x, kernel_size, stride, padding, return_mask, ceil_mode, data_format):
    x, cl, sizes = prepare_pool(op, nd, x, data_format)
    return max_pool_op(x, pool_specs(op, nd, sizes, kernel_size, stride, padding, ceil_mode, True, cl), cl, return_mask)


def _avg_pool(op, nd, x, kernel_size, stride, padding, ceil_mode, exclusive, divisor_override, data_format):
    x, cl, sizes = prepare_pool(op, nd, x, data_format)
    specs = pool_specs(op, nd, sizes, kernel_size, stride, padding, ceil_mode, exclusive, cl)
    if divisor_override is not None:
        specs = [dict(s, exclusive=False) for s in specs]
    return avg_pool_op(x, specs, cl, divisor_override)


# Paddle computes these with its max_pool2d_with_index kernel, a white op of auto_cast's lists
_WITH_INDEX = "max_pool2d_with_index"


def max_pool1d(x: Any, kernel_size: Any, stride: Any = None, padding: Any = 0, return_mask: bool = False,
               ceil_mode: bool = False, name: Optional[str] = None) -> Any:
    if return_mask:
        with classified_as(_WITH_INDEX):
            return _max_pool("max_pool1d", 1, x, kernel_size, stride, padding, True, ceil_mode, "NCL")
    return _max_pool("max_pool1d", 1, x, kernel_size, stride, padding, return_mask, ceil_mode, "NCL")


def max_pool2d(x: Any, kernel_size: Any, stride: Any = None, padding: Any = 0, return_mask: bool = False,
               ceil_mode: bool = False, data_format: str = "NCHW", name: Optional[str] = None) -> Any:
    if return_mask:
        with classified_as(_WITH_INDEX):
            return _max_pool("max_pool2d", 2, x, kernel_size, stride, padding, True, ceil_mode,
                             data_format)
    return _max_pool("max_pool2d", 2, x, kernel_size, stride, padding, return_mask, ceil_mode, data_format)


def max_pool3d(x: Any, kernel_size: Any, stride: Any = None, padding: Any = 0, return_mask: bool = False,
               ceil_mode: bool = False, data_format: str = "NCDHW", name: Optional[str] = None) -> Any:
    return _max_pool("max_pool3d", 3, x, kernel_size, stride, padding, return_mask, ceil_mode, data_format)


def avg_pool1d(x: Any, kernel_size: Any, stride: Any = None, padding: Any = 0, exclusive: bool = True,
               ceil_mode: bool = False, name: Optional[str] = None) -> Any:
    return _avg_pool("avg_pool1d", 1, x, kernel_size, stride, padding, ceil_mode, exclusive, None, "NCL")


def avg_pool2d(x: Any, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
               exclusive: bool = True, divisor_override: Any = None, data_format: str = "NCHW",
               name: Optional[str] = None) -> Any:
    return _avg_pool("avg_pool2d", 2, x, kernel_size, stride, padding, ceil_mode, exclusive,
                     divisor_override, data_format)


def avg_pool3d(x: Any, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
               exclusive: bool = True, divisor_override: Any = None, data_format: str = "NCDHW",
               name: Optional[str] = None) -> Any:
    return _avg_pool("avg_pool3d", 3, x, kernel_size, stride, padding, ceil_mode, exclusive,
                     divisor_override, data_format)


def _adaptive(op, nd, x, output_size, data_format, kind, return_mask=False):
    x, cl, sizes = prepare_pool(op, nd, x, data_format)
    specs = _adaptive_specs(op, nd, sizes, output_size)
    return avg_pool_op(x, specs, cl) if kind == "avg" else max_pool_op(x, specs, cl, return_mask)


def adaptive_avg_pool1d(x: Any, output_size: Any, name: Optional[str] = None) -> Any:
    return _adaptive("adaptive_avg_pool1d", 1, x, output_size, "NCL", "avg")


def adaptive_avg_pool2d(x: Any, output_size: Any, data_format: str = "NCHW", name: Optional[str] = None) -> Any:
    return _adaptive("adaptive_avg_pool2d", 2, x, output_size, data_format, "avg")


def adaptive_avg_pool3d(x: Any, output_size: Any, data_format: str = "NCDHW", name: Optional[str] = None) -> Any:
    return _adaptive("adaptive_avg_pool3d", 3, x, output_size, data_format, "avg")


@classified_as(_WITH_INDEX)
def adaptive_max_pool1d(x: Any, output_size: Any, return_mask: bool = False, name: Optional[str] = None) -> Any:
    return _adaptive("adaptive_max_pool1d", 1, x, output_size, "NCL", "max", return_mask)


@classified_as(_WITH_INDEX)
def adaptive_max_pool2d(x: Any, output_size: Any, return_mask: bool = False, name: Optional[str] = None) -> Any:
    return _adaptive("adaptive_max_pool2d", 2, x, output_size, "NCHW", "max", return_mask)


def adaptive_max_pool3d(x: Any, output_size: Any, return_mask: bool = False, name: Optional[str] = None) -> Any:
    return _adaptive("adaptive_max_pool3d", 3, x, output_size, "NCDHW", "max", return_mask)
