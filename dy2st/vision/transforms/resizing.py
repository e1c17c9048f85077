"""Resizing an HWC numpy array with OpenCV's rules (the ones Paddle's numpy images get):
nearest takes floor(i * scale); bilinear and bicubic (Keys' a = -0.75) sample at pixel centres,
(i + 0.5) * scale - 0.5, with the taps clamped to the border."""
from __future__ import annotations

import numpy as np

__all__ = ["RESIZE_INTERPOLATIONS", "resize_array"]

RESIZE_INTERPOLATIONS = ("nearest", "bilinear", "bicubic")


def _weights(size: int, out: int, interpolation: str) -> np.ndarray:
    """The [out, size] matrix taking a row of `size` samples to `out` resized ones."""
    pos = (np.arange(out) + 0.5) * size / out - 0.5
    if interpolation == "bilinear":
        pos = np.clip(pos, 0, size - 1)
        taps, base = (0, 1), np.floor(pos)
        d = pos - base
        kernel = [1 - d, d]
    else:
        a = -0.75
        base = np.floor(pos)
        d = pos - base
        taps = (-1, 0, 1, 2)

        def near(t: np.ndarray) -> np.ndarray:         # |t| <= 1
            return ((a + 2) * t - (a + 3)) * t * t + 1

        def far(t: np.ndarray) -> np.ndarray:          # 1 < |t| < 2
            return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a

        kernel = [far(1 + d), near(d), near(1 - d), far(2 - d)]
    m = np.zeros((out, size))
    rows = np.arange(out)
    for tap, k in zip(taps, kernel):
        # taps beyond the border read the border pixel (OpenCV's BORDER_REPLICATE)
        np.add.at(m, (rows, np.clip(base.astype(np.int64) + tap, 0, size - 1)), k)
    return m


def resize_array(a: np.ndarray, oh: int, ow: int, interpolation: str) -> np.ndarray:
    """a (HW or HWC) resized to oh x ow, in a's dtype (integer results rounded, clipped)."""
    if interpolation not in RESIZE_INTERPOLATIONS:
        raise ValueError(f"resize: interpolation should be one of "
                         f"{list(RESIZE_INTERPOLATIONS)}, but got {interpolation!r}")
    h, w = a.shape[0], a.shape[1]
    if interpolation == "nearest":
        rows = np.minimum(np.floor(np.arange(oh) * h / oh), h - 1).astype(np.int64)
        cols = np.minimum(np.floor(np.arange(ow) * w / ow), w - 1).astype(np.int64)
        return a[rows][:, cols]
    wy, wx = _weights(h, oh, interpolation), _weights(w, ow, interpolation)
    # separable: the rows, then the columns, each one matrix product
    rows = np.tensordot(wy, a.astype(np.float64), axes=(1, 0))          # (oh, w, ...)
    out = np.moveaxis(np.tensordot(wx, rows, axes=(1, 1)), 0, 1)        # (oh, ow, ...)
    if np.issubdtype(a.dtype, np.integer):
        info = np.iinfo(a.dtype)
        return np.clip(np.rint(out), info.min, info.max).astype(a.dtype)
    return out.astype(a.dtype)
