"""Elementwise and NaN-skipping math composed from existing differentiable ops: lerp, hypot,
atan2, clamp, masked_fill, nansum, nanmean, count_nonzero, isin, cross, diff, diagonal."""
from __future__ import annotations

import math as _math
from typing import Any, List, NamedTuple, Optional

from ..dtype import bool_, int64
from . import infer as I
from .creation import zeros_like
from .dims import dims
from .gather import gather
from .math import abs as _abs, atan, clip, isnan, logical_and, logical_not, sqrt  # noqa: F401
from .operands import as_tensor, cast
from .reduce import any as _any, sum as _sum
from .selection import where
from .shape import concat, flatten, transpose, unsqueeze
from .slicing import strided_slice

_BIG = 2 ** 62     # an end bound past any dim (slices clamp it)


def lerp(x: Any, y: Any, weight: Any, name: Optional[str] = None) -> Any:
    """x + weight * (y - x)."""
    return x + weight * (y - x)


def hypot(x: Any, y: Any, name: Optional[str] = None) -> Any:
    """sqrt(x**2 + y**2), elementwise."""
    return sqrt(x * x + y * y)


def atan2(x: Any, y: Any, name: Optional[str] = None) -> Any:
    """The angle of the point (y, x) in (-pi, pi] (Paddle's argument order: x is the ordinate)."""
    x, y = as_tensor(x), as_tensor(y)
    if not x.dtype.is_floating:
        x, y = cast(x, "float64"), cast(y, "float64")
    zero = zeros_like(y)
    safe_y = where(y == 0, zero + 1, y)             # keeps the unselected branch finite
    base = atan(x / safe_y)
    quad = where(x >= 0, base + _math.pi, base - _math.pi)
    on_axis = where(x > 0, zero + _math.pi / 2, where(x < 0, zero - _math.pi / 2, zero))
    return where(y > 0, base, where(y < 0, quad, on_axis))


def clamp(x: Any, min: Any = None, max: Any = None, name: Optional[str] = None) -> Any:
    """clip under its other name."""
    return clip(x, min, max)


def masked_fill(x: Any, mask: Any, value: Any, name: Optional[str] = None) -> Any:
    """x with `value` where the (broadcast) bool `mask` holds."""
    x = as_tensor(x)
    value = cast(as_tensor(value), x.dtype) if hasattr(value, "dtype") else value
    out = where(mask, value, x)
    return out


def nansum(x: Any, axis: Any = None, dtype: Any = None, keepdim: bool = False,
           name: Optional[str] = None) -> Any:
    """The sum skipping NaNs."""
    return _sum(where(isnan(x), zeros_like(x), x), axis=axis, dtype=dtype, keepdim=keepdim)


def nanmean(x: Any, axis: Any = None, keepdim: bool = False, name: Optional[str] = None) -> Any:
    """The mean of the non-NaN entries (NaN where there are none)."""
    nan = isnan(x)
    total = _sum(where(nan, zeros_like(x), x), axis=axis, keepdim=keepdim)
    count = _sum(cast(logical_not_(nan), x.dtype), axis=axis, keepdim=keepdim)
    return total / count


def logical_not_(t: Any) -> Any:
    return logical_not(t)


def count_nonzero(x: Any, axis: Any = None, keepdim: bool = False,
                  name: Optional[str] = None) -> Any:
    """How many entries are not zero (int64)."""
    return _sum(cast(x != 0, int64), axis=axis, keepdim=keepdim)


def isin(x: Any, test_x: Any, assume_unique: bool = False, invert: bool = False,
         name: Optional[str] = None) -> Any:
    """Whether each entry of x occurs in test_x (bool, shape of x)."""
    x = as_tensor(x)
    hit = _any(unsqueeze(x, -1) == flatten(as_tensor(test_x)), axis=-1)
    return logical_not_(hit) if invert else hit


def _take(x: Any, axis: int, k: int) -> Any:
    return strided_slice(x, [axis], [k], [k + 1], [1])


def cross(x: Any, y: Any, axis: int = 9, name: Optional[str] = None) -> Any:
    """The cross product of 3-vectors along `axis` (default 9: the first dim of size 3)."""
    x, y = as_tensor(x), as_tensor(y)
    shape = dims(x)
    if axis == 9:
        sizes = [a for a, d in enumerate(shape) if d == 3]
        if not sizes:
            raise ValueError(f"cross: no dim of size 3 in shape {list(shape)}")
        axis = sizes[0]
    (axis,) = I.norm_axes(axis, len(shape))
    if shape[axis] != 3:
        raise ValueError(f"cross: dim {axis} of shape {list(shape)} must have size 3")
    x1, x2, x3 = (_take(x, axis, k) for k in range(3))
    y1, y2, y3 = (_take(y, axis, k) for k in range(3))
    return concat([x2 * y3 - x3 * y2, x3 * y1 - x1 * y3, x1 * y2 - x2 * y1], axis=axis)


def diff(x: Any, n: int = 1, axis: int = -1, prepend: Any = None, append: Any = None,
         name: Optional[str] = None) -> Any:
    """The n-th forward difference along `axis` (after joining prepend / append)."""
    x = as_tensor(x)
    (axis,) = I.norm_axes(axis, len(dims(x)))
    parts = [t for t in (prepend, x, append) if t is not None]
    if len(parts) > 1:
        x = concat([cast(as_tensor(t), x.dtype) for t in parts], axis=axis)
    for _ in range(n):
        hi = strided_slice(x, [axis], [1], [_BIG], [1])
        lo = strided_slice(x, [axis], [0], [-1], [1])
        x = (hi != lo) if x.dtype == bool_ else hi - lo
    return x


class DiagonalPlanes(NamedTuple):
    """x with its (axis1, axis2) planes moved last and flattened, and where a diagonal lies."""
    planes: Any          # x transposed so the two plane dims come last
    flat: Any            # planes with the two plane dims flattened into one
    perm: List[int]      # the transpose that made `planes`
    positions: List[int]  # the diagonal's entries in the flattened plane dim


def diagonal_planes(x: Any, offset: int, axis1: int, axis2: int, op: str) -> DiagonalPlanes:
    """The planes of x that a diagonal at `offset` runs through (their dims must be known)."""
    shape = dims(x)
    a1, a2 = I.norm_axes([axis1, axis2], len(shape))
    if a1 == a2:
        raise ValueError(f"{op}: axis1 and axis2 must differ")
    n, m = shape[a1], shape[a2]
    if n < 0 or m < 0:
        raise ValueError(f"{op}: the two dims of the planes must be known")
    rest = [a for a in range(len(shape)) if a not in (a1, a2)]
    perm = rest + [a1, a2]
    planes = transpose(x, perm)
    flat = flatten(planes, start_axis=len(rest), stop_axis=len(rest) + 1)
    rows = range(max(0, -offset), min(n, m - offset))
    return DiagonalPlanes(planes, flat, perm, [r * m + r + offset for r in rows])


def diagonal(x: Any, offset: int = 0, axis1: int = 0, axis2: int = 1,
             name: Optional[str] = None) -> Any:
    """The diagonal of the (axis1, axis2) planes, as the last dim (batch dims may be unknown)."""
    x = as_tensor(x)
    d = diagonal_planes(x, offset, axis1, axis2, "diagonal")
    return gather(d.flat, as_tensor(d.positions, "int64"), axis=len(d.perm) - 2)
