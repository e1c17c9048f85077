"""Matrix products and distances composed from differentiable ops: addmm, baddbmm, vecdot,
dist, cdist, pdist, renorm, block_diag, cartesian_prod, combinations."""
from __future__ import annotations

import itertools
from typing import Any, List, Optional, Sequence

from ..registry import classified_as
from . import infer as I
from .complex import conj
from .creation import zeros
from .dims import dims
from .gather import gather
from .grids import meshgrid
from .linalg import bmm, matmul
from .math import greater_than
from .operands import as_tensor, cast
from .reduce import sum as _sum
from .selection import where
from .shape import concat, flatten, reshape, stack, transpose, unsqueeze
from .stats import norm


def addmm(input: Any, x: Any, y: Any, beta: float = 1.0, alpha: float = 1.0,
          name: Optional[str] = None) -> Any:
    """beta * input + alpha * (x @ y) for 2-D x and y (input broadcasts)."""
    if len(dims(as_tensor(x))) != 2 or len(dims(as_tensor(y))) != 2:
        raise ValueError("addmm: x and y must be 2-D")
    return input * beta + matmul(x, y) * alpha


def baddbmm(input: Any, x: Any, y: Any, beta: float = 1.0, alpha: float = 1.0,
            name: Optional[str] = None) -> Any:
    """beta * input + alpha * (x @ y) for batches of matrices x [B, N, K] and y [B, K, M]."""
    if len(dims(as_tensor(x))) != 3 or len(dims(as_tensor(y))) != 3:
        raise ValueError("baddbmm: x and y must be 3-D")
    return input * beta + bmm(x, y) * alpha


def vecdot(x: Any, y: Any, axis: int = -1, name: Optional[str] = None) -> Any:
    """The dot products of x and y along `axis` (they broadcast over the other dims); a complex
    x is conjugated, sum(conj(x) * y), as in Paddle 3.3.1."""
    x = as_tensor(x)
    return _sum((conj(x) if x.dtype.is_complex else x) * y, axis=axis)


@classified_as("dist")
def dist(x: Any, y: Any, p: float = 2, name: Optional[str] = None) -> Any:
    """The p-norm of x - y (broadcast) over all its entries (p may be 0, inf or -inf)."""
    return norm(flatten(as_tensor(x) - y), p=float(p), axis=0)


def cdist(x: Any, y: Any, p: float = 2.0,
          compute_mode: str = "use_mm_for_euclid_dist_if_necessary",
          name: Optional[str] = None) -> Any:
    """p-norm distances between the rows of x [..., P, M] and y [..., R, M]: [..., P, R]."""
    x, y = as_tensor(x), as_tensor(y)
    if dims(x)[-1] != dims(y)[-1] and dims(x)[-1] >= 0 and dims(y)[-1] >= 0:
        raise ValueError(f"cdist: x and y must have the same last dim, got shapes "
                         f"{list(dims(x))} and {list(dims(y))}")
    diff = unsqueeze(x, -2) - unsqueeze(y, -3)
    return norm(diff, p=float(p), axis=-1)


def pdist(x: Any, p: float = 2.0, name: Optional[str] = None) -> Any:
    """p-norm distances between every pair of rows i < j of a 2-D x, in row-major order."""
    x = as_tensor(x)
    shape = dims(x)
    if len(shape) != 2 or shape[0] < 0:
        raise ValueError(f"pdist: x must be 2-D with a known number of rows, got shape "
                         f"{list(shape)}")
    pairs = list(itertools.combinations(range(shape[0]), 2))
    if not pairs:
        return zeros([0], x.dtype)
    first = gather(x, as_tensor([i for i, _ in pairs], "int64"))
    second = gather(x, as_tensor([j for _, j in pairs], "int64"))
    return norm(first - second, p=float(p), axis=-1)


@classified_as("renorm")
def renorm(x: Any, p: float, axis: int, max_norm: float, name: Optional[str] = None) -> Any:
    """x with every slice along `axis` whose p-norm exceeds max_norm scaled down to that norm."""
    x = as_tensor(x)
    n = len(dims(x))
    (axis,) = I.norm_axes(axis, n)
    perm = [axis] + [a for a in range(n) if a != axis]
    rows = flatten(transpose(x, perm), start_axis=1) if n > 1 else unsqueeze(x, 1)
    norms = norm(rows, p=float(p), axis=1)
    factor = where(greater_than(norms, max_norm), max_norm / (norms + 1e-7),
                   norms * 0.0 + 1.0)
    shape = [1] * n
    shape[axis] = -1
    return x * reshape(factor, shape)


def block_diag(inputs: Sequence[Any], name: Optional[str] = None) -> Any:
    """One block-diagonal matrix from 0-D, 1-D (one row) and 2-D tensors."""
    mats: List[Any] = []
    for t in inputs:
        t = as_tensor(t)
        rank = len(dims(t))
        if rank > 2:
            raise ValueError(f"block_diag: inputs must have at most 2 dims, got shape "
                             f"{list(dims(t))}")
        mats.append(reshape(t, [1, 1]) if rank == 0 else reshape(t, [1, -1]) if rank == 1 else t)
    if any(d < 0 for m in mats for d in dims(m)):
        raise ValueError("block_diag: the shapes of the inputs must be known")
    dtype = mats[0].dtype
    mats = [cast(m, dtype) for m in mats]
    widths = [dims(m)[1] for m in mats]
    total = sum(widths)
    rows, left = [], 0
    for m, w in zip(mats, widths):
        h = dims(m)[0]
        parts = ([zeros([h, left], dtype)] if left else []) + [m] + (
            [zeros([h, total - left - w], dtype)] if total - left - w else [])
        rows.append(concat(parts, axis=1) if len(parts) > 1 else m)
        left += w
    return concat(rows, axis=0)


def cartesian_prod(x: Sequence[Any], name: Optional[str] = None) -> Any:
    """Every combination of one entry of each 1-D tensor in x: [prod of lengths, len(x)]."""
    xs = [as_tensor(t) for t in x]
    if len(xs) == 1:
        return xs[0]
    grids = meshgrid(*xs)
    return stack([flatten(g) for g in grids], axis=1)


def combinations(x: Any, r: int = 2, with_replacement: bool = False,
                 name: Optional[str] = None) -> Any:
    """The length-r combinations of the entries of a 1-D x, one per row (itertools' order)."""
    x = as_tensor(x)
    shape = dims(x)
    if len(shape) != 1 or shape[0] < 0:
        raise ValueError(f"combinations: x must be 1-D with a known length, got shape "
                         f"{list(shape)}")
    if r < 0:
        raise ValueError(f"combinations: r must be non-negative, got {r}")
    if r == 0:
        return zeros([0], x.dtype)
    make = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    combos = list(make(range(shape[0]), r))
    if not combos:
        return zeros([0, r], x.dtype)
    cols = [gather(x, as_tensor([c[k] for c in combos], "int64")) for k in range(r)]
    return stack(cols, axis=1)
