"""Order-based ops: sort, argsort, topk, unique."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..dtype import convert_dtype, dtype_name, int64
from ..registry import Meta, apply, register_op
from . import infer as I
from .operands import as_tensor, is_tensor


def _axis_of(x, axis: int) -> int:
    (ax,) = I.norm_axes(axis, x.ndim)
    return ax


def _argsort_np(x: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """Stable argsort; descending order keeps equal values in index order, as Paddle does."""
    if x.ndim == 0:
        return np.zeros((), dtype=np.int64)
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    # Sort the reversed array ascending and reverse back: ties end up in increasing index order
    # without negating x (which overflows for the smallest int and is wrong for bool/uint).
    n = x.shape[axis]
    rev = np.flip(x, axis)
    idx = np.flip(np.argsort(rev, axis=axis, kind="stable"), axis)
    return (n - 1) - idx


@register_op("argsort", infer=lambda x, axis, descending: Meta(x._shape, int64))
def _argsort_kernel(x, axis, descending):
    return _argsort_np(x, axis, descending).astype(np.int64)


@register_op("sort", infer=lambda x, axis, descending: Meta(x._shape, x.dtype))
def _sort_kernel(x, axis, descending):
    if x.ndim == 0:
        return x.copy()
    return np.take_along_axis(x, _argsort_np(x, axis, descending), axis)


def argsort(x: Any, axis: int = -1, descending: bool = False, stable: bool = False,
            name: Optional[str] = None) -> Any:
    """Indices (int64) that sort x along `axis`; always stable."""
    return apply("argsort", [x], {"axis": _axis_of(x, axis) if x.ndim else 0,
                                  "descending": bool(descending)})


def sort(x: Any, axis: int = -1, descending: bool = False, stable: bool = False,
         name: Optional[str] = None) -> Any:
    """x sorted along `axis` (the values only, as in Paddle; see argsort for indices)."""
    return apply("sort", [x], {"axis": _axis_of(x, axis) if x.ndim else 0,
                               "descending": bool(descending)})


# ----------------------------------------------------------------------------- topk
def _topk_infer(x, *k_tensor, k, axis, largest, sorted):
    shape = list(x._shape)
    if k is not None and shape[axis] >= 0 and k > shape[axis]:
        raise ValueError(f"topk: k={k} is larger than dim {axis} of shape {list(x._shape)}")
    shape[axis] = -1 if k is None else k
    return Meta(tuple(shape), x.dtype), Meta(tuple(shape), int64)


@register_op("topk", infer=_topk_infer, n_outputs=2)
def _topk_kernel(x, *k_tensor, k, axis, largest, sorted):
    k = int(k_tensor[0]) if k is None else k
    if k > x.shape[axis]:
        raise ValueError(f"topk: k={k} is larger than dim {axis} of shape {list(x.shape)}")
    idx = np.take(_argsort_np(x, axis, largest), np.arange(k), axis=axis)
    return np.take_along_axis(x, idx, axis), idx.astype(np.int64)


def topk(x: Any, k: Any, axis: Optional[int] = None, largest: bool = True, sorted: bool = True,
         name: Optional[str] = None) -> Any:
    """(values, indices) of the k largest (or smallest) entries along `axis` (default -1)."""
    ax = _axis_of(x, -1 if axis is None else axis)
    if is_tensor(k) and not hasattr(k, "_value"):
        return apply("topk", [x, as_tensor(k, "int64")], {"k": None, "axis": ax,
                                                          "largest": bool(largest), "sorted": True})
    return apply("topk", [x], {"k": int(k), "axis": ax, "largest": bool(largest), "sorted": True})


# ----------------------------------------------------------------------------- unique
def _unique_infer(x, axis, dtype):
    if axis is None:
        out_shape = (-1,)
        inv = (I.prod(x._shape) if I.known(x._shape) else -1,)
    else:
        out_shape = tuple(-1 if i == axis else d for i, d in enumerate(x._shape))
        inv = (x._shape[axis],)
    d = convert_dtype(dtype)
    return [Meta(out_shape, x.dtype), Meta((-1,), d), Meta(inv, d), Meta((-1,), d)]


@register_op("unique", infer=_unique_infer, n_outputs=4)
def _unique_kernel(x, axis, dtype):
    src = x.reshape(-1) if axis is None else x
    out, index, inverse, counts = np.unique(src, return_index=True, return_inverse=True,
                                            return_counts=True, axis=axis)
    # numpy 2 may give the inverse in the input's shape; Paddle's is always 1-D.
    return out, index.astype(dtype), inverse.reshape(-1).astype(dtype), counts.astype(dtype)


def unique(x: Any, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis: Optional[int] = None, dtype: Any = "int64",
           name: Optional[str] = None) -> Any:
    """Sorted unique values (of the flattened x, or unique slices along `axis`), plus optionally
    first-occurrence indices, the inverse mapping and counts."""
    ax = None if axis is None else _axis_of(x, axis)
    outs = apply("unique", [x], {"axis": ax, "dtype": dtype_name(dtype)})
    picked = [outs[0]] + [o for o, want in zip(outs[1:], (return_index, return_inverse,
                                                            return_counts)) if want]
    return picked[0] if len(picked) == 1 else tuple(picked)
