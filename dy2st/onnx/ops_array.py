"""Tensor arrays -> ONNX sequences: create_array is SequenceEmpty, array_write SequenceInsert
(an append) or Erase + Insert (an overwrite), array_read SequenceAt, stack / concat
ConcatFromSequence."""
from __future__ import annotations

from typing import List

from .builder import OpContext
from .table import lowers, not_exportable


def _elem_dtype(cx: OpContext, var) -> str:
    return str(var.elem[1]) if var.elem is not None else str(var.dtype)


@lowers("create_array", fold=False)
def create_array(cx: OpContext) -> List[str]:
    var = cx.out_var()
    return [cx.node("SequenceEmpty", [], dtype=cx.b.tensor_type(_elem_dtype(cx, var)))]


def _is_append(cx: OpContext) -> bool:
    """Whether the write index is the array's own length (how `list.append` is traced)."""
    idx, arr = cx.op.inputs[1], cx.op.inputs[0]
    for op in cx.block.ops:
        if op.type == "array_length" and op.outputs == [idx] and op.inputs == [arr]:
            return True
    return False


@lowers("array_write", fold=False)
def array_write(cx: OpContext) -> List[str]:
    arr, x = cx.input(0), cx.input_as(2, _elem_dtype(cx, cx.out_var()))
    if _is_append(cx):
        return [cx.node("SequenceInsert", [arr, x])]
    i = cx.node("Reshape", [cx.input_as(1, "int64"), cx.ints([])])
    b, h = cx.b, cx.b.helper
    seq_info = b.value_info("", cx.out_var())
    # i == len(array) appends; otherwise item i is replaced
    then_out, else_out = b.fresh("appended"), b.fresh("replaced")
    then_g = h.make_graph([h.make_node("SequenceInsert", [arr, x], [then_out])],
                          b.fresh("append"), [], [_named(seq_info, then_out)])
    erased = b.fresh("erased")
    else_g = h.make_graph([h.make_node("SequenceErase", [arr, i], [erased]),
                           h.make_node("SequenceInsert", [erased, x, i], [else_out])],
                          b.fresh("replace"), [], [_named(seq_info, else_out)])
    at_end = cx.node("Equal", [i, cx.node("SequenceLength", [arr])])
    return [cx.node("If", [at_end], then_branch=then_g, else_branch=else_g)]


def _named(info, name: str):
    copy = type(info)()
    copy.CopyFrom(info)
    copy.name = name
    return copy


@lowers("array_read", fold=False)
def array_read(cx: OpContext) -> List[str]:
    i = cx.node("Reshape", [cx.input_as(1, "int64"), cx.ints([])])
    return [cx.node("SequenceAt", [cx.input(0), i])]


@lowers("array_length", fold=False)
def array_length(cx: OpContext) -> List[str]:
    return [cx.node("SequenceLength", [cx.input(0)])]


@lowers("array_stack", "array_concat", fold=False)
def array_join_items(cx: OpContext) -> List[str]:
    new_axis = 1 if cx.op.type == "array_stack" else 0
    return [cx.node("ConcatFromSequence", [cx.input(0)], axis=int(cx.attrs["axis"]),
                    new_axis=new_axis)]


@lowers("array_pop", fold=False)
def array_pop(cx: OpContext) -> List[str]:
    i = cx.node("Reshape", [cx.input_as(1, "int64"), cx.ints([])])
    item = cx.node("SequenceAt", [cx.input(0), i])
    return [cx.node("SequenceErase", [cx.input(0), i]), item]


not_exportable("no ONNX lowering written yet (slicing or joining tensor arrays)",
               "array_slice", "array_join")
