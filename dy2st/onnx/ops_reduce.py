"""Reductions: sum, mean, max, min, prod, any, all, argmax, argmin."""
from __future__ import annotations

from typing import List, Optional

from .builder import OpContext
from .table import lowers


def axes_attr(cx: OpContext) -> Optional[List[int]]:
    """The op's `axis` attr as a list of axes, or None for all of them."""
    axis = cx.attrs.get("axis")
    if axis is None:
        return None
    axes = [axis] if isinstance(axis, int) else list(axis)
    return axes or None


def reduce(cx: OpContext, onnx_op: str, x: str, axes: Optional[List[int]], keepdim: bool) -> str:
    """An ONNX Reduce* over `axes` (None: all), with axes as an input (sum since opset 13, the
    others since 18) or as an attribute (before)."""
    keep = int(bool(keepdim))
    if axes is None:
        return cx.node(onnx_op, [x], keepdims=keep)
    if onnx_op == "ReduceSum" or cx.opset >= 18:
        return cx.node(onnx_op, [x, cx.ints(axes)], keepdims=keep)
    return cx.node(onnx_op, [x], keepdims=keep, axes=list(axes))


_REDUCE = {"sum": "ReduceSum", "mean": "ReduceMean", "max": "ReduceMax", "min": "ReduceMin",
           "prod": "ReduceProd"}


@lowers(*_REDUCE)
def reduce_op(cx: OpContext) -> List[str]:
    d = cx.out_dtype
    if cx.op.type == "mean" and not d.startswith(("float", "bfloat")):
        # Paddle's integer mean truncates toward zero, its bool mean is "any": both are the
        # float64 mean cast back (ONNX casts toward zero, nonzero to True)
        work = "float64"
    else:
        # ONNX reduces numbers only, and no integer narrower than 32 bits (the sum of int8
        # wraps around in int8 as Paddle's does, through the cast back)
        work = "int32" if d in ("bool", "int8", "int16", "uint8") else d
    x = cx.input_as(0, work)
    out = reduce(cx, _REDUCE[cx.op.type], x, axes_attr(cx), cx.attrs["keepdim"])
    return [cx.cast(out, work, d)]


@lowers("any", "all")
def any_all(cx: OpContext) -> List[str]:
    x = cx.input_as(0, "int32")
    op = "ReduceMax" if cx.op.type == "any" else "ReduceMin"
    out = reduce(cx, op, x, axes_attr(cx), cx.attrs["keepdim"])
    return [cx.cast(out, "int32", "bool")]


@lowers("argmax", "argmin")
def arg_reduce(cx: OpContext) -> List[str]:
    op = "ArgMax" if cx.op.type == "argmax" else "ArgMin"
    x = cx.input_as(0, "int32") if cx.dtype(0) == "bool" else cx.input(0)
    axis, keep = cx.attrs["axis"], bool(cx.attrs["keepdim"])
    if axis is None:
        rank = len(cx.in_var(0)._shape)
        flat = cx.node("Reshape", [x, cx.ints([-1])])
        out = cx.node(op, [flat], axis=0, keepdims=0)
        if keep:
            out = cx.node("Reshape", [out, cx.ints([1] * rank)])
    else:
        out = cx.node(op, [x], axis=int(axis), keepdims=int(keep))
    return [cx.cast(out, "int64", cx.out_dtype)]
