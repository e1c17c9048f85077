"""The input gradient (and transposed convolution) of a depthwise convolution, one filter per
channel: im2col's col2im runs C tiny outer products and nine scatters over a column matrix nine
times the input's size; here stride 1 is the forward kernel over the padded gradient with the
flipped filters, and a larger stride one broadcast multiply and one strided add per kernel
position and sample, 2-3x faster (benchmarks/cnn.py)."""
from __future__ import annotations

import itertools
from typing import Optional, Sequence

import numpy as np

from . import im2col


def is_depthwise(w: np.ndarray, groups: int) -> bool:
    """One input and one output channel per group: w [C, 1, *K] with groups == C."""
    return w.shape[1] == 1 and w.shape[0] == groups and groups > 1


def adjoint(g: np.ndarray, w: np.ndarray, padded: Sequence[int], stride: Sequence[int],
            dilation: Sequence[int]) -> Optional[np.ndarray]:
    """im2col.adjoint for a depthwise w [C, 1, *K]: g [N, C, *out] -> [N, C, *padded]; None
    when the sizes do not fit the shortcut (the caller then runs im2col)."""
    kernel = w.shape[2:]
    outs = g.shape[2:]
    span = [d * (k - 1) for k, d in zip(kernel, dilation)]
    if all(s == 1 for s in stride):
        if [o + s for o, s in zip(outs, span)] != list(padded):
            return None
        return _flipped_forward(g, w, span, dilation)
    return _scatter(g, w, padded, stride, dilation)


def _flipped_forward(g: np.ndarray, w: np.ndarray, span: Sequence[int],
                     dilation: Sequence[int]) -> np.ndarray:
    """With stride 1 the adjoint is a full correlation of g with the flipped filters."""
    nd = w.ndim - 2
    gp = np.pad(g, ((0, 0), (0, 0)) + tuple((s, s) for s in span))
    flipped = np.ascontiguousarray(w[(slice(None), slice(None)) + (slice(None, None, -1),) * nd])
    return im2col.forward(gp, flipped, (1,) * nd, dilation, w.shape[0])


def _scatter(g: np.ndarray, w: np.ndarray, padded: Sequence[int], stride: Sequence[int],
             dilation: Sequence[int]) -> np.ndarray:
    """Each kernel position's share g * w[:, k] added into the input positions it read; one
    sample at a time, so the product's buffer stays in cache."""
    n, c = g.shape[:2]
    outs = g.shape[2:]
    kernel = w.shape[2:]
    dtype = np.result_type(g, w)
    xp = np.zeros((n, c) + tuple(padded), dtype)
    taps = w.reshape(c, -1).astype(dtype, copy=False)
    share = np.empty((c,) + tuple(outs), dtype)
    ones = (1,) * len(outs)
    for idx, k in enumerate(itertools.product(*(range(s) for s in kernel))):
        index = (slice(None),) + tuple(slice(ki * d, ki * d + (m - 1) * s + 1, s)
                                       for ki, d, s, m in zip(k, dilation, stride, outs))
        tap = taps[:, idx].reshape((c,) + ones)
        for b in range(n):
            np.multiply(g[b], tap, out=share)
            xp[b][index] += share
    return xp
