"""Shape and dtype inference shared by many ops (unknown dims are -1)."""
from __future__ import annotations

from typing import Any, Iterable, List, Optional, Sequence, Tuple

from ..dtype import DTYPES, FLOATING_DTYPES, DType, bool_, convert_dtype
from ..errors import broadcast_mismatch
from ..registry import Meta

# DType.is_floating / is_integer ask numpy on every call; tracing asks per op
FLOATING = FLOATING_DTYPES     # one set: bfloat16 joins it when it registers
INTEGER = frozenset(d for d in DTYPES.values() if d.is_integer)


def attr_dtype(dtype: Any) -> DType:
    """The DType of an op's dtype attribute (ops store a dtype's name)."""
    found = DTYPES.get(dtype) if type(dtype) is str else None
    return found if found is not None else convert_dtype(dtype)


def broadcast_shapes(op: str, a: Sequence[int], b: Sequence[int]) -> Tuple[int, ...]:
    if a == b or not b:     # the common cases while tracing: same shapes, or with a scalar
        return tuple(a)
    if not a:
        return tuple(b)
    out: List[int] = []
    for i in range(1, max(len(a), len(b)) + 1):
        da = a[-i] if i <= len(a) else 1
        db = b[-i] if i <= len(b) else 1
        if da == db:
            out.append(da)
        elif da == 1:
            out.append(db)
        elif db == 1:
            out.append(da)
        elif da == -1 or db == -1:
            out.append(max(da, db))
        else:
            raise ValueError(broadcast_mismatch(op, a, b))
    return tuple(reversed(out))


def same(x, **attrs) -> Meta:
    return Meta(x._shape, x.dtype)


def same_as_bool(x, **attrs) -> Meta:
    return Meta(x._shape, bool_)


def binary(op: str):
    def infer(x, y, **attrs) -> Meta:
        return Meta(broadcast_shapes(op, x._shape, y._shape), x.dtype)
    return infer


def binary_bool(op: str):
    def infer(x, y, **attrs) -> Meta:
        return Meta(broadcast_shapes(op, x._shape, y._shape), bool_)
    return infer


def norm_axes(axis, ndim: int) -> Optional[Tuple[int, ...]]:
    if axis is None:
        return None
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    if not axes:
        return None
    out = []
    for a in axes:
        if not -max(ndim, 1) <= a < max(ndim, 1):
            raise ValueError(f"axis {a} is out of range for a tensor of rank {ndim}")
        out.append(a % ndim if ndim else 0)
    return tuple(out)


def reduced_shape(shape: Sequence[int], axis, keepdim: bool) -> Tuple[int, ...]:
    axes = norm_axes(axis, len(shape))
    if axes is None:
        axes = tuple(range(len(shape)))
    if keepdim:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def reduce(dtype: Optional[str] = None):
    def infer(x, axis=None, keepdim=False, **attrs) -> Meta:
        out_dtype = convert_dtype(attrs["dtype"]) if attrs.get("dtype") else (
            convert_dtype(dtype) if dtype else x.dtype)
        return Meta(reduced_shape(x._shape, axis, keepdim), out_dtype)
    return infer


def known(dims: Iterable[int]) -> bool:
    return all(d >= 0 for d in dims)


def prod(dims: Iterable[int]) -> int:
    n = 1
    for d in dims:
        n *= d
    return n
