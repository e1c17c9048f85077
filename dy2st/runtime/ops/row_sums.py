"""Sums along the last axis for short rows at the speed of einsum's summing loop: numpy's
pairwise `add.reduce` handles short inner rows about 3x slower (softmax, layer_norm)."""
from __future__ import annotations

import numpy as np

# Rows up to this length go through einsum, whose loop sums with a few SIMD accumulators (error
# ~ n / 8 ulp at worst); longer rows keep add.reduce's pairwise sum and its O(log n) bound.
EINSUM_ROW = 1024


def last_axis_sums(a: np.ndarray) -> np.ndarray:
    """a summed over its last axis (that axis dropped), in a's dtype."""
    if a.shape[-1] <= EINSUM_ROW:
        return np.einsum("...i->...", a)
    return np.add.reduce(a, axis=-1)


def last_axis_squares(a: np.ndarray) -> np.ndarray:
    """(a * a) summed over a's last axis, without a full-size temporary for short rows."""
    if a.shape[-1] <= EINSUM_ROW:
        return np.einsum("...i,...i->...", a, a)
    return np.add.reduce(np.multiply(a, a), axis=-1)
