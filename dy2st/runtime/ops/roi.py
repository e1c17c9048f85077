"""Region-of-interest pooling: roi_align, roi_pool and psroi_pool over boxes [R, 4] grouped by
image (boxes_num [N]), with their gradients in x (the boxes get none, as in Paddle)."""
from __future__ import annotations

from typing import Sequence, Tuple

import numpy as np

from ..dtype import convert_dtype
from ..registry import Meta, register_op

# roi_pool gathers [rois, bins, window, channels] at once; rois go in chunks of this many values
_GATHER_BUDGET = 1 << 22


def roi_batch(boxes_num: np.ndarray, n_images: int, n_rois: int) -> np.ndarray:
    """The image index of each roi from the per-image counts."""
    counts = np.asarray(boxes_num, dtype=np.int64).reshape(-1)
    if counts.shape[0] != n_images:
        raise ValueError(f"boxes_num has {counts.shape[0]} entries but x holds {n_images} images")
    if np.any(counts < 0) or int(counts.sum()) != n_rois:
        raise ValueError(f"boxes_num {counts.tolist()} does not add up to the {n_rois} boxes")
    return np.repeat(np.arange(n_images), counts)


def scaled(boxes: np.ndarray, spatial_scale: float) -> np.ndarray:
    """Box coordinates times the scale, multiplied in the boxes' own precision as Paddle's
    kernels do (it decides which way an edge rounds), then in float64."""
    return (boxes * boxes.dtype.type(spatial_scale)).astype(np.float64)


def _bilinear_axis(coord: np.ndarray, size: int) -> Tuple[np.ndarray, ...]:
    """Low/high pixel and their weights of sample coordinates along one axis (zero weight for a
    sample beyond half a pixel outside), as Paddle's and torchvision's roi_align interpolate."""
    valid = (coord >= -1.0) & (coord <= size)
    c = np.maximum(coord, 0.0)
    low = np.floor(c).astype(np.int64)
    at_edge = low >= size - 1
    low = np.where(at_edge, size - 1, low)
    high = np.where(at_edge, size - 1, low + 1)
    c = np.where(at_edge, low, c)
    frac = c - low
    return low, high, (1.0 - frac) * valid, frac * valid


def _align_axis(start: np.ndarray, length: np.ndarray, pooled: int, size: int,
                sampling_ratio: int) -> np.ndarray:
    """The interpolation matrix [R, pooled, size] of one axis: row p averages the bilinear
    samples of bin p (sampling_ratio per bin, or ceil(length / pooled) when it is <= 0)."""
    n = start.shape[0]
    bin_len = length / pooled
    if sampling_ratio > 0:
        grid = np.full(n, sampling_ratio, dtype=np.int64)
    else:
        grid = np.ceil(bin_len).astype(np.int64)
    most = max(int(grid.max(initial=1)), 1)
    steps = np.arange(most)
    used = steps[None, :] < grid[:, None]                                   # [R, G]
    safe = np.maximum(grid, 1)[:, None, None]
    coord = (start[:, None, None] + np.arange(pooled)[None, :, None] * bin_len[:, None, None]
             + (steps[None, None, :] + 0.5) * bin_len[:, None, None] / safe)  # [R, P, G]
    low, high, w_low, w_high = _bilinear_axis(coord, size)
    keep = used[:, None, :] / safe
    mat = np.zeros((n, pooled, size))
    rows = (np.arange(n)[:, None, None] * pooled + np.arange(pooled)[None, :, None]) * size
    flat = mat.reshape(-1)
    np.add.at(flat, (rows + low).ravel(), (w_low * keep).ravel())
    np.add.at(flat, (rows + high).ravel(), (w_high * keep).ravel())
    return mat


def align_matrices(boxes: np.ndarray, height: int, width: int, output_size: Sequence[int],
                   spatial_scale: float, sampling_ratio: int, aligned: bool):
    """The row [R, ph, H] and column [R, pw, W] matrices of roi_align: bilinear sampling and
    bin averaging are separable, so out[r] = Ay[r] @ x[b(r)] @ Ax[r]^T for every channel."""
    b = scaled(boxes, spatial_scale) - (0.5 if aligned else 0.0)
    w = b[:, 2] - b[:, 0]
    h = b[:, 3] - b[:, 1]
    if not aligned:
        w, h = np.maximum(w, 1.0), np.maximum(h, 1.0)
    ph, pw = output_size
    return (_align_axis(b[:, 1], h, ph, height, sampling_ratio),
            _align_axis(b[:, 0], w, pw, width, sampling_ratio))


def separable_pool(ay: np.ndarray, img: np.ndarray, ax: np.ndarray) -> np.ndarray:
    """out[r, c] = ay[r] @ img[c] @ ax[r]^T for rows [R, P, H], an image [C, H, W] and columns
    [R, Q, W]: one matrix product over every box's rows, then one batched over the boxes."""
    r, p, h = ay.shape
    c, _, w = img.shape
    rows = (ay.reshape(r * p, h) @ img.transpose(1, 0, 2).reshape(h, c * w))   # [R*P, C*W]
    out = rows.reshape(r, p * c, w) @ ax.transpose(0, 2, 1)                     # [R, P*C, Q]
    return out.reshape(r, p, c, -1).transpose(0, 2, 1, 3)


def separable_pool_grad(ay: np.ndarray, g: np.ndarray, ax: np.ndarray) -> np.ndarray:
    """The adjoint of separable_pool in the image: sum over boxes of ay[r]^T @ g[r, c] @ ax[r]."""
    r, p, h = ay.shape
    c = g.shape[1]
    cols = g.transpose(0, 2, 1, 3).reshape(r, p * c, -1) @ ax                  # [R, P*C, W]
    img = ay.reshape(r * p, h).T @ cols.reshape(r * p, -1)                      # [H, C*W]
    return img.reshape(h, c, -1).transpose(1, 0, 2)


def _per_image(batch: np.ndarray, n_images: int):
    for i in range(n_images):
        rows = np.nonzero(batch == i)[0]
        if rows.size:
            yield i, rows


def _roi_infer(x, boxes, boxes_num, output_size, **_):
    return Meta((boxes._shape[0], x._shape[1]) + tuple(output_size), x.dtype)


def _grad_infer(g, x, boxes, boxes_num, **_):
    return Meta(x._shape, g.dtype)


@register_op("roi_align", infer=_roi_infer)
def _roi_align_kernel(x, boxes, boxes_num, output_size, spatial_scale, sampling_ratio, aligned):
    """Bilinear roi pooling [R, C, ph, pw] (Paddle's roi_align)."""
    batch = roi_batch(boxes_num, x.shape[0], boxes.shape[0])
    ay, ax = align_matrices(boxes, x.shape[2], x.shape[3], output_size, spatial_scale,
                            sampling_ratio, aligned)
    out = np.zeros((boxes.shape[0], x.shape[1]) + tuple(output_size))
    for i, rows in _per_image(batch, x.shape[0]):
        out[rows] = separable_pool(ay[rows], x[i], ax[rows])
    return out.astype(x.dtype, copy=False)


@register_op("roi_align_grad", infer=_grad_infer)
def _roi_align_grad_kernel(g, x, boxes, boxes_num, output_size, spatial_scale, sampling_ratio,
                           aligned):
    """The gradient of roi_align in x (x gives only its shape)."""
    batch = roi_batch(boxes_num, x.shape[0], boxes.shape[0])
    ay, ax = align_matrices(boxes, x.shape[2], x.shape[3], output_size, spatial_scale,
                            sampling_ratio, aligned)
    dx = np.zeros(x.shape)
    for i, rows in _per_image(batch, x.shape[0]):
        dx[i] = separable_pool_grad(ay[rows], g[rows].astype(np.float64), ax[rows])
    return dx.astype(g.dtype, copy=False)


def _c_round(v: np.ndarray) -> np.ndarray:
    """Round half away from zero (C's round, which Paddle's kernels use)."""
    return np.sign(v) * np.floor(np.abs(v) + 0.5)


def _ps_axis(start: np.ndarray, length: np.ndarray, pooled: int, size: int) -> np.ndarray:
    """The averaging matrix [R, pooled, size] of one axis of psroi_pool (0 for an empty bin)."""
    bin_len = length / pooled
    p = np.arange(pooled)[None, :]
    lo = np.clip(np.floor(bin_len[:, None] * p + start[:, None]), 0, size).astype(np.int64)
    hi = np.clip(np.ceil(bin_len[:, None] * (p + 1) + start[:, None]), 0, size).astype(np.int64)
    pix = np.arange(size)[None, None, :]
    inside = (pix >= lo[..., None]) & (pix < hi[..., None])
    return inside / np.maximum(hi - lo, 1)[..., None]


def _ps_matrices(boxes: np.ndarray, height: int, width: int, output_size: Sequence[int],
                 spatial_scale: float):
    b = _c_round(boxes)
    x0, y0 = scaled(b[:, 0], spatial_scale), scaled(b[:, 1], spatial_scale)
    x1, y1 = scaled(b[:, 2] + 1, spatial_scale), scaled(b[:, 3] + 1, spatial_scale)
    ph, pw = output_size
    return (_ps_axis(y0, np.maximum(y1 - y0, 0.1), ph, height),
            _ps_axis(x0, np.maximum(x1 - x0, 0.1), pw, width))


def _ps_infer(x, boxes, boxes_num, output_size, **_):
    ph, pw = output_size
    c = x._shape[1] // (ph * pw) if x._shape[1] >= 0 else -1
    return Meta((boxes._shape[0], c, ph, pw), x.dtype)


@register_op("psroi_pool", infer=_ps_infer)
def _psroi_pool_kernel(x, boxes, boxes_num, output_size, spatial_scale):
    """Position-sensitive average roi pooling: bin (i, j) of output channel c averages input
    channel (c * ph + i) * pw + j."""
    ph, pw = output_size
    batch = roi_batch(boxes_num, x.shape[0], boxes.shape[0])
    ay, ax = _ps_matrices(boxes, x.shape[2], x.shape[3], output_size, spatial_scale)
    c_out = x.shape[1] // (ph * pw)
    out = np.zeros((boxes.shape[0], c_out, ph, pw))
    for i, rows in _per_image(batch, x.shape[0]):
        xi = x[i].reshape(c_out, ph, pw, x.shape[2], x.shape[3])
        for q in range(pw):       # column q of every bin: one matmul, then the rows' sums
            cols = xi[:, :, q] @ ax[rows, q, :].T                           # [C, P, H, R]
            out[rows, :, :, q] = np.einsum("cphr,rph->rcp", cols, ay[rows])
    return out.astype(x.dtype, copy=False)


@register_op("psroi_pool_grad", infer=_grad_infer)
def _psroi_pool_grad_kernel(g, x, boxes, boxes_num, output_size, spatial_scale):
    """The gradient of psroi_pool in x (x gives only its shape)."""
    ph, pw = output_size
    batch = roi_batch(boxes_num, x.shape[0], boxes.shape[0])
    ay, ax = _ps_matrices(boxes, x.shape[2], x.shape[3], output_size, spatial_scale)
    c_out = x.shape[1] // (ph * pw)
    dx = np.zeros((x.shape[0], c_out, ph, pw, x.shape[2], x.shape[3]))
    for i, rows in _per_image(batch, x.shape[0]):
        for q in range(pw):
            spread = np.einsum("rph,rcp->cphr", ay[rows], g[rows, :, :, q].astype(np.float64))
            dx[i, :, :, q] = spread @ ax[rows, q, :]                         # [C, P, H, W]
    return dx.reshape(x.shape).astype(g.dtype, copy=False)


def _pool_windows(boxes: np.ndarray, height: int, width: int, output_size: Sequence[int],
                  spatial_scale: float):
    """Per roi and bin, the flat pixel indices of its window [R, ph, pw, K] and which are real."""
    b = _c_round(scaled(boxes, spatial_scale)).astype(np.int64)
    ph, pw = output_size

    def axis(start, end, pooled, size):
        length = np.maximum(end - start + 1, 1).astype(np.float64)
        bin_len = length / pooled
        p = np.arange(pooled)[None, :]
        lo = np.clip(np.floor(p * bin_len[:, None]).astype(np.int64) + start[:, None], 0, size)
        hi = np.clip(np.ceil((p + 1) * bin_len[:, None]).astype(np.int64) + start[:, None], 0,
                     size)
        most = max(int((hi - lo).max(initial=0)), 1)
        idx = lo[..., None] + np.arange(most)
        return np.minimum(idx, size - 1), idx < hi[..., None]
    ys, y_ok = axis(b[:, 1], b[:, 3], ph, height)           # [R, ph, Ky]
    xs, x_ok = axis(b[:, 0], b[:, 2], pw, width)            # [R, pw, Kx]
    flat = ys[:, :, None, :, None] * width + xs[:, None, :, None, :]
    ok = y_ok[:, :, None, :, None] & x_ok[:, None, :, None, :]
    n, window = boxes.shape[0], ys.shape[2] * xs.shape[2]
    return flat.reshape(n, ph, pw, window), ok.reshape(n, ph, pw, window)


def _pool_infer(x, boxes, boxes_num, output_size, **_):
    shape = (boxes._shape[0], x._shape[1]) + tuple(output_size)
    return Meta(shape, x.dtype), Meta(shape, convert_dtype("int64"))


@register_op("roi_pool", infer=_pool_infer, n_outputs=2)
def _roi_pool_kernel(x, boxes, boxes_num, output_size, spatial_scale):
    """Max roi pooling [R, C, ph, pw] and the flat pixel index of each maximum (-1: empty bin)."""
    n_img, c, h, w = x.shape
    batch = roi_batch(boxes_num, n_img, boxes.shape[0])
    flat, ok = _pool_windows(boxes, h, w, output_size, spatial_scale)
    out = np.zeros((boxes.shape[0], c) + tuple(output_size), dtype=x.dtype)
    arg = np.full(out.shape, -1, dtype=np.int64)
    xf = x.reshape(n_img, c, h * w)
    per_roi = max(int(np.prod(flat.shape[1:])) * c, 1)
    step = max(_GATHER_BUDGET // per_roi, 1)
    for s in range(0, boxes.shape[0], step):
        rows = slice(s, s + step)
        vals = xf[batch[rows, None, None, None], :, flat[rows]]      # [r, ph, pw, K, C]
        vals = np.where(ok[rows][..., None], vals, -np.inf)
        best = np.argmax(vals, axis=3)                                # [r, ph, pw, C]
        top = np.take_along_axis(vals, best[:, :, :, None], axis=3)[:, :, :, 0]
        where = np.take_along_axis(flat[rows][..., None], best[:, :, :, None], axis=3)[:, :, :, 0]
        empty = ~ok[rows].any(axis=3)[..., None]
        out[rows] = np.moveaxis(np.where(empty, 0, top), 3, 1)
        arg[rows] = np.moveaxis(np.where(empty, -1, where), 3, 1)
    return out, arg


@register_op("roi_pool_grad", infer=lambda g, x, arg, boxes_num, **_: Meta(x._shape, g.dtype))
def _roi_pool_grad_kernel(g, x, arg, boxes_num):
    """The gradient of roi_pool in x: each bin's gradient goes to its maximum."""
    n_img, c, h, w = x.shape
    batch = roi_batch(boxes_num, n_img, g.shape[0])
    plane = (batch[:, None] * c + np.arange(c)[None, :]) * (h * w)          # [R, C]
    index = plane[:, :, None, None] + arg
    real = arg >= 0
    dx = np.bincount(index[real], weights=g[real].astype(np.float64), minlength=x.size)
    return dx.reshape(x.shape).astype(g.dtype, copy=False)
