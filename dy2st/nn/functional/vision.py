"""Image resampling and rearranging: interpolate/upsample (a `resample` op), pixel_shuffle,
pixel_unshuffle, channel_shuffle, unfold/fold (convolutions with one-hot kernels) and
affine_grid; grid_sample lives in grid_sample.py."""
from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

from ...runtime import ops
from ...runtime.dtype import int64
from ...runtime.ops.operands import as_tensor, cast
from ...runtime.program import Variable
from ...runtime.registry import apply
from ...runtime.tensor import Tensor
from .conv import conv_any
from .conv_nd import as_ints
from .dims import known_dims

__all__ = ["interpolate", "upsample", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "unfold",
           "fold", "affine_grid"]

_FORMATS = {3: ("NCW", "NWC"), 4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}
_MODES = {"nearest": (3, 4, 5), "linear": (3,), "bilinear": (4,), "trilinear": (5,), "bicubic": (4,),
          "area": (3, 4, 5)}


def _values(v: Any) -> Any:
    """A size / scale argument as Python numbers (eager tensors are read)."""
    if isinstance(v, Tensor):
        return v.numpy().reshape(-1).tolist()
    if isinstance(v, (list, tuple)):
        return [x.item() if isinstance(x, Tensor) else x for x in v]
    return v


def interpolate(x: Any, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                align_corners: bool = False, align_mode: int = 0, data_format: Optional[str] = None,
                recompute_scale_factor: Optional[bool] = None, name: Optional[str] = None) -> Any:
    """Resize the spatial dims of x to `size` or by `scale_factor` (Paddle's index formulas)."""
    x = as_tensor(x)
    mode = mode.lower()
    nd = x.ndim
    if mode not in _MODES:
        raise ValueError(f"interpolate: mode must be one of {list(_MODES)}, got {mode!r}")
    if nd not in _MODES[mode]:
        raise ValueError(f"interpolate: mode {mode!r} needs a {' or '.join(f'{r}-D' for r in _MODES[mode])} "
                         f"input, got shape {known_dims(x)}")
    data_format = data_format or _FORMATS[nd][0]
    aliases = {"NCL": "NCW", "NLC": "NWC"}
    data_format = aliases.get(data_format, data_format)
    if data_format not in _FORMATS[nd]:
        raise ValueError(f"interpolate: data_format for a {nd}-D input must be "
                         f"{' or '.join(map(repr, _FORMATS[nd]))}, got {data_format!r}")
    if align_corners and mode == "nearest":      # (Paddle lets 'area' ignore it)
        raise ValueError("interpolate: align_corners can only be set with the linear, bilinear, "
                         "trilinear and bicubic modes")
    if align_mode not in (0, 1):
        raise ValueError(f"interpolate: align_mode must be 0 or 1, got {align_mode}")
    if (size is None) == (scale_factor is None):
        raise ValueError("interpolate: give exactly one of size and scale_factor")
    channel_last = data_format == _FORMATS[nd][1]
    axes = list(range(1, nd - 1)) if channel_last else list(range(2, nd))
    sizes = [known_dims(x)[a] for a in axes]
    k = len(axes)
    outs: List[Any]
    scales: List[Any] = [None] * k
    dyn: List[Any] = []       # output sizes known only at run time (tensors while tracing)
    if size is not None:
        if isinstance(size, Variable):
            if len(size._shape) != 1 or size._shape[0] not in (k, -1):
                raise ValueError(f"interpolate: a size tensor must have shape [{k}], got {list(size._shape)}")
            size = [size[i] for i in range(k)]
        outs = _values(size)
        outs = [outs] * k if isinstance(outs, (int, np.integer)) else list(outs)
        if len(outs) != k:
            raise ValueError(f"interpolate: size must be {k} positive ints, got {size}")
        for i, o in enumerate(outs):
            if isinstance(o, Variable):
                dyn.append(o)
                outs[i] = None
            elif int(o) < 1:
                raise ValueError(f"interpolate: size must be {k} positive ints, got {size}")
            else:
                outs[i] = int(o)
    else:
        sf = _values(scale_factor)
        sf = [sf] * k if isinstance(sf, (int, float)) else list(sf)
        if len(sf) != k or any(float(s) <= 0 for s in sf):
            raise ValueError(f"interpolate: scale_factor must be positive, one per spatial dim, got {scale_factor}")
        outs = [None] * k
        scales = [float(s) for s in sf]
        if recompute_scale_factor:
            if any(s < 0 for s in sizes):
                raise ValueError("interpolate: recompute_scale_factor needs known spatial dims")
            outs, scales = [int(n * s) for n, s in zip(sizes, scales)], [None] * k
    if mode == "area":
        if dyn:
            raise ValueError("interpolate: mode 'area' needs sizes known when the program is built")
        if outs[0] is None:
            outs = [int(n * s) if n >= 0 else -1 for n, s in zip(sizes, scales)]
        if any(o < 1 for o in outs):
            raise ValueError("interpolate: mode 'area' with scale_factor needs known spatial dims")
        specs = [{"kind": "adaptive", "out": o} for o in outs]
    else:
        kind = {"nearest": "nearest", "bicubic": "cubic"}.get(mode, "linear")
        specs = [{"kind": kind, "out": o, "scale": s, "align_corners": bool(align_corners),
                  "align_mode": int(align_mode)} for o, s in zip(outs, scales)]
        j = 0
        for spec in specs:
            if spec["out"] is None and spec["scale"] is None:
                spec["out_input"] = j
                j += 1
    return apply("resample", [x] + [cast(d, int64) for d in dyn], {"axes": axes, "specs": specs})


def upsample(x: Any, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
             align_corners: bool = False, align_mode: int = 0, data_format: Optional[str] = None,
             name: Optional[str] = None) -> Any:
    return interpolate(x, size, scale_factor, mode, align_corners, align_mode, data_format)


# ----------------------------------------------------------------------------- rearranging
def _check4(x: Any, data_format: str, op: str) -> Any:
    x = as_tensor(x)
    if x.ndim != 4:
        raise ValueError(f"{op}: expected a 4-D input, got shape {known_dims(x)}")
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"{op}: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
    return x


def pixel_shuffle(x: Any, upscale_factor: int, data_format: str = "NCHW", name: Optional[str] = None) -> Any:
    """[N, C*r*r, H, W] -> [N, C, H*r, W*r]."""
    x = _check4(x, data_format, "pixel_shuffle")
    r = int(upscale_factor)
    n, *rest = x.shape
    if data_format == "NCHW":
        c, h, w = rest
        if isinstance(c, int) and c % (r * r):
            raise ValueError(f"pixel_shuffle: {c} channels are not divisible by upscale_factor**2 = {r * r}")
        y = ops.transpose(ops.reshape(x, [n, c // (r * r), r, r, h, w]), [0, 1, 4, 2, 5, 3])
        return ops.reshape(y, [n, c // (r * r), h * r, w * r])
    h, w, c = rest
    if isinstance(c, int) and c % (r * r):
        raise ValueError(f"pixel_shuffle: {c} channels are not divisible by upscale_factor**2 = {r * r}")
    y = ops.transpose(ops.reshape(x, [n, h, w, c // (r * r), r, r]), [0, 1, 4, 2, 5, 3])
    return ops.reshape(y, [n, h * r, w * r, c // (r * r)])


def pixel_unshuffle(x: Any, downscale_factor: int, data_format: str = "NCHW", name: Optional[str] = None) -> Any:
    """[N, C, H*r, W*r] -> [N, C*r*r, H, W] (the inverse of pixel_shuffle)."""
    x = _check4(x, data_format, "pixel_unshuffle")
    r = int(downscale_factor)
    n, *rest = x.shape
    if data_format == "NCHW":
        c, h, w = rest
        _divisible(h, w, r)
        y = ops.transpose(ops.reshape(x, [n, c, h // r, r, w // r, r]), [0, 1, 3, 5, 2, 4])
        return ops.reshape(y, [n, c * r * r, h // r, w // r])
    h, w, c = rest
    _divisible(h, w, r)
    y = ops.transpose(ops.reshape(x, [n, h // r, r, w // r, r, c]), [0, 1, 3, 5, 2, 4])
    return ops.reshape(y, [n, h // r, w // r, c * r * r])


def _divisible(h: Any, w: Any, r: int) -> None:
    for d in (h, w):
        if isinstance(d, int) and d % r:
            raise ValueError(f"pixel_unshuffle: spatial dims {h}, {w} are not divisible by {r}")


def channel_shuffle(x: Any, groups: int, data_format: str = "NCHW", name: Optional[str] = None) -> Any:
    """Interleave the channels of `groups` groups."""
    x = _check4(x, data_format, "channel_shuffle")
    g = int(groups)
    n, *rest = x.shape
    c = rest[0] if data_format == "NCHW" else rest[2]
    if isinstance(c, int) and c % g:
        raise ValueError(f"channel_shuffle: {c} channels are not divisible by groups={g}")
    if data_format == "NCHW":
        y = ops.transpose(ops.reshape(x, [n, g, c // g, rest[1], rest[2]]), [0, 2, 1, 3, 4])
    else:
        y = ops.transpose(ops.reshape(x, [n, rest[0], rest[1], g, c // g]), [0, 1, 2, 4, 3])
    return ops.reshape(y, x.shape)


# ----------------------------------------------------------------------------- unfold / fold
def _unfold_args(kernel_sizes: Any, strides: Any, paddings: Any, dilations: Any, op: str):
    k = as_ints(kernel_sizes, 2, "kernel_sizes", op)
    s, d = as_ints(strides, 2, "strides", op), as_ints(dilations, 2, "dilations", op)
    p = [int(paddings)] * 4 if isinstance(paddings, int) else [int(v) for v in paddings]
    if len(p) == 2:
        p = [p[0], p[1], p[0], p[1]]
    if len(p) != 4:
        raise ValueError(f"{op}: paddings must be an int, 2 or 4 ints, got {paddings}")
    # Paddle's order is [top, left, bottom, right]
    return k, s, [p[0], p[2], p[1], p[3]], d


def _one_hot_kernel(c: int, k: List[int], dtype: Any) -> Tensor:
    kk = k[0] * k[1]
    w = np.tile(np.eye(kk).reshape(kk, 1, k[0], k[1]), (c, 1, 1, 1))
    return Tensor(w.astype(dtype.np))


def unfold(x: Any, kernel_sizes: Any, strides: Any = 1, paddings: Any = 0, dilations: Any = 1,
           name: Optional[str] = None) -> Any:
    """Sliding blocks of x [N, C, H, W] as columns: [N, C*kh*kw, L]."""
    x = as_tensor(x)
    if x.ndim != 4:
        raise ValueError(f"unfold: expected a 4-D input, got shape {known_dims(x)}")
    k, s, p, d = _unfold_args(kernel_sizes, strides, paddings, dilations, "unfold")
    c = known_dims(x)[1]
    if c < 0:
        raise ValueError("unfold: the channel dim must be known")
    cols = conv_any("unfold", 2, x, _one_hot_kernel(c, k, x.dtype), None, s, p, d, c, "NCHW")
    return ops.reshape(cols, [0, c * k[0] * k[1], -1])


def fold(x: Any, output_sizes: Any, kernel_sizes: Any, strides: Any = 1, paddings: Any = 0,
         dilations: Any = 1, name: Optional[str] = None) -> Any:
    """Sum columns [N, C*kh*kw, L] back into an image [N, C, H, W] (the adjoint of unfold)."""
    x = as_tensor(x)
    if x.ndim != 3:
        raise ValueError(f"fold: expected a 3-D input, got shape {known_dims(x)}")
    out = as_ints(output_sizes, 2, "output_sizes", "fold")
    k, s, p, d = _unfold_args(kernel_sizes, strides, paddings, dilations, "fold")
    ck = known_dims(x)[1]
    if ck < 0 or ck % (k[0] * k[1]):
        raise ValueError(f"fold: the input's dim 1 ({ck}) must be a multiple of kh*kw = {k[0] * k[1]}")
    c = ck // (k[0] * k[1])
    oh, ow = [(o + p[2 * i] + p[2 * i + 1] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i, o in enumerate(out)]
    if oh * ow != known_dims(x)[2] and known_dims(x)[2] >= 0:
        raise ValueError(f"fold: {known_dims(x)[2]} blocks do not match output_sizes {out} "
                         f"(expected {oh} x {ow})")
    cols = ops.reshape(x, [0, ck, oh, ow])
    like = ops.zeros([x.shape[0], c, out[0], out[1]], dtype=x.dtype)
    attrs = {"stride": s, "pads": [p[:2], p[2:]], "dilation": d, "groups": c, "channel_last": False}
    return apply("conv_nd_input_grad", [cols, _one_hot_kernel(c, k, x.dtype), like], attrs)


# ----------------------------------------------------------------------------- affine_grid
def _base_coords(n: int, align_corners: bool) -> np.ndarray:
    if align_corners:
        return np.linspace(-1.0, 1.0, n) if n > 1 else np.zeros(1)
    return (2.0 * np.arange(n) + 1.0) / n - 1.0


def affine_grid(theta: Any, out_shape: Any, align_corners: bool = True, name: Optional[str] = None) -> Any:
    """Sampling grids [N, H, W, 2] (or [N, D, H, W, 3]) of theta [N, 2, 3] (or [N, 3, 4])."""
    theta = as_tensor(theta)
    if isinstance(out_shape, Tensor):
        out_shape = _values(out_shape)
    if not isinstance(out_shape, (list, tuple)):
        raise TypeError(f"affine_grid: out_shape must be a list of ints, got {type(out_shape).__name__}")
    # the batch dim comes from theta (it may be unknown, e.g. x.shape[0] while tracing)
    shape = [0] + [int(v.item() if isinstance(v, Tensor) else v) for v in list(out_shape)[1:]]
    if len(shape) == 4 and known_dims(theta)[1:] == [2, 3]:
        h, w = shape[2:]
        ys, xs = np.meshgrid(_base_coords(h, align_corners), _base_coords(w, align_corners), indexing="ij")
        base = np.stack([xs, ys, np.ones_like(xs)], -1).reshape(1, h * w, 3)
        grid_shape = [0, h, w, 2]
    elif len(shape) == 5 and known_dims(theta)[1:] == [3, 4]:
        d, h, w = shape[2:]
        zs, ys, xs = np.meshgrid(_base_coords(d, align_corners), _base_coords(h, align_corners),
                                 _base_coords(w, align_corners), indexing="ij")
        base = np.stack([xs, ys, zs, np.ones_like(xs)], -1).reshape(1, d * h * w, 4)
        grid_shape = [0, d, h, w, 3]
    else:
        raise ValueError(f"affine_grid: theta [N, 2, 3] needs out_shape [N, C, H, W] and theta "
                         f"[N, 3, 4] needs [N, C, D, H, W]; got theta {known_dims(theta)} and {shape}")
    grid = ops.matmul(Tensor(base.astype(theta.dtype.np)), theta, transpose_y=True)
    return ops.reshape(grid, grid_shape)
