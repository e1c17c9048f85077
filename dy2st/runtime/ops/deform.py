"""The sampling step of a deformable convolution: x read bilinearly at every kernel tap moved by
its learned offset (Paddle's deformable im2col), and its gradients in x and in the offsets.
The weighted sum over taps is an ordinary matmul (vision.ops.deform_conv2d)."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ..registry import Meta, register_op


def deform_out_size(size: int, kernel: int, stride: int, pad: int, dilation: int) -> int:
    """The output length of one spatial axis, as for an ordinary convolution."""
    return (size + 2 * pad - (dilation * (kernel - 1) + 1)) // stride + 1


def _positions(x_shape, offset, kernel_size, stride, padding, dilation, deformable_groups):
    """Sample rows and columns [N, dg, K, Ho, Wo] (float) of every tap and output pixel."""
    n, c, h, w = x_shape
    kh, kw = kernel_size
    ho, wo = offset.shape[2], offset.shape[3]
    want = (deform_out_size(h, kh, stride[0], padding[0], dilation[0]),
            deform_out_size(w, kw, stride[1], padding[1], dilation[1]))
    if (ho, wo) != want or offset.shape[1] != 2 * deformable_groups * kh * kw \
            or offset.shape[0] != n:
        raise ValueError(f"offset must have shape [{n}, {2 * deformable_groups * kh * kw}, "
                         f"{want[0]}, {want[1]}] (N, 2 * deformable_groups * kh * kw, H_out, "
                         f"W_out), got {list(offset.shape)}")
    if c % deformable_groups:
        raise ValueError(f"the {c} input channels do not split into {deformable_groups} "
                         "deformable groups")
    off = offset.astype(np.float64).reshape(n, deformable_groups, kh * kw, 2, ho, wo)
    tap_y = np.repeat(np.arange(kh) * dilation[0], kw)[:, None, None]
    tap_x = np.tile(np.arange(kw) * dilation[1], kh)[:, None, None]
    base_y = (np.arange(ho) * stride[0] - padding[0])[None, :, None]
    base_x = (np.arange(wo) * stride[1] - padding[1])[None, None, :]
    return off[:, :, :, 0] + tap_y + base_y, off[:, :, :, 1] + tap_x + base_x


def _corners(ys, xs, h, w):
    """For each of the four bilinear corners: flat pixel index, weight (0 off the image) and
    the weight's derivatives in y and x."""
    inside = (ys > -1) & (xs > -1) & (ys < h) & (xs < w)
    y0, x0 = np.floor(ys), np.floor(xs)
    ly, lx = ys - y0, xs - x0
    y0, x0 = y0.astype(np.int64), x0.astype(np.int64)
    for dy in (0, 1):
        for dx in (0, 1):
            yi, xi = y0 + dy, x0 + dx
            ok = inside & (yi >= 0) & (yi < h) & (xi >= 0) & (xi < w)
            wy, wx = (ly if dy else 1.0 - ly), (lx if dx else 1.0 - lx)
            index = np.clip(yi, 0, h - 1) * w + np.clip(xi, 0, w - 1)
            yield index, wy * wx * ok, (1.0 if dy else -1.0) * wx * ok, \
                (1.0 if dx else -1.0) * wy * ok


def _gather(x, index, dg):
    """x [N, C, H, W] at flat pixel indices [N, dg, L] of each deformable group: [N, dg, Cg, L]."""
    n, c, h, w = x.shape
    xg = x.reshape(n, dg, c // dg, h * w)
    return np.take_along_axis(xg, index.reshape(n, dg, 1, -1), axis=3)


def _infer(x, offset, kernel_size, **_):
    k = int(np.prod(kernel_size))
    return Meta((x._shape[0], x._shape[1], k) + tuple(offset._shape[2:]), x.dtype)


@register_op("deform_sample", infer=_infer)
def _deform_sample_kernel(x, offset, kernel_size: Sequence[int], stride, padding, dilation,
                          deformable_groups):
    """x sampled at every offset kernel tap: [N, C, kh * kw, H_out, W_out]."""
    n, c = x.shape[:2]
    ys, xs = _positions(x.shape, offset, kernel_size, stride, padding, dilation,
                        deformable_groups)
    dg = deformable_groups
    cols = 0.0
    for index, weight, _, _ in _corners(ys, xs, x.shape[2], x.shape[3]):
        cols = cols + _gather(x, index.reshape(n, dg, -1), dg) * weight.reshape(n, dg, 1, -1)
    return np.asarray(cols).reshape((n, c) + ys.shape[2:]).astype(x.dtype, copy=False)


@register_op("deform_sample_grad", n_outputs=2,
             infer=lambda g, x, offset, **_: (Meta(x._shape, g.dtype),
                                              Meta(offset._shape, g.dtype)))
def _deform_sample_grad_kernel(g, x, offset, kernel_size, stride, padding, dilation,
                               deformable_groups):
    """The gradients of deform_sample in x and in the offsets."""
    n, c, h, w = x.shape
    dg = deformable_groups
    ys, xs = _positions(x.shape, offset, kernel_size, stride, padding, dilation, dg)
    gg = g.astype(np.float64).reshape(n, dg, c // dg, -1)                  # [N, dg, Cg, L]
    planes = (np.arange(n * c).reshape(n, dg, c // dg, 1)) * (h * w)
    dx = np.zeros(n * c * h * w)
    d_y = np.zeros((n, dg, gg.shape[3]))
    d_x = np.zeros_like(d_y)
    for index, weight, wy, wx in _corners(ys, xs, h, w):
        index = index.reshape(n, dg, 1, -1)
        dx += np.bincount((planes + index).ravel(),
                          weights=(gg * weight.reshape(n, dg, 1, -1)).ravel(), minlength=dx.size)
        seen = (gg * _gather(x, index[:, :, 0], dg)).sum(axis=2)            # [N, dg, L]
        d_y += seen * wy.reshape(n, dg, -1)
        d_x += seen * wx.reshape(n, dg, -1)
    d_off = np.stack([d_y.reshape(ys.shape), d_x.reshape(xs.shape)], axis=3)
    return dx.reshape(x.shape).astype(g.dtype, copy=False), \
        d_off.reshape(offset.shape).astype(g.dtype, copy=False)
