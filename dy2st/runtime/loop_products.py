"""Loop-invariant products `x @ W^T` (RNN cells' recurrent term) as the numpy executor runs them:
W^T made contiguous once, and cut into column pieces small enough for the BLAS's small-matrix
kernel when a whole product is just too large for it."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import numpy as np

# numpy's OpenBLAS multiplies without packing its operands when m * n * k <= 100^3 (its
# small-matrix kernels; measured on this AVX-512 machine: the time per product jumps there). A
# recurrent step's product is often a little larger (batch 8 x 200 x 800: 1.28e6), and packing
# the 640 KB W^T on every step then costs about half of the product: two products of 400 columns
# take 35-40 us against 55-60 us for the whole one (docs/kernels.md gives the measurements).
SMALL_PRODUCT = 100 ** 3
# Cut into at most this many pieces: with more (a larger batch), the small kernel's pieces were
# measured slower than one packed product (batch 32 x 200 x 800 in 6 pieces: 1.4x).
MAX_PIECES = 3
_SPLIT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def column_pieces(m: int, k: int, n: int) -> int:
    """How many column pieces an [m, k] x [k, n] product runs as: 1 (whole), or the fewest that
    each fit the small-matrix kernel when that takes at most MAX_PIECES."""
    if m < 2 or m * k * n <= SMALL_PRODUCT:
        return 1            # one row is a vector-matrix product: nothing is packed
    width = SMALL_PRODUCT // (m * k)          # the widest piece that fits
    if width == 0:
        return 1
    p = -(-n // width)
    return p if p <= MAX_PIECES else 1


class RecurrentWeight:
    """W [n, k] (a weight stored [out, in], as RNN cells keep theirs) prepared for `x @ W^T`:
    its contiguous transpose, or its column pieces, each made on first use; and the plan for the
    last x's shape and dtype (a loop multiplies the same shape every step)."""

    __slots__ = ("source", "_whole", "_pieces", "_plan")

    def __init__(self, w: np.ndarray) -> None:
        self.source = w
        self._whole: Optional[np.ndarray] = None
        self._pieces: Dict[int, List[Tuple[int, int, np.ndarray]]] = {}
        # ((x.shape, x.dtype), its pieces or None for the whole product): one object, so a
        # concurrent run reads a matching pair
        self._plan: Tuple[Any, Optional[List[Tuple[int, int, np.ndarray]]]] = (None, None)

    def whole(self) -> np.ndarray:
        t = self._whole
        if t is None:
            t = self._whole = np.ascontiguousarray(self.source.swapaxes(-1, -2))
        return t

    def pieces(self, p: int) -> List[Tuple[int, int, np.ndarray]]:
        """(first column, end column, contiguous W^T[:, first:end]) for p near-equal pieces."""
        got = self._pieces.get(p)
        if got is None:
            w, n = self.source, self.source.shape[0]
            cuts = [n * i // p for i in range(p + 1)]
            got = self._pieces[p] = [(a, b, np.ascontiguousarray(w[a:b].T))
                                     for a, b in zip(cuts, cuts[1:])]
        return got

    def plan(self, x: np.ndarray) -> Optional[List[Tuple[int, int, np.ndarray]]]:
        """The column pieces x @ W^T runs as, or None for one whole product."""
        key = (x.shape, x.dtype)
        plan = self._plan
        if plan[0] == key:
            return plan[1]
        wt, pieces = self.source, None
        if x.ndim == 2 and x.dtype == wt.dtype and x.dtype in _SPLIT_DTYPES and wt.ndim == 2 \
                and x.shape[1] == wt.shape[1]:
            p = column_pieces(x.shape[0], x.shape[1], wt.shape[0])
            pieces = self.pieces(p) if p > 1 else None
        self._plan = (key, pieces)
        return pieces


def times_transposed(x: np.ndarray, w: RecurrentWeight) -> np.ndarray:
    """x @ W^T for a 2-D W: the same values as np.matmul(x, W.swapaxes(-1, -2)) (within the
    rounding of the BLAS's kernels: a piece's dot products sum in the same order)."""
    pieces = w.plan(x)
    if pieces is not None:
        out = np.empty((x.shape[0], w.source.shape[0]), x.dtype)
        for a, b, piece in pieces:
            np.matmul(x, piece, out=out[:, a:b])
        return out
    whole = w.whole()
    if x.ndim > 2 and x.size and x.shape[-1] == whole.shape[0]:
        # one GEMM over all of x's rows (as matmul_rows): not one per batch index
        rows = np.ascontiguousarray(x).reshape(-1, x.shape[-1])
        return np.matmul(rows, whole).reshape(x.shape[:-1] + (whole.shape[1],))
    return np.matmul(x, whole)


class HeldWeight:
    """The RecurrentWeight of a parameter, made again only when the parameter is another array:
    arrays of tensors are never written in place (an update replaces the array, as autograd
    relies on too), so a compiled program keeps it from one run to the next."""

    __slots__ = ("_held",)

    def __init__(self) -> None:
        self._held: Optional[RecurrentWeight] = None

    def __call__(self, w: np.ndarray) -> RecurrentWeight:
        held = self._held               # one read: a concurrent run sees a matching object
        if held is None or held.source is not w:
            held = self._held = RecurrentWeight(w)
        return held

