"""Ops that gradient programs use: reduce_as (the gradient of a broadcast), getitem_grad (the
gradient of indexing) and the residual tapes of loop gradients (sequences of tensors)."""
from __future__ import annotations

from typing import List

from ..runtime.dtype import dtype_name
from .builder import OpContext
from .ops_index import scatter_indexed
from .table import lowers


@lowers("reduce_as")
def reduce_as(cx: OpContext) -> List[str]:
    xs, ts = cx.in_var(0)._shape, cx.in_var(1)._shape
    lead = len(xs) - len(ts)
    axes = list(range(lead))
    for i, d in enumerate(ts):
        if d == 1:
            axes.append(lead + i)            # summing a dim that already is 1 changes nothing
        elif d < 0 and xs[lead + i] != 1:
            raise cx.fail("reduce_as onto a target whose dims are known only when the program "
                          "runs cannot be exported")
    x = cx.input(0)
    if axes:
        x = cx.node("ReduceSum", [x, cx.ints(axes)], keepdims=1)
    return [cx.node("Reshape", [x, cx.node("Shape", [cx.input(1)])])]


@lowers("shape_holder")
def shape_holder(cx: OpContext) -> List[str]:
    # zeros of x's shape and dtype (what a loop tape keeps of a value read for its shape)
    return [cx.node("Expand", [cx.const(0, cx.out_dtype), cx.node("Shape", [cx.input(0)])])]


@lowers("getitem_grad", min_opset=16)
def getitem_grad(cx: OpContext) -> List[str]:
    size = cx.node("Reshape", [cx.node("Size", [cx.input(0)]), cx.ints([1])])
    zeros = cx.node("Expand", [cx.const(0, cx.out_dtype), size])
    # zeros with the gradient added where x was indexed (repeated positions add up, as
    # np.add.at does)
    return [scatter_indexed(cx, zeros, reduction="add")]


def _flat_tape(cx: OpContext, var) -> str:
    elem = var.elem
    if elem is not None and len(elem) > 2 and elem[2] == "array":
        raise cx.fail("a tape of tapes (a loop gradient inside a loop) cannot be exported: "
                      "ONNX sequences hold tensors only")
    return dtype_name(elem[1]) if elem is not None else dtype_name(var.dtype)


@lowers("tape_create", fold=False)
def tape_create(cx: OpContext) -> List[str]:
    return [cx.node("SequenceEmpty", [], dtype=cx.b.tensor_type(_flat_tape(cx, cx.out_var())))]


@lowers("tape_push", fold=False)
def tape_push(cx: OpContext) -> List[str]:
    _flat_tape(cx, cx.out_var())
    return [cx.node("SequenceInsert", [cx.input(0), cx.input(1)])]


@lowers("tape_read", fold=False)
def tape_read(cx: OpContext) -> List[str]:
    _flat_tape(cx, cx.in_var(0))
    i = cx.node("Reshape", [cx.input_as(1, "int64"), cx.ints([])])
    return [cx.node("SequenceAt", [cx.input(0), i])]
