"""Gathering and selection: gather, gather_nd, take_along_axis, unbind, masked_select, nonzero."""
from __future__ import annotations

from typing import List

from .builder import OpContext
from .table import lowers, not_exportable


@lowers("gather")
def gather(cx: OpContext) -> List[str]:
    return [cx.node("Gather", [cx.input(0), cx.input_as(1, "int64")], axis=int(cx.attrs["axis"]))]


@lowers("unbind")
def unbind(cx: OpContext) -> List[str]:
    return [cx.node("Gather", [cx.input(0), cx.const(int(cx.attrs["index"]), "int64")],
                    axis=int(cx.attrs["axis"]))]


@lowers("gather_nd")
def gather_nd(cx: OpContext) -> List[str]:
    return [cx.node("GatherND", [cx.input(0), cx.input_as(1, "int64")])]


@lowers("take_along_axis")
def take_along_axis(cx: OpContext) -> List[str]:
    arr, idx = cx.input(0), cx.input_as(1, "int64")
    rank = len(cx.in_var(0)._shape)
    axis = int(cx.attrs["axis"]) % rank
    # both broadcast against each other on every dim but `axis` (as the kernel does)
    s_arr, s_idx = cx.node("Shape", [arr]), cx.node("Shape", [idx])
    both = cx.node("Max", [s_arr, s_idx])
    on_axis = cx.const([i == axis for i in range(rank)])
    idx = cx.node("Expand", [idx, cx.node("Where", [on_axis, s_idx, both])])
    arr = cx.node("Expand", [arr, cx.node("Where", [on_axis, s_arr, both])])
    return [cx.node("GatherElements", [arr, idx], axis=axis)]


@lowers("masked_select")
def masked_select(cx: OpContext) -> List[str]:
    x = cx.node("Expand", [cx.input(0), cx.node("Shape", [cx.input(1)])])
    mask = cx.node("Expand", [cx.input_as(1, "bool"), cx.node("Shape", [x])])
    flat = [cx.node("Reshape", [v, cx.ints([-1])]) for v in (x, mask)]
    return [cx.node("Compress", flat, axis=0)]


@lowers("nonzero")
def nonzero(cx: OpContext) -> List[str]:
    if not cx.in_var(0)._shape:
        raise cx.fail("nonzero of a 0-d tensor cannot be exported")
    return [cx.node("Transpose", [cx.node("NonZero", [cx.input(0)])], perm=[1, 0])]


not_exportable("no ONNX lowering written yet (scatter with accumulation and reductions)",
               "put_along_axis", "scatter")
