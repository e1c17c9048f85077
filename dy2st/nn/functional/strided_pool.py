"""Max pooling over regular windows (fixed size and stride) by one np.maximum per kernel position
on strided slices, with the index of each maximum from the winning position: no gather, no
Python loop over windows."""
from __future__ import annotations

import itertools
from typing import List, Sequence, Tuple

import numpy as np

from .resample import out_len


def strided_max_applies(specs: Sequence[dict], sizes: Sequence[int]) -> bool:
    """Regular pooling windows that all hold at least one input position."""
    for spec, size in zip(specs, sizes):
        if spec["kind"] != "pool" or size <= 0:
            return False
        n = out_len(spec, size)
        if n < 1 or spec["lo"] >= spec["k"] or (n - 1) * spec["s"] - spec["lo"] >= size:
            return False
    return True


def _low(dtype: np.dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def strided_window_max(xf: np.ndarray, specs: Sequence[dict]) -> Tuple[np.ndarray, np.ndarray]:
    """The maximum of every window of channel-first xf [N, C, *sizes] and its flat index in the
    spatial dims: the first position on ties, NaN winning as argmax takes it, and never a
    padding position."""
    sizes = xf.shape[2:]
    outs = [out_len(spec, size) for spec, size in zip(specs, sizes)]
    pads = [(spec["lo"], max((n - 1) * spec["s"] + spec["k"] - spec["lo"] - size, 0))
            for spec, n, size in zip(specs, outs, sizes)]
    padded = any(lo or hi for lo, hi in pads)
    xp = np.pad(xf, ((0, 0), (0, 0)) + tuple(pads), constant_values=_low(xf.dtype)) if padded else xf
    offsets = list(itertools.product(*(range(spec["k"]) for spec in specs)))

    def window(k: Tuple[int, ...]) -> np.ndarray:
        return xp[(slice(None), slice(None)) + tuple(
            slice(kd, kd + (n - 1) * spec["s"] + 1, spec["s"]) for kd, n, spec in zip(k, outs, specs))]

    out = window(offsets[0]).copy()
    for k in offsets[1:]:
        np.maximum(out, window(k), out=out)
    # which offset won: walking the offsets backwards leaves the first tie
    which = np.zeros(out.shape, np.uint8 if len(offsets) < 256 else np.int32)
    nan_out = np.isnan(out) if xf.dtype.kind == "f" else None
    if nan_out is not None and not nan_out.any():
        nan_out = None
    hit = np.empty(out.shape, bool)
    for i in range(len(offsets) - 1, -1, -1):
        v = window(offsets[i])
        np.equal(v, out, out=hit)
        if nan_out is not None:
            hit |= np.isnan(v) & nan_out
        if padded:
            hit &= _inside(offsets[i], outs, specs, sizes)
        np.copyto(which, i, where=hit)
    return out, _flat_index(which, offsets, outs, specs, sizes)


def _inside(k: Sequence[int], outs: Sequence[int], specs: Sequence[dict],
            sizes: Sequence[int]) -> np.ndarray:
    """Whether kernel position k meets a real input position, per output position (broadcast)."""
    nd = len(k)
    ok = np.ones((1,) * nd, bool)
    for d, (kd, n, spec, size) in enumerate(zip(k, outs, specs, sizes)):
        pos = np.arange(n) * spec["s"] - spec["lo"] + kd
        shape = [1] * nd
        shape[d] = n
        ok = ok & ((pos >= 0) & (pos < size)).reshape(shape)
    return ok


def _flat_index(which: np.ndarray, offsets: List[Tuple[int, ...]], outs: Sequence[int],
                specs: Sequence[dict], sizes: Sequence[int]) -> np.ndarray:
    nd = len(outs)
    mults = [int(np.prod(sizes[d + 1:], dtype=np.int64)) for d in range(nd)]
    base = np.zeros((1,) * nd, np.int64)
    for d, (n, spec, m) in enumerate(zip(outs, specs, mults)):
        shape = [1] * nd
        shape[d] = n
        base = base + ((np.arange(n, dtype=np.int64) * spec["s"] - spec["lo"]) * m).reshape(shape)
    table = np.array([sum(kd * m for kd, m in zip(k, mults)) for k in offsets], np.int64)
    return table[which] + base
