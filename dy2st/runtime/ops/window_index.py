"""The gather index of pooling over arbitrary windows, shared by the numpy kernel and the XLA
lowering: it depends only on the window bounds, never on the data."""
from __future__ import annotations

from typing import List, Sequence, Tuple

import numpy as np


def window_gather_index(spans: Sequence[Sequence[Tuple[int, int]]], sizes: Sequence[int]):
    """For per spatial axis a list of [lo, hi) windows over an axis of `sizes[d]`: the index
    tuple that gathers every window product from the spatial dims padded by one slot (index -1
    reads that slot), giving [*outs, *ks]; the flat input position of every gathered element,
    broadcast to [*outs, prod(ks)]."""
    nd = len(spans)
    flat = np.zeros((1,) * (2 * nd), dtype=np.int64)
    index: List[np.ndarray] = []
    outs, ks = [], []
    for d, (wins, size) in enumerate(zip(spans, sizes)):
        k = max([hi - lo for lo, hi in wins] + [1])
        idx = np.full((len(wins), k), -1, dtype=np.int64)
        for i, (lo, hi) in enumerate(wins):
            idx[i, :hi - lo] = np.arange(lo, hi)
        shape = [1] * (2 * nd)
        shape[d], shape[nd + d] = len(wins), k
        idx = idx.reshape(shape)
        index.append(idx)
        flat = flat * size + idx
        outs.append(len(wins))
        ks.append(k)
    flat = np.broadcast_to(flat, tuple(outs) + tuple(ks)).reshape(tuple(outs) + (-1,))
    return tuple(index), flat
