"""im2col convolution kernels: the windows of a batch chunk copied once into a [C*K, P] column
matrix per sample, then one batched matmul per chunk for all groups; the column buffer is bounded
(COLUMN_BYTES) by chunking the batch and, for a single large image, the first output axis."""
from __future__ import annotations

import itertools
from typing import Iterator, Sequence, Tuple

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

# the most bytes of im2col columns alive at once
COLUMN_BYTES = 1 << 25


def windows(xp: np.ndarray, kernel: Sequence[int], stride: Sequence[int],
            dilation: Sequence[int]) -> np.ndarray:
    """[N, C, *out, *kernel] views into the padded channel-first input xp (no copy)."""
    axes = tuple(range(2, 2 + len(kernel)))
    span = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation))
    win = sliding_window_view(xp, span, axis=axes)
    index = (slice(None), slice(None)) + tuple(slice(None, None, s) for s in stride) \
        + tuple(slice(None, None, d) for d in dilation)
    return win[index]


def chunks(n: int, per_sample: int, rows: int) -> Iterator[Tuple[slice, slice]]:
    """(batch slice, first-output-axis slice) pairs whose columns fit in COLUMN_BYTES."""
    if per_sample <= COLUMN_BYTES or rows <= 1:
        step = max(1, COLUMN_BYTES // max(per_sample, 1))
        for b in range(0, n, step):
            yield slice(b, min(b + step, n)), slice(None)
        return
    step = max(1, rows * COLUMN_BYTES // per_sample)
    for b in range(n):
        for r in range(0, rows, step):
            yield slice(b, b + 1), slice(r, min(r + step, rows))


def columns(win: np.ndarray, nd: int) -> np.ndarray:
    """The window view [n, C, *out, *K] copied to contiguous [n, C, *K, *out]."""
    order = (0, 1) + tuple(range(2 + nd, 2 + 2 * nd)) + tuple(range(2, 2 + nd))
    return np.ascontiguousarray(win.transpose(order))


def forward(xp: np.ndarray, w: np.ndarray, stride: Sequence[int], dilation: Sequence[int],
            groups: int) -> np.ndarray:
    """Cross-correlation of padded channel-first xp [N, C, *S] with w [O, C/groups, *K]."""
    nd = w.ndim - 2
    win = windows(xp, w.shape[2:], stride, dilation)
    n, c = xp.shape[:2]
    outs = win.shape[2:2 + nd]
    o, ksize, p = w.shape[0], int(np.prod(w.shape[2:], dtype=np.int64)), int(np.prod(outs, dtype=np.int64))
    dtype = np.result_type(xp, w)
    w_mat = w.reshape(groups, o // groups, -1).astype(dtype, copy=False)     # [G, Og, Cg*K]
    out = np.empty((n, o) + tuple(outs), dtype)
    per_sample = c * ksize * p * dtype.itemsize
    for bs, rs in chunks(n, per_sample, outs[0] if nd else 1):
        part = win[bs, :, rs]
        cols = columns(part, nd)
        m, sub = cols.shape[0], cols.shape[2 + nd:]
        cols = cols.reshape(m, groups, -1, int(np.prod(sub, dtype=np.int64)))
        if rs == slice(None):               # whole images: the product lands in out itself
            np.matmul(w_mat, cols, out=out[bs].reshape(m, groups, o // groups, -1))
        else:
            out[bs, :, rs] = np.matmul(w_mat, cols).reshape((m, o) + tuple(sub))
    return out


def adjoint(g: np.ndarray, w: np.ndarray, padded: Sequence[int], stride: Sequence[int],
            dilation: Sequence[int], groups: int) -> np.ndarray:
    """The adjoint of forward in xp: g [N, O, *out] -> [N, C, *padded] (col2im: one matmul for
    the columns, then one strided add per kernel position)."""
    nd = w.ndim - 2
    kernel = w.shape[2:]
    n, o = g.shape[:2]
    outs = g.shape[2:]
    c = w.shape[1] * groups
    dtype = np.result_type(g, w)
    w_t = w.reshape(groups, o // groups, -1).transpose(0, 2, 1).astype(dtype, copy=False)
    xp = np.zeros((n, c) + tuple(padded), dtype)
    ksize, p = int(np.prod(kernel, dtype=np.int64)), int(np.prod(outs, dtype=np.int64))
    per_sample = c * ksize * p * dtype.itemsize
    offsets = list(itertools.product(*(range(k) for k in kernel)))
    for bs, rs in chunks(n, per_sample, outs[0] if nd else 1):
        part = g[bs][:, :, rs]
        sub = part.shape[2:]
        first = rs.start or 0                   # the chunk's first output row
        gg = part.reshape(part.shape[0], groups, o // groups, -1)
        cols = np.matmul(w_t, gg).reshape((gg.shape[0], c) + tuple(kernel) + tuple(sub))
        target = xp[bs]
        for k in offsets:
            index = (slice(None), slice(None)) + tuple(
                slice(ki * d + lo * s, ki * d + (lo + m - 1) * s + 1, s)
                for ki, d, s, m, lo in zip(k, dilation, stride, sub, (first,) + (0,) * nd))
            target[index] += cols[(slice(None), slice(None)) + k]
    return xp


def filter_grad(xp: np.ndarray, g: np.ndarray, kernel: Sequence[int], stride: Sequence[int],
                dilation: Sequence[int], groups: int) -> np.ndarray:
    """d(sum(g * forward(xp, w)))/dw: [O, C/groups, *kernel] (windows past g's size ignored)."""
    nd = len(kernel)
    n, c = xp.shape[:2]
    o, outs = g.shape[1], g.shape[2:]
    win = windows(xp, kernel, stride, dilation)
    win = win[(slice(None), slice(None)) + tuple(slice(0, m) for m in outs)]
    dtype = np.result_type(xp, g)
    ksize, p = int(np.prod(kernel, dtype=np.int64)), int(np.prod(outs, dtype=np.int64))
    dw = np.zeros((groups, o // groups, (c // groups) * ksize), dtype)
    per_sample = c * ksize * p * dtype.itemsize
    for bs, rs in chunks(n, per_sample, outs[0] if nd else 1):
        cols = columns(win[bs, :, rs], nd)
        cols = cols.reshape(cols.shape[0], groups, (c // groups) * ksize, -1)
        part = g[bs][:, :, rs]
        gg = part.reshape(part.shape[0], groups, o // groups, -1)
        dw += np.matmul(gg, cols.transpose(0, 1, 3, 2)).sum(axis=0)
    return dw.reshape((o, c // groups) + tuple(kernel))
