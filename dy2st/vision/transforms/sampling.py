"""Inverse-mapped resampling for the geometric transforms: every output pixel's source position
is computed at once, then the image is gathered there (nearest, bilinear or bicubic).

Coordinates are continuous with pixel (i, j) covering [j, j + 1) x [i, i + 1), as Pillow's
transform() has them. Two border rules: 'pil' (numpy and PIL images) takes a source position
outside the image as `fill` and clamps the interpolation taps to the edge, as Pillow does;
'grid' (tensors) is Paddle's grid_sample(padding_mode='zeros', align_corners=False) followed by
Paddle's blend with the fill colour through the sampled coverage mask."""
from __future__ import annotations

from typing import Any, Sequence, Tuple

import numpy as np

INTERPOLATIONS = ("nearest", "bilinear", "bicubic")


def output_grid(oh: int, ow: int) -> Tuple[np.ndarray, np.ndarray]:
    """The centres (x + 0.5, y + 0.5) of an oh x ow output, as two [oh, ow] arrays."""
    ys, xs = np.meshgrid(np.arange(oh, dtype=np.float64) + 0.5,
                         np.arange(ow, dtype=np.float64) + 0.5, indexing="ij")
    return xs, ys


def affine_source(matrix: Sequence[float], oh: int, ow: int) -> Tuple[np.ndarray, np.ndarray]:
    """Source positions of the output pixel centres under the inverse affine map
    (a, b, c, d, e, f): x_in = a x + b y + c, y_in = d x + e y + f."""
    a, b, c, d, e, f = (float(v) for v in matrix)
    xs, ys = output_grid(oh, ow)
    return a * xs + b * ys + c, d * xs + e * ys + f


def perspective_source(coeffs: Sequence[float], oh: int,
                       ow: int) -> Tuple[np.ndarray, np.ndarray]:
    """Source positions under the inverse perspective map (a..h):
    ((a x + b y + c) / (g x + h y + 1), (d x + e y + f) / (g x + h y + 1))."""
    a, b, c, d, e, f, g, h = (float(v) for v in coeffs)
    xs, ys = output_grid(oh, ow)
    den = g * xs + h * ys + 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        return (a * xs + b * ys + c) / den, (d * xs + e * ys + f) / den


def _fma_rows(x: np.ndarray, y: np.ndarray, a: np.float32, b: np.float32,
              c: np.float32) -> np.ndarray:
    # x * a + y * b + c in float32 as Paddle's batched matmul sums it: fused multiply-adds,
    # each rounded once (exact in float64 first: a float32 product fits in 48 bits)
    f32, f64 = np.float32, np.float64
    t = (x.astype(f64) * f64(a)).astype(f32)
    t = (y.astype(f64) * f64(b) + t.astype(f64)).astype(f32)
    return (t.astype(f64) + f64(c)).astype(f32)


def grid_source(matrix: Sequence[float], w: int, h: int, ow: int, oh: int,
                perspective_map: bool = False) -> Tuple[np.ndarray, np.ndarray]:
    """Source positions of Paddle's tensor warps, computed as Paddle does, in float32: an
    affine `matrix` maps coordinates centred on the output to ones centred on the input; a
    perspective one (a..h) maps pixel coordinates. Paddle builds a normalised grid for
    grid_sample(align_corners=False), whose float32 rounding decides nearest-neighbour ties."""
    f32 = np.float32
    m = np.asarray(matrix, dtype=f32)
    if perspective_map:
        x = np.arange(ow, dtype=f32) + f32(0.5)
        y = np.arange(oh, dtype=f32)[:, None] + f32(0.5)
        hx, hy = f32(0.5 * ow), f32(0.5 * oh)
        den = _fma_rows(x, y, m[6], m[7], f32(1.0))
        gx = _fma_rows(x, y, m[0] / hx, m[1] / hx, m[2] / hx) / den - f32(1.0)
        gy = _fma_rows(x, y, m[3] / hy, m[4] / hy, m[5] / hy) / den - f32(1.0)
    else:
        x = np.arange(ow, dtype=f32) + f32(-ow * 0.5 + 0.5)
        y = np.arange(oh, dtype=f32)[:, None] + f32(-oh * 0.5 + 0.5)
        hx, hy = f32(0.5 * w), f32(0.5 * h)
        gx = _fma_rows(x, y, m[0] / hx, m[1] / hx, m[2] / hx)
        gy = _fma_rows(x, y, m[3] / hy, m[4] / hy, m[5] / hy)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        ix = ((gx + f32(1.0)) * f32(w) - f32(1.0)) / f32(2.0)
        iy = ((gy + f32(1.0)) * f32(h) - f32(1.0)) / f32(2.0)
    # back to continuous positions (exact in float64) for sample(border='grid')
    return (np.broadcast_to(ix, (oh, ow)).astype(np.float64) + 0.5,
            np.broadcast_to(iy, (oh, ow)).astype(np.float64) + 0.5)


def affine_nearest_index(matrix: Sequence[float], oh: int, ow: int,
                         ) -> Tuple[np.ndarray, np.ndarray]:
    """The source pixel indices of a nearest-neighbour affine warp, computed with the arithmetic
    Pillow uses (16.16 fixed point, or running float sums for a pure scale) so that a numpy
    image and a PIL image give the same pixels, also where a position falls on a pixel edge."""
    a = [float(v) for v in matrix]
    if a[1] == 0 and a[3] == 0:
        # Pillow's scale path: the positions are running sums, start + k * step added in turn
        xs = np.cumsum(np.concatenate([[a[2] + a[0] * 0.5], np.full(ow - 1, a[0])]))
        ys = np.cumsum(np.concatenate([[a[5] + a[4] * 0.5], np.full(oh - 1, a[4])]))
        return np.broadcast_to(_coord(ys)[:, None], (oh, ow)), \
            np.broadcast_to(_coord(xs)[None, :], (oh, ow))
    corners = [(0, 0), (ow, oh), (0, oh), (ow, 0)]
    if all(abs(x * a[0] + y * a[1] + a[2]) < 32768.0 and abs(x * a[3] + y * a[4] + a[5])
           < 32768.0 for x, y in corners):
        fix = [int(np.floor(v * 65536.0 + 0.5)) for v in
               (a[0], a[1], a[2] + a[0] * 0.5 + a[1] * 0.5,
                a[3], a[4], a[5] + a[3] * 0.5 + a[4] * 0.5)]
        x = np.arange(ow, dtype=np.int64)[None, :]
        y = np.arange(oh, dtype=np.int64)[:, None]
        return (fix[5] + y * fix[4] + x * fix[3]) >> 16, (fix[2] + y * fix[1] + x * fix[0]) >> 16
    xs, ys = affine_source(a, oh, ow)
    return _coord(ys), _coord(xs)


def _coord(v: np.ndarray) -> np.ndarray:
    # Pillow's COORD: truncation toward zero, any negative position is -1 (outside)
    with np.errstate(invalid="ignore"):
        return np.where(v < 0, -1, np.floor(np.nan_to_num(v, nan=-1.0))).astype(np.int64)


def fill_values(fill: Any, channels: int, dtype: np.dtype) -> np.ndarray:
    """The fill colour as one value per channel (a number is used for every channel)."""
    f = np.asarray(fill if fill is not None else 0, dtype=np.float64).reshape(-1)
    if f.size == 1:
        f = np.repeat(f, channels)
    if f.size < channels:
        raise ValueError(f"fill has {f.size} values but the image has {channels} channels")
    return f[:channels]


def _finish(out: np.ndarray, dtype: np.dtype) -> np.ndarray:
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return np.clip(np.rint(out), info.min, info.max).astype(dtype)
    return out.astype(dtype)


def gather_nearest(img: np.ndarray, iy: np.ndarray, ix: np.ndarray, fill: Any) -> np.ndarray:
    """img (HWC) at integer indices; indices outside the image take the fill colour."""
    h, w, ch = img.shape
    inside = (iy >= 0) & (iy < h) & (ix >= 0) & (ix < w)
    out = img[np.clip(iy, 0, h - 1), np.clip(ix, 0, w - 1)]
    fills = fill_values(fill, ch, img.dtype)
    return np.where(inside[..., None], out, _finish(fills, img.dtype))


def _cubic_weights(d: np.ndarray) -> np.ndarray:
    # Pillow's transform() cubic (Keys kernel with a = -1) for the taps at -1, 0, 1, 2
    d2, d3 = d * d, d * d * d
    return np.stack([-d + 2 * d2 - d3, 1 - 2 * d2 + d3, d + d2 - d3, d3 - d2], axis=-1)


def _interpolate(img: np.ndarray, u: np.ndarray, v: np.ndarray, interpolation: str,
                 clamp: bool) -> Tuple[np.ndarray, np.ndarray]:
    """Weighted taps around the positions (u, v) already shifted to pixel-centre units: the
    interpolated image and the summed weight of the taps inside the image."""
    h, w, ch = img.shape
    x0, y0 = np.floor(u), np.floor(v)
    dx, dy = u - x0, v - y0
    if interpolation == "bilinear":
        offsets, wx, wy = (0, 1), np.stack([1 - dx, dx], -1), np.stack([1 - dy, dy], -1)
    else:
        offsets, wx, wy = (-1, 0, 1, 2), _cubic_weights(dx), _cubic_weights(dy)
    x0, y0 = x0.astype(np.int64), y0.astype(np.int64)
    if not clamp:
        # a tap outside the image weighs nothing; inside = row inside and column inside, so
        # masking the row and the column weights masks their products
        wy = np.where(np.stack([(y0 + o >= 0) & (y0 + o < h) for o in offsets], -1), wy, 0.0)
        wx = np.where(np.stack([(x0 + o >= 0) & (x0 + o < w) for o in offsets], -1), wx, 0.0)
    flat = img.reshape(h * w, ch).astype(np.float64)
    cols = [np.clip(x0 + o, 0, w - 1) for o in offsets]
    out = np.zeros(u.shape + (ch,), dtype=np.float64)
    for i, oy in enumerate(offsets):
        row = np.clip(y0 + oy, 0, h - 1) * w
        # one source row's taps, interpolated along x, then weighted along y
        across = sum(wx[..., j, None] * np.take(flat, row + col, axis=0)
                     for j, col in enumerate(cols))
        out += wy[..., i, None] * across
    return out, wy.sum(-1) * wx.sum(-1)


def sample(img: np.ndarray, xs: np.ndarray, ys: np.ndarray, interpolation: str, fill: Any,
           border: str = "pil") -> np.ndarray:
    """img (HWC) resampled at the continuous source positions (xs, ys), in img's dtype."""
    if interpolation not in INTERPOLATIONS:
        raise ValueError(f"interpolation should be one of {list(INTERPOLATIONS)}, but got "
                         f"{interpolation!r}")
    h, w, ch = img.shape
    fills = fill_values(fill, ch, img.dtype)
    xs = np.nan_to_num(xs, nan=-1e9, posinf=1e9, neginf=-1e9)
    ys = np.nan_to_num(ys, nan=-1e9, posinf=1e9, neginf=-1e9)
    if border == "grid":
        if interpolation == "nearest":
            ix, iy = np.rint(xs - 0.5).astype(np.int64), np.rint(ys - 0.5).astype(np.int64)
            inside = (iy >= 0) & (iy < h) & (ix >= 0) & (ix < w)
            got = img[np.clip(iy, 0, h - 1), np.clip(ix, 0, w - 1)].astype(np.float64)
            out = np.where(inside[..., None], got, fills)
            return _finish(out, img.dtype)
        if interpolation != "bilinear":
            raise ValueError(f"The mode of grid sample function should be in ['bilinear', "
                             f"'nearest'], but got: {interpolation}")
        got, cover = _interpolate(img, xs - 0.5, ys - 0.5, interpolation, clamp=False)
        if fill is None:                    # Paddle skips the blend when no fill is given
            return _finish(got, img.dtype)
        # Paddle weights the (zero padded) sample by the coverage once more before blending
        return _finish(got * cover[..., None] + (1.0 - cover[..., None]) * fills, img.dtype)
    if interpolation == "nearest":
        return gather_nearest(img, _coord(ys), _coord(xs), fill)
    inside = (xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)
    got, _ = _interpolate(img, xs - 0.5, ys - 0.5, interpolation, clamp=True)
    return _finish(np.where(inside[..., None], got, fills), img.dtype)
