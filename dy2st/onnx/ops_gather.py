"""Gathering and selection: gather, gather_nd, take_along_axis, unbind, masked_select, nonzero."""
from __future__ import annotations

from typing import List

from .builder import OpContext
from .table import lowers


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
    axis = int(cx.attrs["axis"]) % len(cx.in_var(0)._shape)
    arr, idx = _along(cx, axis)
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


def _along(cx: OpContext, axis: int) -> tuple:
    """(arr, indices) broadcast against each other on every dim but `axis` (as the kernels do;
    put_along_axis keeps arr's shape and uses only the indices)."""
    arr, idx = cx.input(0), cx.input_as(1, "int64")
    rank = len(cx.in_var(0)._shape)
    s_arr, s_idx = cx.node("Shape", [arr]), cx.node("Shape", [idx])
    both = cx.node("Max", [s_arr, s_idx])
    on_axis = cx.const([i == axis for i in range(rank)])
    idx = cx.node("Expand", [idx, cx.node("Where", [on_axis, s_idx, both])])
    arr = cx.node("Expand", [arr, cx.node("Where", [on_axis, s_arr, both])])
    return arr, idx


_PUT_REDUCTIONS = {"add": ("add", 16), "mul": ("mul", 16), "multiply": ("mul", 16),
                   "amax": ("max", 18), "amin": ("min", 18)}


@lowers("put_along_axis")
def put_along_axis(cx: OpContext) -> List[str]:
    a = cx.attrs
    axis = int(a["axis"]) % len(cx.in_var(0)._shape)
    arr, idx = cx.input(0), _along(cx, axis)[1]
    values = cx.node("Expand", [cx.input_as(2, cx.out_dtype), cx.node("Shape", [idx])])
    if a["reduce"] == "assign":
        return [cx.node("ScatterElements", [arr, idx, values], axis=axis)]
    if a["reduce"] not in _PUT_REDUCTIONS or not a["include_self"]:
        raise cx.fail(f"put_along_axis with reduce={a['reduce']!r}, include_self="
                      f"{a['include_self']} cannot be exported")
    reduction, opset = _PUT_REDUCTIONS[a["reduce"]]
    if cx.opset < opset:
        raise cx.fail(f"put_along_axis reduce={a['reduce']!r} needs opset {opset}; export "
                      f"with opset_version >= {opset}")
    return [cx.node("ScatterElements", [arr, idx, values], axis=axis, reduction=reduction)]


@lowers("scatter")
def scatter(cx: OpContext) -> List[str]:
    x, updates = cx.input(0), cx.input_as(2, cx.out_dtype)
    index = cx.input_as(1, "int64")
    if not cx.in_var(1)._shape:                        # one row
        index, updates = cx.node("Reshape", [index, cx.ints([1])]), cx.node(
            "Unsqueeze", [updates, cx.ints([0])])
    rows = cx.node("Unsqueeze", [index, cx.ints([-1])])
    if cx.attrs["overwrite"]:
        return [cx.node("ScatterND", [x, rows, updates])]
    if cx.opset < 16:
        raise cx.fail("scatter with overwrite=False needs opset 16; export with "
                      "opset_version >= 16")
    # the target rows are zeroed, then every update is added (Paddle's accumulate mode)
    zeros = cx.node("Mul", [updates, cx.const(0, cx.out_dtype)])
    cleared = cx.node("ScatterND", [x, rows, zeros])
    return [cx.node("ScatterND", [cleared, rows, updates], reduction="add")]
