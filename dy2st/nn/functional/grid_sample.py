"""grid_sample: sample x [N, C, H, W] at normalised grid points [N, Ho, Wo, 2] (bilinear or
nearest; zeros, border or reflection padding), with a kernel that also gives both gradients."""
from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

from ...runtime.ops.operands import as_tensor, cast
from ...runtime.registry import Meta, apply, register_op
from .dims import known_dims

__all__ = ["grid_sample"]


def _reflect(c: np.ndarray, lo: float, hi: float) -> Tuple[np.ndarray, np.ndarray]:
    """c reflected into [lo, hi] and its derivative (+1 or -1)."""
    span = hi - lo
    if span <= 0:
        return np.zeros_like(c), np.zeros_like(c)
    d = c - lo
    sign = np.where(d < 0, -1.0, 1.0)
    d = np.abs(d)
    flips = np.floor(d / span)
    extra = d - flips * span
    even = (flips % 2) == 0
    return np.where(even, extra + lo, span - extra + lo), sign * np.where(even, 1.0, -1.0)


def _source(g: np.ndarray, size: int, padding_mode: str, align_corners: bool):
    """Pixel coordinates of normalised grid values g along an axis of `size`, and d coord / d g."""
    if align_corners:
        c, dc = (g + 1.0) / 2.0 * (size - 1), np.full_like(g, (size - 1) / 2.0)
    else:
        c, dc = ((g + 1.0) * size - 1.0) / 2.0, np.full_like(g, size / 2.0)
    if padding_mode == "border":
        inside = (c > 0) & (c < size - 1)
        return np.clip(c, 0, size - 1), dc * inside
    if padding_mode == "reflection":
        if align_corners:
            c, sign = _reflect(c, 0.0, size - 1.0)
        else:
            c, sign = _reflect(c, -0.5, size - 0.5)
        inside = (c > 0) & (c < size - 1)
        return np.clip(c, 0, size - 1), dc * sign * inside
    return c, dc


def _corners(x: np.ndarray, iy: np.ndarray, ix: np.ndarray):
    """x at integer positions (zero outside): [N, C, Ho, Wo]."""
    n, c, h, w = x.shape
    valid = (ix >= 0) & (ix < w) & (iy >= 0) & (iy < h)
    yc, xc = np.clip(iy, 0, h - 1), np.clip(ix, 0, w - 1)
    batch = np.arange(n)[:, None, None]
    vals = x[batch, :, yc, xc]                          # [N, Ho, Wo, C]
    return np.moveaxis(vals, -1, 1) * valid[:, None], valid, yc, xc


def _sample(x, grid, mode, padding_mode, align_corners, g=None):
    h, w = x.shape[2:]
    ix, dix = _source(grid[..., 0].astype(np.float64), w, padding_mode, align_corners)
    iy, diy = _source(grid[..., 1].astype(np.float64), h, padding_mode, align_corners)
    if mode == "nearest":
        vals, valid, yc, xc = _corners(x, np.rint(iy).astype(np.int64), np.rint(ix).astype(np.int64))
        if g is None:
            return vals
        dx = np.zeros(x.shape, dtype=np.float64)
        _scatter(dx, g * valid[:, None], yc, xc)
        return dx, np.zeros(grid.shape)
    x0, y0 = np.floor(ix).astype(np.int64), np.floor(iy).astype(np.int64)
    wx1, wy1 = ix - x0, iy - y0
    wx0, wy0 = 1.0 - wx1, 1.0 - wy1
    corners = [(y0, x0, wy0 * wx0), (y0, x0 + 1, wy0 * wx1), (y0 + 1, x0, wy1 * wx0), (y0 + 1, x0 + 1, wy1 * wx1)]
    if g is None:
        return sum(_corners(x, cy, cx)[0] * wt[:, None] for cy, cx, wt in corners)
    dx = np.zeros(x.shape, dtype=np.float64)
    v = {}
    for (cy, cx, wt), key in zip(corners, ("00", "01", "10", "11")):
        vals, valid, yc, xc = _corners(x, cy, cx)
        v[key] = vals
        _scatter(dx, g * (wt * valid)[:, None], yc, xc)
    gsum_x = (g * ((v["01"] - v["00"]) * wy0[:, None] + (v["11"] - v["10"]) * wy1[:, None])).sum(1)
    gsum_y = (g * ((v["10"] - v["00"]) * wx0[:, None] + (v["11"] - v["01"]) * wx1[:, None])).sum(1)
    dgrid = np.stack([gsum_x * dix, gsum_y * diy], axis=-1)
    return dx, dgrid


def _scatter(dx: np.ndarray, contrib: np.ndarray, yc: np.ndarray, xc: np.ndarray) -> None:
    n, c, h, w = dx.shape
    flat = (np.arange(n)[:, None, None] * h + yc) * w + xc            # [N, Ho, Wo]
    for ch in range(c):
        plane = np.bincount(flat.ravel(), weights=contrib[:, ch].ravel(), minlength=n * h * w)
        dx[:, ch] += plane.reshape(n, h, w)


def _infer(x, grid, mode, padding_mode, align_corners):
    return Meta((x._shape[0], x._shape[1], grid._shape[1], grid._shape[2]), x.dtype)


@register_op("grid_sample", infer=_infer)
def _grid_sample_kernel(x, grid, mode, padding_mode, align_corners):
    return _sample(x, grid, mode, padding_mode, align_corners).astype(x.dtype, copy=False)


@register_op("grid_sample_grad", n_outputs=2,
             infer=lambda g, x, grid, **a: (Meta(x._shape, g.dtype), Meta(grid._shape, g.dtype)))
def _grid_sample_grad_kernel(g, x, grid, mode, padding_mode, align_corners):
    """The gradients of grid_sample in x and in grid."""
    dx, dgrid = _sample(x, grid, mode, padding_mode, align_corners, g=g.astype(np.float64))
    return dx.astype(g.dtype, copy=False), dgrid.astype(g.dtype, copy=False)


def grid_sample(x: Any, grid: Any, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool = True, name: Optional[str] = None) -> Any:
    """out[n, c, i, j] = x[n, c] sampled at grid[n, i, j] = (x, y) in [-1, 1]."""
    x = as_tensor(x)
    grid = cast(as_tensor(grid), x.dtype)
    if mode not in ("bilinear", "nearest"):
        raise ValueError(f"grid_sample: mode must be 'bilinear' or 'nearest', got {mode!r}")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"grid_sample: padding_mode must be 'zeros', 'border' or 'reflection', "
                         f"got {padding_mode!r}")
    xs, gs = known_dims(x), known_dims(grid)
    if len(xs) != 4 or len(gs) != 4 or gs[3] != 2:
        raise ValueError(f"grid_sample: expected x [N, C, H, W] and grid [N, H_out, W_out, 2], got "
                         f"shapes {xs} and {gs} (5-D inputs are not supported)")
    return apply("grid_sample", [x, grid], {"mode": mode, "padding_mode": padding_mode,
                                            "align_corners": bool(align_corners)})
