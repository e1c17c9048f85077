"""Gathering and scattering by index: gather, gather_nd, index_select, scatter,
take_along_axis, put_along_axis."""
from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from ..dtype import dtype_name
from ..registry import Meta, apply, register_op
from . import infer as I
from .dims import dims
from .operands import as_tensor, cast, is_tensor
from .shape import reshape


def _axis(x: Any, axis: Any) -> int:
    axis = 0 if axis is None else int(axis)
    (ax,) = I.norm_axes(axis, x.ndim)
    return ax


def _check_index(op: str, index: Any) -> None:
    if not index.dtype.is_integer:
        raise TypeError(f"{op}: index must be an int tensor, got {dtype_name(index.dtype)}")


def _gather_infer(x, index, axis):
    if len(index._shape) > 1:
        raise ValueError(f"gather: index must be 0-D or 1-D, got shape {list(index._shape)}")
    return Meta(x._shape[:axis] + index._shape + x._shape[axis + 1:], x.dtype)


@register_op("gather", infer=_gather_infer)
def _gather_kernel(x, index, axis):
    return np.take(x, index, axis=axis)


def gather(x: Any, index: Any, axis: Any = None, name: Optional[str] = None) -> Any:
    """Slices of x along `axis` (default 0) at the positions in a 0-D or 1-D `index` (an index
    of shape [N, 1] is taken as 1-D, as Paddle does)."""
    index = as_tensor(index)
    _check_index("gather", index)
    index = _squeeze_column(index)
    return apply("gather", [x, index], {"axis": _axis(x, axis)})


def _squeeze_column(index: Any) -> Any:
    if len(dims(index)) == 2 and dims(index)[1] == 1:
        return reshape(index, [-1])
    return index


def index_select(x: Any, index: Any, axis: int = 0, name: Optional[str] = None) -> Any:
    """Slices of x along `axis` at the positions in the 1-D `index`."""
    index = as_tensor(index)
    _check_index("index_select", index)
    if index.ndim != 1:
        raise ValueError(f"index_select: index must be 1-D, got rank {index.ndim}")
    return apply("gather", [x, index], {"axis": _axis(x, axis)})


def _gather_nd_infer(x, index):
    k = index._shape[-1] if index._shape else 0
    if k < 0:
        raise ValueError("gather_nd: the last dim of index must be known")
    if k > len(x._shape):
        raise ValueError(f"gather_nd: index shape {list(index._shape)} indexes more dims than "
                         f"x has (shape {list(x._shape)})")
    return Meta(index._shape[:-1] + x._shape[k:], x.dtype)


@register_op("gather_nd", infer=_gather_nd_infer)
def _gather_nd_kernel(x, index):
    return np.asarray(x[tuple(np.moveaxis(index, -1, 0))]).copy()


def gather_nd(x: Any, index: Any, name: Optional[str] = None) -> Any:
    """x at the multi-dim positions in the last dim of `index`."""
    index = as_tensor(index)
    _check_index("gather_nd", index)
    return apply("gather_nd", [x, index])


def _scatter_infer(x, index, updates, overwrite):
    if len(index._shape) > 1:
        raise ValueError(f"scatter: index must be 0-D or 1-D, got shape {list(index._shape)}")
    return Meta(x._shape, x.dtype)


@register_op("scatter", infer=_scatter_infer)
def _scatter_kernel(x, index, updates, overwrite):
    out = x.copy()
    updates = updates.astype(x.dtype, copy=False)
    if overwrite:
        out[index] = updates
    else:
        # Paddle's accumulate mode: the target rows are zeroed first, then every update is added.
        out[index] = 0
        np.add.at(out, index, updates)
    return out


def scatter(x: Any, index: Any, updates: Any, overwrite: bool = True,
            name: Optional[str] = None) -> Any:
    """A copy of x with rows `index` replaced by (or, overwrite=False, the sum of) `updates`."""
    index = as_tensor(index)
    _check_index("scatter", index)
    return apply("scatter", [x, index, cast(as_tensor(updates), x.dtype)],
                 {"overwrite": bool(overwrite)})


# ----------------------------------------------------------------------------- along an axis
def _along_shape(op: str, arr, indices, axis):
    if len(arr) != len(indices):
        raise ValueError(f"{op}: arr shape {list(arr)} and indices shape {list(indices)} "
                         "differ in rank")
    out = []
    for i, (a, b) in enumerate(zip(arr, indices)):
        out.append(b if i == axis else I.broadcast_shapes(op, (a,), (b,))[0])
    return tuple(out)


def _take_infer(arr, indices, axis):
    return Meta(_along_shape("take_along_axis", arr._shape, indices._shape, axis), arr.dtype)


def along_index(arr_shape, indices, axis, broadcast_to: Callable = np.broadcast_to):
    """A full fancy-index tuple for take_along_axis and its scatters: indices along `axis`
    (broadcast with arr over the other dims by `broadcast_to`, numpy's or jax's), aranges over
    the others; and the shape they index."""
    shape = list(np.broadcast_shapes(
        tuple(1 if i == axis else d for i, d in enumerate(arr_shape)), tuple(indices.shape)))
    shape[axis] = indices.shape[axis]
    indices = broadcast_to(indices, shape)
    idx = []
    for i, n in enumerate(shape):
        if i == axis:
            idx.append(indices)
        else:
            view = [1] * len(shape)
            view[i] = n
            idx.append(np.arange(n).reshape(view))
    return tuple(idx), shape


@register_op("take_along_axis", infer=_take_infer)
def _take_kernel(arr, indices, axis):
    idx, _ = along_index(arr.shape, indices, axis)
    return arr[idx]


def take_along_axis(arr: Any, indices: Any, axis: int, broadcast: bool = True,
                    name: Optional[str] = None) -> Any:
    """arr at `indices` along `axis` (indices broadcast with arr over the other dims)."""
    indices = as_tensor(indices)
    _check_index("take_along_axis", indices)
    return apply("take_along_axis", [arr, indices], {"axis": _axis(arr, axis)})


_REDUCERS = {"add": np.add, "mul": np.multiply, "multiply": np.multiply,
             "amax": np.maximum, "amin": np.minimum}


def _put_infer(arr, indices, values, axis, reduce, include_self):
    _along_shape("put_along_axis", arr._shape, indices._shape, axis)
    return Meta(arr._shape, arr.dtype)


@register_op("put_along_axis", infer=_put_infer)
def _put_kernel(arr, indices, values, axis, reduce, include_self):
    idx, shape = along_index(arr.shape, indices, axis)
    values = np.broadcast_to(values, shape).astype(arr.dtype, copy=False)
    out = arr.copy()
    if reduce == "assign":
        out[idx] = values
        return out
    if reduce == "mean":
        total = out.astype(np.float64) if include_self else np.zeros(out.shape)
        count = np.ones(out.shape) if include_self else np.zeros(out.shape)
        np.add.at(total, idx, values)
        np.add.at(count, idx, 1)
        touched = np.zeros(out.shape, bool)
        touched[idx] = True
        mean = total / np.maximum(count, 1)
        if out.dtype.kind in "iu":
            mean = np.floor(mean)
        return np.where(touched, mean, out).astype(arr.dtype)
    ufunc = _REDUCERS[reduce]
    if not include_self:
        # Start the touched positions from the reduction's identity so only `values` count.
        out[idx] = _identity(reduce, out.dtype)
    ufunc.at(out, idx, values)
    return out


def _identity(reduce: str, dtype: np.dtype) -> Any:
    if reduce == "add":
        return 0
    if reduce in ("mul", "multiply"):
        return 1
    info = np.finfo(dtype) if dtype.kind == "f" else np.iinfo(dtype)
    return info.min if reduce == "amax" else info.max


def put_along_axis(arr: Any, indices: Any, values: Any, axis: int, reduce: str = "assign",
                   include_self: bool = True, broadcast: bool = True,
                   name: Optional[str] = None) -> Any:
    """A copy of arr with `values` put (or reduced: add, mul, amax, amin, mean) at `indices`
    along `axis`."""
    if reduce not in ("assign", "mean") and reduce not in _REDUCERS:
        raise ValueError(f"put_along_axis: unknown reduce {reduce!r}; use assign, add, mul, "
                         "multiply, amax, amin or mean")
    indices = as_tensor(indices)
    _check_index("put_along_axis", indices)
    values = cast(as_tensor(values), arr.dtype) if is_tensor(values) else as_tensor(values, arr.dtype)
    return apply("put_along_axis", [arr, indices, values],
                 {"axis": _axis(arr, axis), "reduce": reduce, "include_self": bool(include_self)})
