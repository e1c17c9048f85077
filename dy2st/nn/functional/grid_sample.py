"""grid_sample: sample x [N, C, H, W] (or [N, C, D, H, W]) at normalised grid points [N, Ho, Wo, 2]
(or [N, Do, Ho, Wo, 3]); bilinear/trilinear or nearest; zeros, border or reflection padding; one
kernel also gives both gradients."""
from __future__ import annotations

import itertools
from typing import Any, Optional, Sequence, Tuple

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


def _corners(x: np.ndarray, idx: Sequence[np.ndarray]):
    """x at integer positions idx (one array per spatial dim, zero outside): [N, C, *out]."""
    sizes = x.shape[2:]
    valid = np.ones(idx[0].shape, dtype=bool)
    for i, n in zip(idx, sizes):
        valid &= (i >= 0) & (i < n)
    clipped = [np.clip(i, 0, n - 1) for i, n in zip(idx, sizes)]
    batch = np.arange(x.shape[0]).reshape((-1,) + (1,) * (idx[0].ndim - 1))
    vals = x[(batch, slice(None)) + tuple(clipped)]           # [N, *out, C]
    return np.moveaxis(vals, -1, 1) * valid[:, None], valid, clipped


def _sample(x, grid, mode, padding_mode, align_corners, g=None):
    nd = x.ndim - 2
    sizes = x.shape[2:]
    # grid's last axis is (x, y[, z]): x indexes the last spatial dim
    coords, dcoords = [], []
    for d in range(nd):
        c, dc = _source(grid[..., nd - 1 - d].astype(np.float64), sizes[d], padding_mode, align_corners)
        coords.append(c)
        dcoords.append(dc)
    if mode == "nearest":
        vals, valid, clipped = _corners(x, [np.rint(c).astype(np.int64) for c in coords])
        if g is None:
            return vals
        dx = np.zeros(x.shape, dtype=np.float64)
        _scatter(dx, g * valid[:, None], clipped)
        return dx, np.zeros(grid.shape)
    base = [np.floor(c).astype(np.int64) for c in coords]
    frac = [c - b for c, b in zip(coords, base)]
    out = 0.0
    dx = np.zeros(x.shape, dtype=np.float64) if g is not None else None
    dgrid = [np.zeros(grid.shape[:-1]) for _ in range(nd)]
    for bits in itertools.product((0, 1), repeat=nd):
        ws = [f if b else 1.0 - f for f, b in zip(frac, bits)]
        weight = np.prod(ws, axis=0)
        vals, valid, clipped = _corners(x, [b + bit for b, bit in zip(base, bits)])
        if g is None:
            out = out + vals * weight[:, None]
            continue
        _scatter(dx, g * (weight * valid)[:, None], clipped)
        gv = (g * vals).sum(1)
        for d in range(nd):
            others = np.prod([w for i, w in enumerate(ws) if i != d], axis=0) if nd > 1 else 1.0
            dgrid[d] += gv * others * (1.0 if bits[d] else -1.0)
    if g is None:
        return out
    return dx, np.stack([dgrid[nd - 1 - j] * dcoords[nd - 1 - j] for j in range(nd)], axis=-1)


def _scatter(dx: np.ndarray, contrib: np.ndarray, clipped: Sequence[np.ndarray]) -> None:
    n, c = dx.shape[:2]
    sizes = dx.shape[2:]
    flat = np.arange(n).reshape((-1,) + (1,) * (clipped[0].ndim - 1))
    for i, size in zip(clipped, sizes):
        flat = flat * size + i
    area = n * int(np.prod(sizes))
    for ch in range(c):
        plane = np.bincount(flat.ravel(), weights=contrib[:, ch].ravel(), minlength=area)
        dx[:, ch] += plane.reshape((n,) + sizes)


def _infer(x, grid, mode, padding_mode, align_corners):
    return Meta((x._shape[0], x._shape[1]) + tuple(grid._shape[1:-1]), x.dtype)


@register_op("grid_sample", infer=_infer)
def _grid_sample_kernel(x, grid, mode, padding_mode, align_corners):
    return _sample(x, grid, mode, padding_mode, align_corners).astype(x.dtype, copy=False)


@register_op("grid_sample_grad", n_outputs=2,
             infer=lambda g, x, grid, **a: (Meta(x._shape, g.dtype), Meta(grid._shape, g.dtype)))
def _grid_sample_grad_kernel(g, x, grid, mode, padding_mode, align_corners):
    """The gradients of grid_sample in x and in grid."""
    dx, dgrid = _sample(x, grid, mode, padding_mode, align_corners, g=g.astype(np.float64))
    return dx.astype(g.dtype, copy=False), dgrid.astype(g.dtype, copy=False)


def _sample_grad_grad(g, x, grid, a, b, mode, padding_mode, align_corners):
    """The gradients of <a, dx> + <b, dgrid> (dx, dgrid: grid_sample's gradients for the output
    cotangent g) in g, x and grid. Per corner k of a point, the weight W_k = prod_d w_kd(f_d) is
    multilinear in the fractions f_d, so everything is a sum over corners of W_k, its directional
    derivative T_k along b (in fraction space) and their derivatives in f."""
    nd = x.ndim - 2
    sizes = x.shape[2:]
    if mode == "nearest":
        # dx scatters g to the nearest pixel, dgrid is 0: only g has a gradient
        coords = [_source(grid[..., nd - 1 - d], sizes[d], padding_mode, align_corners)[0]
                  for d in range(nd)]
        vals = _corners(a, [np.rint(c).astype(np.int64) for c in coords])[0]
        return vals, np.zeros(x.shape), np.zeros(grid.shape)
    coords, dcoords = zip(*[_source(grid[..., nd - 1 - d], sizes[d], padding_mode, align_corners)
                            for d in range(nd)])
    base = [np.floor(c).astype(np.int64) for c in coords]
    frac = [c - f for c, f in zip(coords, base)]
    # b along each spatial dim, times d coord / d grid: the direction in fraction space
    bd = [b[..., nd - 1 - d] * dcoords[d] for d in range(nd)]
    dg = np.zeros(g.shape)
    dx = np.zeros(x.shape)
    dfrac = [np.zeros(grid.shape[:-1]) for _ in range(nd)]

    def prod(ws, skip):
        out = 1.0
        for i, w in enumerate(ws):
            if i not in skip:
                out = out * w
        return out

    for bits in itertools.product((0, 1), repeat=nd):
        ws = [f if bit else 1.0 - f for f, bit in zip(frac, bits)]
        sign = [1.0 if bit else -1.0 for bit in bits]
        idx = [f + bit for f, bit in zip(base, bits)]
        v, valid, clipped = _corners(x, idx)
        av = _corners(a, idx)[0]
        weight = prod(ws, ())
        t = sum(bd[d] * sign[d] * prod(ws, (d,)) for d in range(nd))
        dg += av * weight[:, None] + v * t[:, None]
        _scatter(dx, g * (t * valid)[:, None], clipped)
        gav, gv = (g * av).sum(1), (g * v).sum(1)
        for e in range(nd):
            cross = sum((bd[d] * sign[d] * sign[e] * prod(ws, (d, e)) for d in range(nd) if d != e),
                        np.zeros_like(gv))
            dfrac[e] += gav * sign[e] * prod(ws, (e,)) + gv * cross
    dgrid = np.stack([dfrac[nd - 1 - j] * dcoords[nd - 1 - j] for j in range(nd)], axis=-1)
    return dg, dx, dgrid


@register_op("grid_sample_grad_grad", n_outputs=3,
             infer=lambda g, x, grid, a, b, **attrs: (Meta(g._shape, g.dtype), Meta(x._shape, g.dtype),
                                                      Meta(grid._shape, g.dtype)))
def _grid_sample_grad_grad_kernel(g, x, grid, a, b, mode, padding_mode, align_corners):
    """The gradients of grid_sample_grad (cotangents a of dx and b of dgrid) in g, x and grid."""
    f64 = [v.astype(np.float64) for v in (g, x, grid, a, b)]
    return tuple(r.astype(g.dtype, copy=False)
                 for r in _sample_grad_grad(*f64, mode, padding_mode, align_corners))


def grid_sample(x: Any, grid: Any, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool = True, name: Optional[str] = None) -> Any:
    """out[n, c, i, j] = x[n, c] sampled at grid[n, i, j] = (x, y) in [-1, 1] (and likewise in 3-D
    with (x, y, z))."""
    x = as_tensor(x)
    grid = cast(as_tensor(grid), x.dtype)
    if mode not in ("bilinear", "nearest"):
        raise ValueError(f"grid_sample: mode must be 'bilinear' or 'nearest', got {mode!r}")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"grid_sample: padding_mode must be 'zeros', 'border' or 'reflection', "
                         f"got {padding_mode!r}")
    xs, gs = known_dims(x), known_dims(grid)
    if not ((len(xs) == 4 and len(gs) == 4 and gs[3] == 2) or (len(xs) == 5 and len(gs) == 5 and gs[4] == 3)):
        raise ValueError(f"grid_sample: expected x [N, C, H, W] with grid [N, H_out, W_out, 2], or x "
                         f"[N, C, D, H, W] with grid [N, D_out, H_out, W_out, 3]; got shapes {xs} and {gs}")
    return apply("grid_sample", [x, grid], {"mode": mode, "padding_mode": padding_mode,
                                            "align_corners": bool(align_corners)})
