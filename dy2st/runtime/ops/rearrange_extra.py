"""Splits, rotations, contractions and index helpers composed from existing ops: vsplit /
hsplit / dsplit / tensor_split, unstack, rot90, take, tensordot, inner, mv, trace, diag_embed,
diagflat, vander, unflatten, view, view_as, kthvalue, tril / triu_indices, multiplex,
trapezoid, cumulative_trapezoid."""
from __future__ import annotations

from typing import Any, List, Optional, Sequence

import numpy as np

from . import infer as I
from .combine import moveaxis
from .creation import arange, eye, to_tensor
from .dims import dims
from .extra_math import diagonal
from .gather import gather, gather_nd, take_along_axis
from .linalg import matmul
from .math import clip
from .operands import as_tensor, cast
from .rearrange import flip
from .reduce import sum as _sum
from .scan import cumsum
from .shape import flatten, reshape, squeeze, stack, transpose, unsqueeze
from .slicing import split, strided_slice, unbind
from .sorting import argsort
from .triangular import diag

_BIG = 2 ** 62


def tensor_split(x: Any, num_or_indices: Any, axis: int = 0, name: Optional[str] = None) -> List[Any]:
    """Split into num pieces as even as possible (the first ones one larger), or at indices."""
    x = as_tensor(x)
    (axis,) = I.norm_axes(axis, len(dims(x)))
    n = dims(x)[axis]
    if isinstance(num_or_indices, int):
        k = num_or_indices
        if n < 0:
            raise ValueError("tensor_split: the split dim must be known")
        base, extra = divmod(n, k)
        sizes = [base + 1] * extra + [base] * (k - extra)
        bounds, start = [], 0
        for s in sizes:
            bounds.append((start, start + s))
            start += s
    else:
        cuts = [int(c) for c in num_or_indices]
        edges = [0] + cuts + [_BIG]
        bounds = list(zip(edges[:-1], edges[1:]))
    return [strided_slice(x, [axis], [a], [b], [1]) for a, b in bounds]


def vsplit(x: Any, num_or_sections: Any, name: Optional[str] = None) -> List[Any]:
    """split along dim 0 (x at least 2-D)."""
    if len(dims(x)) < 2:
        raise ValueError("vsplit: x must have at least 2 dims")
    return split(x, num_or_sections, axis=0)


def hsplit(x: Any, num_or_sections: Any, name: Optional[str] = None) -> List[Any]:
    """split along dim 1 (dim 0 for 1-D x)."""
    return split(x, num_or_sections, axis=1 if len(dims(x)) > 1 else 0)


def dsplit(x: Any, num_or_sections: Any, name: Optional[str] = None) -> List[Any]:
    """split along dim 2 (x at least 3-D)."""
    if len(dims(x)) < 3:
        raise ValueError("dsplit: x must have at least 3 dims")
    return split(x, num_or_sections, axis=2)


def unstack(x: Any, axis: int = 0, num: Optional[int] = None) -> List[Any]:
    """The slices along `axis` (unbind)."""
    return unbind(x, axis)


def rot90(x: Any, k: int = 1, axes: Sequence[int] = (0, 1), name: Optional[str] = None) -> Any:
    """x rotated by 90 degrees k times in the plane `axes` (from the first toward the second)."""
    n = len(dims(x))
    a, b = I.norm_axes(list(axes), n)
    k %= 4
    if k == 0:
        return x
    if k == 2:
        return flip(x, [a, b])
    perm = list(range(n))
    perm[a], perm[b] = perm[b], perm[a]
    if k == 1:
        return transpose(flip(x, [b]), perm)
    return flip(transpose(x, perm), [b])


def take(x: Any, index: Any, mode: str = "raise", name: Optional[str] = None) -> Any:
    """Entries of the flattened x at `index` (shape of index); mode 'raise', 'wrap' or 'clip'."""
    x, index = as_tensor(x), as_tensor(index)
    flat = flatten(x)
    n = flat.shape[0]
    if mode == "wrap":
        index = index % n
    elif mode == "clip":
        index = clip(index, 0, n - 1)
    elif mode == "raise":
        index = index + (index < 0) * n     # negative indices count from the end
    else:
        raise ValueError(f"take: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    out = gather(flat, flatten(index))
    return reshape(out, index.shape)


def tensordot(x: Any, y: Any, axes: Any = 2, name: Optional[str] = None) -> Any:
    """Sum of products over the given axes of x and y (an int: x's last and y's first axes)."""
    x, y = as_tensor(x), as_tensor(y)
    nx, ny = len(dims(x)), len(dims(y))
    if isinstance(axes, int):
        ax = list(range(nx - axes, nx))
        ay = list(range(axes))
    else:
        ax, ay = axes if len(axes) == 2 else (axes[0], axes[0])
        ax = [ax] if isinstance(ax, int) else list(ax)
        ay = [ay] if isinstance(ay, int) else list(ay)
    ax = [a % nx for a in ax]
    ay = [a % ny for a in ay]
    free_x = [a for a in range(nx) if a not in ax]
    free_y = [a for a in range(ny) if a not in ay]
    xs, ys = x.shape, y.shape
    xt = reshape(transpose(x, free_x + ax), [-1, int(np.prod([dims(x)[a] for a in ax]))])
    yt = reshape(transpose(y, ay + free_y), [int(np.prod([dims(y)[a] for a in ay])), -1])
    return reshape(matmul(xt, yt), [xs[a] for a in free_x] + [ys[a] for a in free_y])


def inner(x: Any, y: Any, name: Optional[str] = None) -> Any:
    """Sum of products over the last dims of x and y."""
    x, y = as_tensor(x), as_tensor(y)
    if len(dims(x)) == 0 or len(dims(y)) == 0:
        return x * y
    return tensordot(x, y, axes=[[-1], [-1]])


def mv(x: Any, vec: Any, name: Optional[str] = None) -> Any:
    """Matrix times vector."""
    return matmul(x, vec)


def trace(x: Any, offset: int = 0, axis1: int = 0, axis2: int = 1,
          name: Optional[str] = None) -> Any:
    """The sum of the diagonal of the (axis1, axis2) planes."""
    return _sum(diagonal(x, offset, axis1, axis2), axis=-1)


def diag_embed(input: Any, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Any:
    """Diagonal matrices (in the planes dim1, dim2) holding the last dim of input."""
    x = as_tensor(input)
    n = dims(x)[-1]
    if n < 0:
        raise ValueError("diag_embed: the last dim must be known")
    m = n + abs(offset)
    if offset:
        # pick the embedded positions: row r + max(0, -offset), column r + max(0, offset)
        rows = np.arange(n) + max(0, -offset)
        cols = np.arange(n) + max(0, offset)
        sel = np.zeros((n, m, m))
        sel[np.arange(n), rows, cols] = 1
        out = _sum(unsqueeze(unsqueeze(x, -1), -1) * to_tensor(sel, x.dtype), axis=-3)
    else:
        out = unsqueeze(x, -1) * eye(n, dtype=x.dtype)
    nd = len(dims(out))
    d1, d2 = I.norm_axes([dim1, dim2], nd)
    return moveaxis(out, [nd - 2, nd - 1], [d1, d2])


def diagflat(x: Any, offset: int = 0, name: Optional[str] = None) -> Any:
    """A matrix with the flattened x on its offset diagonal."""
    return diag(flatten(as_tensor(x)), offset)


def vander(x: Any, n: Optional[int] = None, increasing: bool = False,
           name: Optional[str] = None) -> Any:
    """The Vandermonde matrix of the 1-D x: columns are powers of x."""
    x = as_tensor(x)
    cols = dims(x)[0] if n is None else n
    if cols < 0:
        raise ValueError("vander: give n when the length of x is unknown")
    powers = np.arange(cols) if increasing else np.arange(cols)[::-1]
    base = x if x.dtype.is_floating else cast(x, "float32")
    return stack([base ** float(p) if p else base * 0 + 1 for p in powers], axis=1)


def unflatten(x: Any, axis: int, shape: Sequence[int], name: Optional[str] = None) -> Any:
    """Dim `axis` of x split into the dims `shape` (one may be -1)."""
    n = len(dims(x))
    (axis,) = I.norm_axes(axis, n)
    full = list(x.shape)
    return reshape(x, full[:axis] + list(shape) + full[axis + 1:])


def view(x: Any, shape_or_dtype: Any, name: Optional[str] = None) -> Any:
    """x with a new shape (a copy in dy2st; Paddle shares the storage)."""
    if isinstance(shape_or_dtype, (list, tuple)):
        return reshape(x, list(shape_or_dtype))
    raise TypeError("view: only a shape is supported (reinterpreting the bytes as another "
                    "dtype is not)")


def view_as(x: Any, other: Any, name: Optional[str] = None) -> Any:
    """x with other's shape."""
    return reshape(x, other.shape)


def kthvalue(x: Any, k: int, axis: Optional[int] = None, keepdim: bool = False,
             name: Optional[str] = None) -> tuple:
    """The k-th smallest value along `axis` (default the last) and its index."""
    x = as_tensor(x)
    axis = -1 if axis is None else axis
    (ax,) = I.norm_axes(axis, len(dims(x)))
    n = dims(x)[ax]
    if n >= 0 and not 1 <= k <= n:
        raise ValueError(f"kthvalue: k must be in [1, {n}], got {k}")
    order = argsort(x, axis=ax, stable=True)
    idx = strided_slice(order, [ax], [k - 1], [k], [1])
    val = take_along_axis(x, idx, ax)
    if not keepdim:
        val, idx = squeeze(val, [ax]), squeeze(idx, [ax])
    return val, idx


def tril_indices(row: int, col: int, offset: int = 0, dtype: Any = "int64") -> Any:
    """The [2, N] row and column indices of the lower triangle of a row x col matrix."""
    return to_tensor(np.stack(np.tril_indices(row, offset, col)), dtype)


def triu_indices(row: int, col: Optional[int] = None, offset: int = 0,
                 dtype: Any = "int64") -> Any:
    """The [2, N] row and column indices of the upper triangle of a row x col matrix."""
    return to_tensor(np.stack(np.triu_indices(row, offset, row if col is None else col)), dtype)


def multiplex(inputs: Sequence[Any], index: Any, name: Optional[str] = None) -> Any:
    """Row i taken from inputs[index[i]] (index of shape [N, 1])."""
    stacked = stack(list(inputs), axis=0)                       # [k, N, ...]
    which = flatten(cast(as_tensor(index), "int64"))
    rows = arange(0, which.shape[0], 1, "int64")
    return gather_nd(stacked, stack([which, rows], axis=1))


def _trapezoid_parts(y: Any, x: Any, dx: Any, axis: int) -> Any:
    y = as_tensor(y)
    (ax,) = I.norm_axes(axis, len(dims(y)))
    hi = strided_slice(y, [ax], [1], [_BIG], [1])
    lo = strided_slice(y, [ax], [0], [-1], [1])
    if x is not None:
        x = as_tensor(x)
        xa = ax if len(dims(x)) == len(dims(y)) else 0
        width = strided_slice(x, [xa], [1], [_BIG], [1]) - strided_slice(x, [xa], [0], [-1], [1])
    else:
        width = 1.0 if dx is None else dx
    return (hi + lo) * width * 0.5, ax


def trapezoid(y: Any, x: Any = None, dx: Any = None, axis: int = -1,
              name: Optional[str] = None) -> Any:
    """The integral of y along `axis` by the trapezoidal rule (spacing x or dx, default 1)."""
    parts, ax = _trapezoid_parts(y, x, dx, axis)
    return _sum(parts, axis=ax)


def cumulative_trapezoid(y: Any, x: Any = None, dx: Any = None, axis: int = -1,
                         name: Optional[str] = None) -> Any:
    """The running trapezoidal integral of y along `axis`."""
    parts, ax = _trapezoid_parts(y, x, dx, axis)
    return cumsum(parts, axis=ax)
