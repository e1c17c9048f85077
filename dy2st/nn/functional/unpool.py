"""max_unpool1d/2d/3d (the values of a max pooling put back where its mask says) and
lp_pool1d/2d (the p-norm of every window)."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...runtime import ops
from ...runtime.ops.operands import as_tensor
from ...runtime.registry import Meta, apply, register_op
from .conv_nd import as_ints, padding_pairs
from .dims import known_dims
from .pooling import avg_pool_op, max_pool_op, pool_specs, prepare_pool

__all__ = ["max_unpool1d", "max_unpool2d", "max_unpool3d", "lp_pool1d", "lp_pool2d"]


@register_op("mask_gather", infer=lambda g, mask, channel_last: Meta(mask._shape, g.dtype))
def _mask_gather_kernel(g, mask, channel_last):
    """g read at the flat spatial positions `mask` (per sample and channel)."""
    if channel_last:
        g, mask = np.moveaxis(g, -1, 1), np.moveaxis(mask, -1, 1)
    n, c = g.shape[:2]
    out = np.take_along_axis(g.reshape(n, c, -1), mask.reshape(n, c, -1), axis=-1).reshape(mask.shape)
    return np.ascontiguousarray(np.moveaxis(out, 1, -1) if channel_last else out)


def _unpool(op: str, nd: int, x: Any, indices: Any, kernel_size: Any, stride: Any, padding: Any,
            data_format: str, output_size: Any) -> Any:
    x, channel_last, sizes = prepare_pool(op, nd, x, data_format)
    indices = as_tensor(indices)
    if known_dims(indices) != known_dims(x) and -1 not in known_dims(x) + known_dims(indices):
        raise ValueError(f"{op}: indices {known_dims(indices)} must have the shape of x {known_dims(x)}")
    kernel = as_ints(kernel_size, nd, "kernel_size", op)
    strides = kernel if stride is None else as_ints(stride, nd, "stride", op)
    pads = padding_pairs(padding, nd, channel_last, op)
    default = [(s - 1) * st - lo - hi + k if s >= 0 else -1
               for s, st, (lo, hi), k in zip(sizes, strides, pads, kernel)]
    if output_size is None:
        outs = default
        if -1 in outs:
            raise ValueError(f"{op}: the output size needs known spatial dims (or give output_size)")
    else:
        outs = [int(v) for v in list(output_size)[-nd:]]
        for o, d, st in zip(outs, default, strides):
            if d >= 0 and not d - st < o < d + st:
                raise ValueError(f"{op}: output_size {outs} must be within a stride of {default}")
    n = x.shape[0]
    c = known_dims(x)[-1 if channel_last else 1]
    like = ops.zeros([n] + outs + [c] if channel_last else [n, c] + outs, dtype=x.dtype)
    return apply("max_pool_grad", [x, ops.cast(indices, "int64"), like], {"channel_last": channel_last})


def max_unpool1d(x: Any, indices: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 data_format: str = "NCL", output_size: Any = None, name: Optional[str] = None) -> Any:
    return _unpool("max_unpool1d", 1, x, indices, kernel_size, stride, padding, data_format, output_size)


def max_unpool2d(x: Any, indices: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 data_format: str = "NCHW", output_size: Any = None, name: Optional[str] = None) -> Any:
    return _unpool("max_unpool2d", 2, x, indices, kernel_size, stride, padding, data_format, output_size)


def max_unpool3d(x: Any, indices: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 data_format: str = "NCDHW", output_size: Any = None, name: Optional[str] = None) -> Any:
    return _unpool("max_unpool3d", 3, x, indices, kernel_size, stride, padding, data_format, output_size)


def _lp_pool(op: str, nd: int, x: Any, norm_type: float, kernel_size: Any, stride: Any, padding: Any,
             ceil_mode: bool, data_format: str) -> Any:
    x, channel_last, sizes = prepare_pool(op, nd, x, data_format)
    p = float(norm_type)
    if p <= 0:
        raise ValueError(f"{op}: norm_type must be positive, got {norm_type}")
    specs = pool_specs(op, nd, sizes, kernel_size, stride, padding, ceil_mode, False, channel_last)
    if np.isinf(p):
        return max_pool_op(x, specs, channel_last, False)
    # sum over the window = non-exclusive mean times the kernel size
    size = float(np.prod([s["k"] for s in specs]))
    return ops.pow(avg_pool_op(ops.pow(x, p), specs, channel_last) * size, 1.0 / p)


def lp_pool1d(x: Any, norm_type: float, kernel_size: Any, stride: Any = None, padding: Any = 0,
              ceil_mode: bool = False, data_format: str = "NCL", name: Optional[str] = None) -> Any:
    """(sum of x**p over each window) ** (1/p); the maximum for p = inf."""
    return _lp_pool("lp_pool1d", 1, x, norm_type, kernel_size, stride, padding, ceil_mode, data_format)


def lp_pool2d(x: Any, norm_type: float, kernel_size: Any, stride: Any = None, padding: Any = 0,
              ceil_mode: bool = False, data_format: str = "NCHW", name: Optional[str] = None) -> Any:
    """(sum of x**p over each window) ** (1/p); the maximum for p = inf."""
    return _lp_pool("lp_pool2d", 2, x, norm_type, kernel_size, stride, padding, ceil_mode, data_format)
