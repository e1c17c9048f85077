"""Reductions: sum, mean, max, min, prod, any, all, argmax, argmin."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..dtype import convert_dtype, dtype_name, int64
from ..registry import Meta, apply, register_op
from . import infer as I
from .creation import cast
from .operands import as_tensor


def np_axis(axis):
    if axis is None:
        return None
    if isinstance(axis, (list, tuple)):
        return tuple(axis) if axis else None
    return axis


# A reduction's result is a new array (or a numpy scalar): np.asarray(out, dtype) makes it an
# array of the op's dtype without copying it again when it already is one.
# np.add.reduce is what np.sum runs, without its Python wrapper (a small tensor's loop reads a
# sum every turn: the wrapper cost more than the sum).
# Paddle 3.3.1 sums bool, int32 (and uint32) into int64 and keeps every other dtype: uint8,
# int8 and int16 sums wrap around in their own dtype there; uint64 stays (int64 would wrap)
_SUM_TO_INT64 = frozenset(("bool", "int32", "uint32"))


def _sum_kernel(x, axis, keepdim, dtype):
    out = np.add.reduce(x, axis=np_axis(axis), keepdims=keepdim)
    want = dtype or (np.int64 if x.dtype.name in _SUM_TO_INT64 else x.dtype)
    if type(out) is np.ndarray and out.dtype == want:
        return out
    return np.asarray(out).astype(want, copy=False)


def _sum_infer(x, axis, keepdim, dtype):
    if dtype:
        d = convert_dtype(dtype)
    else:
        d = int64 if dtype_name(x.dtype) in _SUM_TO_INT64 else x.dtype
    return Meta(I.reduced_shape(x._shape, axis, keepdim), d)


register_op("sum", infer=_sum_infer)(_sum_kernel)


@register_op("mean", infer=I.reduce())
def _mean_kernel(x, axis, keepdim):
    """The mean in x's own dtype, as Paddle 3.3.1: an integer mean is truncated toward zero
    (mean([-1, -2]) is -1), a bool mean is True where any value is."""
    if x.dtype.kind in "fc":
        return np.asarray(np.mean(x, axis=np_axis(axis), keepdims=keepdim), dtype=x.dtype)
    out = np.mean(x, axis=np_axis(axis), keepdims=keepdim, dtype=np.float64)
    return np.asarray(out != 0 if x.dtype == np.bool_ else np.trunc(out)).astype(x.dtype)


def _same_reduce(np_fn):
    def k(x, axis, keepdim):
        return np.asarray(np_fn(x, axis=np_axis(axis), keepdims=keepdim), dtype=x.dtype)
    return k


for _name, _fn in {"max": np.max, "min": np.min, "prod": np.prod}.items():
    register_op(_name, infer=I.reduce())(_same_reduce(_fn))


def _bool_reduce(np_fn):
    def k(x, axis, keepdim):
        return np.asarray(np_fn(x, axis=np_axis(axis), keepdims=keepdim))
    return k


register_op("any", infer=I.reduce("bool"))(_bool_reduce(np.any))
register_op("all", infer=I.reduce("bool"))(_bool_reduce(np.all))


def _arg_infer(x, axis, keepdim, dtype):
    if axis is None:
        shape = (1,) * len(x._shape) if keepdim else ()
    else:
        shape = I.reduced_shape(x._shape, axis, keepdim)
    return Meta(shape, convert_dtype(dtype))


def _arg_kernel(np_fn):
    def k(x, axis, keepdim, dtype):
        if axis is None:
            out = np.asarray(np_fn(x.reshape(-1)))
            if keepdim:
                out = out.reshape((1,) * x.ndim)
        else:
            out = np.asarray(np_fn(x, axis=axis))
            if keepdim:
                out = np.expand_dims(out, axis)
        return out.astype(dtype)
    return k


register_op("argmax", infer=_arg_infer)(_arg_kernel(np.argmax))
register_op("argmin", infer=_arg_infer)(_arg_kernel(np.argmin))


def norm_axis(axis):
    if isinstance(axis, tuple):
        return list(axis)
    if hasattr(axis, "_value") or hasattr(axis, "_shape"):
        return int(axis)
    return axis


def sum(x: Any, axis: Any = None, dtype: Any = None, keepdim: bool = False,
        name: Optional[str] = None) -> Any:
    """Sum over `axis` (all axes when None); integer and bool inputs sum to int64 (uint64 to
    uint64)."""
    return apply("sum", [as_tensor(x)], {"axis": norm_axis(axis), "keepdim": bool(keepdim),
                                         "dtype": dtype_name(dtype) if dtype else None})


def mean(x: Any, axis: Any = None, keepdim: bool = False, name: Optional[str] = None) -> Any:
    """Arithmetic mean over `axis`."""
    return apply("mean", [as_tensor(x)], {"axis": norm_axis(axis), "keepdim": bool(keepdim)})


def _simple(op: str):
    def fn(x: Any, axis: Any = None, keepdim: bool = False, name: Optional[str] = None) -> Any:
        return apply(op, [as_tensor(x)], {"axis": norm_axis(axis), "keepdim": bool(keepdim)})
    fn.__name__ = op
    fn.__doc__ = f"{op} over `axis` (all axes when None)."
    return fn


max = _simple("max")
min = _simple("min")
amax = max
amin = min
any = _simple("any")
all = _simple("all")


def prod(x: Any, axis: Any = None, keepdim: bool = False, dtype: Any = None,
         name: Optional[str] = None) -> Any:
    """Product over `axis`."""
    out = apply("prod", [as_tensor(x)], {"axis": norm_axis(axis), "keepdim": bool(keepdim)})
    if dtype is not None:
        out = cast(out, dtype)
    return out


def argmax(x: Any, axis: Any = None, keepdim: bool = False, dtype: Any = "int64",
           name: Optional[str] = None) -> Any:
    """Index of the largest value (over the flattened tensor when axis is None)."""
    return apply("argmax", [x], {"axis": axis, "keepdim": bool(keepdim),
                                 "dtype": dtype_name(dtype)})


def argmin(x: Any, axis: Any = None, keepdim: bool = False, dtype: Any = "int64",
           name: Optional[str] = None) -> Any:
    """Index of the smallest value."""
    return apply("argmin", [x], {"axis": axis, "keepdim": bool(keepdim),
                                 "dtype": dtype_name(dtype)})


def _reduce_as_kernel(x, target):
    if x.shape == target.shape:
        return x
    lead = x.ndim - target.ndim
    axes = tuple(range(lead)) + tuple(
        lead + i for i, d in enumerate(target.shape) if d == 1 and x.shape[lead + i] != 1)
    return np.asarray(np.sum(x, axis=axes), dtype=x.dtype).reshape(target.shape)


register_op("reduce_as", infer=lambda x, target: Meta(target._shape, x.dtype))(_reduce_as_kernel)


def reduce_as(x: Any, target: Any, name: Optional[str] = None) -> Any:
    """x summed over the dims that broadcasting x's shape from target's shape added (the
    gradient of a broadcast): the result has target's shape."""
    return apply("reduce_as", [x, target])
