"""Sorting: sort, argsort and topk through ONNX TopK (which keeps the lower index first among
equal values, as dy2st's stable sort does)."""
from __future__ import annotations

from typing import List

from .builder import OpContext
from .table import lowers, not_exportable


def _topk(cx: OpContext, k: str, axis: int, largest: bool) -> List[str]:
    x = cx.input(0)
    if not cx.in_var(0)._shape:
        raise cx.fail("sorting a 0-d tensor cannot be exported")
    return cx.node("TopK", [x, k], n_out=2, axis=axis, largest=int(largest), sorted=1)


def _whole_axis(cx: OpContext, axis: int) -> str:
    return cx.node("Slice", [cx.node("Shape", [cx.input(0)]), cx.ints([axis]),
                             cx.ints([axis + 1 if axis != -1 else 2 ** 63 - 1])])


@lowers("sort", "argsort")
def sort(cx: OpContext) -> List[str]:
    axis = int(cx.attrs["axis"])
    values, indices = _topk(cx, _whole_axis(cx, axis), axis, cx.attrs["descending"])
    return [values if cx.op.type == "sort" else indices]


@lowers("topk")
def topk(cx: OpContext) -> List[str]:
    k = cx.attrs["k"]
    kk = cx.ints([k]) if k is not None else cx.node("Reshape", [cx.input_as(1, "int64"),
                                                                cx.ints([1])])
    return list(_topk(cx, kk, int(cx.attrs["axis"]), cx.attrs["largest"]))


not_exportable("no ONNX lowering written yet (ONNX Unique orders and counts differently)",
               "unique")
