"""Paddle's other spellings of existing ops (many added for PyTorch-style code): cat,
concatenate, gt / greater / ge / lt / le / eq / ne, swapaxes / swapdims, matrix_transpose, msort, ger,
argwhere, take_along_dim, range (end included), logspace, rand_like, randn_like."""
from __future__ import annotations

import builtins
from typing import Any, Optional

from . import infer as I
from .combine import broadcast_shape
from .creation import arange, cast as _cast_to
from .dims import dims
from .gather import take_along_axis
from .grids import linspace
from .linalg import outer
from .math import equal, greater_equal, greater_than, less_equal, less_than, not_equal, pow as _pow
from .operands import as_tensor, is_tensor
from .random import rand, randn
from .selection import nonzero
from .shape import concat, flatten, transpose
from .sorting import sort


def cat(x: Any, axis: Any = 0, name: Optional[str] = None) -> Any:
    """concat under its PyTorch-style name."""
    return concat(x, axis)


def concatenate(x: Any, axis: Any = 0, name: Optional[str] = None) -> Any:
    """concat under its NumPy-style name."""
    return concat(x, axis)


def gt(x: Any, y: Any, name: Optional[str] = None) -> Any:
    """x > y, elementwise (greater_than)."""
    return greater_than(x, y)


def greater(x: Any, y: Any, name: Optional[str] = None) -> Any:
    """x > y, elementwise (greater_than; Paddle 3.3.1's torch-style name, without its
    keyword-only `out`)."""
    return greater_than(x, y)


def ge(x: Any, y: Any, name: Optional[str] = None) -> Any:
    """x >= y, elementwise (greater_equal)."""
    return greater_equal(x, y)


def lt(x: Any, y: Any, name: Optional[str] = None) -> Any:
    """x < y, elementwise (less_than)."""
    return less_than(x, y)


def le(x: Any, y: Any, name: Optional[str] = None) -> Any:
    """x <= y, elementwise (less_equal)."""
    return less_equal(x, y)


def eq(x: Any, y: Any, name: Optional[str] = None) -> Any:
    """x == y, elementwise (equal)."""
    return equal(x, y)


def ne(x: Any, y: Any, name: Optional[str] = None) -> Any:
    """x != y, elementwise (not_equal)."""
    return not_equal(x, y)


def _swap(x: Any, a: int, b: int) -> Any:
    x = as_tensor(x)
    n = len(dims(x))
    a, b = I.norm_axes([a, b], n)
    perm = list(builtins.range(n))
    perm[a], perm[b] = perm[b], perm[a]
    return transpose(x, perm)


def swapaxes(x: Any, axis0: int, axis1: int, name: Optional[str] = None) -> Any:
    """x with dims axis0 and axis1 exchanged."""
    return _swap(x, axis0, axis1)


def swapdims(x: Any, dim0: int, dim1: int, name: Optional[str] = None) -> Any:
    """x with dims dim0 and dim1 exchanged."""
    return _swap(x, dim0, dim1)


def matrix_transpose(x: Any, name: Optional[str] = None) -> Any:
    """The last two dims exchanged (a batch of transposed matrices)."""
    if len(dims(as_tensor(x))) < 2:
        raise ValueError(f"matrix_transpose: x must have at least 2 dims, got shape "
                         f"{list(dims(as_tensor(x)))}")
    return _swap(x, -2, -1)


def msort(input: Any, name: Optional[str] = None) -> Any:
    """input sorted along its first dim."""
    return sort(input, axis=0)


def ger(x: Any, y: Any, name: Optional[str] = None) -> Any:
    """The outer product of two vectors (outer)."""
    return outer(x, y)


def argwhere(input: Any, name: Optional[str] = None) -> Any:
    """The [N, ndim] int64 coordinates of the non-zero entries (nonzero)."""
    return nonzero(input)


def take_along_dim(arr: Any, indices: Any, axis: Optional[int] = None, broadcast: bool = True,
                   name: Optional[str] = None) -> Any:
    """take_along_axis; with axis None both arr and indices are flattened first."""
    if axis is None:
        return take_along_axis(flatten(as_tensor(arr)), flatten(as_tensor(indices)), 0)
    return take_along_axis(arr, indices, axis, broadcast)


def range(start: Any = 0, end: Any = None, step: Any = 1, dtype: Any = None,
          name: Optional[str] = None) -> Any:
    """Values from start to end *inclusive* in steps of `step` (Paddle's deprecated range; with
    only one argument the values run from 0 to start inclusive)."""
    if end is None:
        start, end = 0, start
    if isinstance(step, (int, float)) and step == 0:
        raise ValueError("range: step must not be 0")
    # one step past `end`, less a fraction of a step, so that end itself is included
    if all(isinstance(v, int) for v in (start, end, step)):
        stop = end + (1 if step > 0 else -1)
    else:
        stop = end + step * 0.5
    out = arange(start, stop, step, dtype)
    return out


def logspace(start: Any, stop: Any, num: Any, base: Any = 10.0, dtype: Any = None,
             name: Optional[str] = None) -> Any:
    """base ** linspace(start, stop, num)."""
    exps = linspace(start, stop, num, "float64")
    out = _pow(as_tensor(float(base), "float64") if not hasattr(base, "dtype") else
               _cast_to(base, "float64"), exps)
    return _cast_to(out, dtype if dtype is not None else "float32")


def rand_like(input: Any, dtype: Any = None, name: Optional[str] = None) -> Any:
    """Uniform samples in [0, 1) with input's shape (and dtype unless given)."""
    input = as_tensor(input)
    return rand(input.shape, dtype or input.dtype)


def randn_like(x: Any, dtype: Any = None, name: Optional[str] = None) -> Any:
    """Standard normal samples with x's shape (and dtype unless given)."""
    x = as_tensor(x)
    return randn(x.shape, dtype or x.dtype)


def broadcast_shapes(*shapes: Any) -> list:
    """The shape all of `shapes` broadcast to (a tensor stands for its shape)."""
    lists = [list(s.shape) if is_tensor(s) else list(s) for s in shapes]
    if not lists:
        return []
    out = lists[0]
    for s in lists[1:]:
        out = list(broadcast_shape(out, s))
    return out
