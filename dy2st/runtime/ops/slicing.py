"""Slicing and splitting: slice, strided_slice, split, chunk, unbind.

A bound may be a tensor: it is then an op input and its attribute slot holds None, so the op's
attributes stay JSON-able for saved Programs."""
from __future__ import annotations

import builtins
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from ..registry import Meta, apply, register_op
from ..tensor import Tensor
from .operands import as_tensor, is_tensor


def _encode(values: Any, tensors: List[Any]) -> List[Optional[int]]:
    """Ints stay in the attribute; symbolic tensors become inputs (slot None)."""
    if is_tensor(values):
        if isinstance(values, Tensor):
            return [int(v) for v in values._value.reshape(-1)]
        n = values._shape[0] if values._shape else 1
        if n < 0:
            raise ValueError("slice bounds given as a tensor need a known length")
        out: List[Optional[int]] = []
        for i in range(n):
            tensors.append(values[i] if values._shape else values)
            out.append(None)
        return out
    if isinstance(values, int):
        values = [values]
    out = []
    for v in values:
        if is_tensor(v) and not isinstance(v, Tensor):
            tensors.append(as_tensor(v, "int64"))
            out.append(None)
        else:
            out.append(int(v))
    return out


def decode_slots(slots: Sequence[Optional[int]], it) -> List[int]:
    return [int(next(it)) if v is None else v for v in slots]


def _strided_infer(x, *tensors, axes, starts, ends, strides):
    shape = list(x._shape)
    for a, s, e, st in zip(axes, starts, ends, strides):
        if a >= len(shape):
            raise ValueError(f"slice: axis {a} is out of range for shape {list(x._shape)}")
        d = shape[a]
        if st == 0:
            raise ValueError("strided_slice: a stride cannot be 0")
        if d < 0 or s is None or e is None or st is None:
            shape[a] = -1
        else:
            shape[a] = len(range(*builtins.slice(s, e, st).indices(d)))
    return Meta(tuple(shape), x.dtype)


@register_op("strided_slice", infer=_strided_infer)
def _strided_kernel(x, *tensors, axes, starts, ends, strides):
    it = iter(tensors)
    s, e, st = decode_slots(starts, it), decode_slots(ends, it), decode_slots(strides, it)
    index = [builtins.slice(None)] * x.ndim
    for a, b0, b1, step in zip(axes, s, e, st):
        index[a] = builtins.slice(b0, b1, step)
    return x[tuple(index)].copy()


def _norm_axes(x: Any, axes: Any) -> List[int]:
    axes = [axes] if isinstance(axes, int) else [int(a) for a in axes]
    return [a % x.ndim if a < 0 else a for a in axes]


def strided_slice(x: Any, axes: Sequence[int], starts: Any, ends: Any, strides: Any,
                  name: Optional[str] = None) -> Any:
    """x[starts:ends:strides] along each of `axes` (Python slice rules; bounds may be tensors)."""
    tensors: List[Any] = []
    s, e, st = _encode(starts, tensors), _encode(ends, tensors), _encode(strides, tensors)
    axes = _norm_axes(x, axes)
    if not len(axes) == len(s) == len(e) == len(st):
        raise ValueError(f"strided_slice: axes {axes}, starts, ends and strides differ in length")
    return apply("strided_slice", [x, *tensors], {"axes": axes, "starts": s, "ends": e,
                                                   "strides": st})


def slice(input: Any, axes: Sequence[int], starts: Any, ends: Any, name: Optional[str] = None) -> Any:
    """input[starts:ends] along each of `axes`; out-of-range bounds are clamped."""
    axes = _norm_axes(input, axes)
    return strided_slice(input, axes, starts, ends, [1] * len(axes))


# ----------------------------------------------------------------------------- split
def piece_bounds(op: str, dim: int, num: Optional[int], sections: Optional[List[int]],
                  shape: Sequence[int]) -> List[Tuple[int, int]]:
    """(start, stop) of every piece along an axis of known length `dim`."""
    if num is not None:
        if dim % num:
            raise ValueError(f"{op}: the dim of size {dim} (shape {list(shape)}) cannot be split "
                             f"into {num} equal pieces")
        sizes = [dim // num] * num
    else:
        sizes = list(sections)
        if sizes.count(-1) == 1:
            rest = dim - (sum(sizes) + 1)
            if rest < 0:
                raise ValueError(f"{op}: sections {sections} exceed the dim of size {dim} "
                                 f"(shape {list(shape)})")
            sizes[sizes.index(-1)] = rest
        if sum(sizes) != dim:
            raise ValueError(f"{op}: sections {sections} do not add up to the dim of size {dim} "
                             f"(shape {list(shape)})")
    bounds, start = [], 0
    for n in sizes:
        bounds.append((start, start + n))
        start += n
    return bounds


def _split_infer(x, axis, num, sections, index):
    shape = list(x._shape)
    d = shape[axis]
    if d >= 0:
        lo, hi = piece_bounds("split", d, num, sections, x._shape)[index]
        shape[axis] = hi - lo
    elif sections is not None and sections[index] != -1:
        shape[axis] = sections[index]
    else:
        shape[axis] = -1
    return Meta(tuple(shape), x.dtype)


@register_op("split", infer=_split_infer)
def _split_kernel(x, axis, num, sections, index):
    # One op per piece keeps static mode simple (a fixed single output); slicing is a view.
    lo, hi = piece_bounds("split", x.shape[axis], num, sections, x.shape)[index]
    index_ = [np.s_[:]] * x.ndim
    index_[axis] = np.s_[lo:hi]
    return x[tuple(index_)].copy()


def split(x: Any, num_or_sections: Any, axis: Any = 0, name: Optional[str] = None) -> List[Any]:
    """Split x along `axis` into equal pieces (an int) or pieces of the given sizes (one may be -1)."""
    axis = int(axis) % x.ndim
    if isinstance(num_or_sections, int):
        num, sections, count = int(num_or_sections), None, int(num_or_sections)
        if num <= 0:
            raise ValueError(f"split: the number of pieces must be positive, got {num}")
    else:
        num = None
        sections = [int(s) for s in num_or_sections]
        if sections.count(-1) > 1:
            raise ValueError(f"split: at most one section may be -1, got {sections}")
        count = len(sections)
    return [apply("split", [x], {"axis": axis, "num": num, "sections": sections, "index": i})
            for i in range(count)]


def chunk(x: Any, chunks: int, axis: Any = 0, name: Optional[str] = None) -> List[Any]:
    """Split x into `chunks` equal pieces along `axis`."""
    return split(x, int(chunks), axis)


@register_op("unbind", infer=lambda x, axis, index: Meta(
    tuple(d for i, d in enumerate(x._shape) if i != axis), x.dtype))
def _unbind_kernel(x, axis, index):
    return np.take(x, index, axis=axis)


def unbind(input: Any, axis: int = 0) -> List[Any]:
    """The slices of `input` along `axis`, with that axis removed."""
    axis = int(axis) % input.ndim
    n = input._value.shape[axis] if isinstance(input, Tensor) else input._shape[axis]
    if n < 0:
        raise ValueError(f"unbind: dim {axis} of shape {list(input._shape)} is unknown, so the "
                         "number of outputs is unknown")
    return [apply("unbind", [input], {"axis": axis, "index": i}) for i in range(n)]
