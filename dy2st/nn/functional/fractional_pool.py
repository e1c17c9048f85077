"""Fractional max pooling (Graham, 2015) as Paddle defines it: pseudo-random windows from one
number u in (0, 1), one kernel returning each window's maximum and its flat index; the gradient
is max pooling's (g added where the mask points)."""
from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

from ...runtime.dtype import dtype_name, int64
from ...runtime.ops.operands import as_tensor
from ...runtime.ops.random import uniform
from ...runtime.registry import Meta, apply, register_op
from .conv_nd import as_ints
from .dims import known_dims
from .pooling import window_max

__all__ = ["fractional_max_pool2d", "fractional_max_pool3d"]


def fractional_spans(size: int, out: int, kernel: int, u: float) -> List[tuple]:
    """The [lo, hi) input window of each of the `out` positions along one axis (Paddle's
    sequence: alpha = (size - kernel) / (out - [kernel > 0]); without a kernel u is first scaled
    so that every window stays inside the input). Computed in float32, as Paddle's kernel."""
    f32 = np.float32
    alpha = f32(size - kernel) / f32(out - (1 if kernel > 0 else 0))
    u = f32(u)
    if kernel <= 0:
        base = size // out
        u_max = min(f32(base + 2) / alpha - f32(1), f32(size + 1 - base) / alpha - f32(out - 1))
        u = u * f32(u_max)
    shift = int(u * alpha)
    spans = []
    for i in range(out):
        lo = int((f32(i) + u) * alpha) - shift
        hi = lo + kernel if kernel > 0 else int((f32(i + 1) + u) * alpha) - shift
        spans.append((max(lo, 0), min(hi, size)))
    return spans


def _infer(x, u, output_size, kernel_size):
    shape = tuple(x._shape[:2]) + tuple(output_size)
    return Meta(shape, x.dtype), Meta(shape, int64)


@register_op("fractional_max_pool_nd", infer=_infer, n_outputs=2)
def _fractional_max_pool_kernel(x, u, output_size, kernel_size):
    """The maximum of every fractional window of the [N, C, *spatial] input and its flat index."""
    u = float(np.asarray(u).reshape(-1)[0])
    spans = [fractional_spans(size, out, k, u)
             for size, out, k in zip(x.shape[2:], output_size, kernel_size)]
    out, mask = window_max(x, spans)
    return np.ascontiguousarray(out), np.ascontiguousarray(mask)


def _fractional(op: str, nd: int, x: Any, output_size: Any, kernel_size: Any, random_u: Any,
                return_mask: bool) -> Any:
    x = as_tensor(x)
    shape = known_dims(x)
    if len(shape) != nd + 2:
        raise ValueError(f"{op}: expected a {nd + 2}-D input ({'NCHW' if nd == 2 else 'NCDHW'}), "
                         f"got shape {shape}")
    if not x.dtype.is_floating:
        raise TypeError(f"{op}: x must be a float tensor, got {dtype_name(x.dtype)}")
    outs = [output_size] * nd if isinstance(output_size, (int, np.integer)) else list(output_size)
    if len(outs) != nd:
        raise ValueError(f"{op}: output_size must be an int or {nd} values, got {output_size}")
    kernel = [0] * nd if kernel_size is None else as_ints(kernel_size, nd, "kernel_size", op)
    sizes = shape[2:]
    for d, (o, size, k) in enumerate(zip(outs, sizes, kernel)):
        if o is None:
            if size < 0:
                raise ValueError(f"{op}: output_size None keeps an input dim, which is unknown here")
            outs[d] = o = size
        if int(o) < 1 or k < 0:
            raise ValueError(f"{op}: output_size must be positive and kernel_size non-negative, "
                             f"got output_size={output_size}, kernel_size={kernel_size}")
        if size < 0:
            raise ValueError(f"{op}: the spatial dims of x must be known when the program is "
                             f"built, got shape {shape}")
        if k > 0 and (size < int(o) - 1 + k or int(o) < 2):
            raise ValueError(f"{op}: input size {size} is less than output_size - 1 + kernel_size "
                             f"= {int(o) - 1 + k} (and output_size must be >= 2 with a kernel)")
        if k == 0 and int(o) > size:
            raise ValueError(f"{op}: output_size {outs} must not exceed the input's spatial "
                             f"size {sizes}")
    outs = [int(o) for o in outs]
    if random_u is None:
        u = uniform([1], "float32", 0.0, 1.0)
    else:
        if not 0.0 < float(random_u) < 1.0:
            raise ValueError(f"{op}: random_u must be in (0, 1), got {random_u}")
        u = as_tensor(np.array([float(random_u)], np.float32))
    out, mask = apply("fractional_max_pool_nd", [x, u],
                      {"output_size": outs, "kernel_size": kernel})
    return (out, mask) if return_mask else out


def fractional_max_pool2d(x: Any, output_size: Any, kernel_size: Any = None, random_u: Any = None,
                          return_mask: bool = False, name: Optional[str] = None) -> Any:
    """2-D fractional max pooling of an NCHW input to `output_size` (an int or [H, W]; None keeps
    that dim); kernel_size (optional) gives overlapping windows of that size; random_u in (0, 1)
    fixes the pseudo-random windows (drawn per call when None)."""
    return _fractional("fractional_max_pool2d", 2, x, output_size, kernel_size, random_u,
                       return_mask)


def fractional_max_pool3d(x: Any, output_size: Any, kernel_size: Any = None, random_u: Any = None,
                          return_mask: bool = False, name: Optional[str] = None) -> Any:
    """3-D fractional max pooling of an NCDHW input (see fractional_max_pool2d)."""
    return _fractional("fractional_max_pool3d", 3, x, output_size, kernel_size, random_u,
                       return_mask)
