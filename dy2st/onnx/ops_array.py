"""Tensor arrays -> ONNX sequences: create_array is SequenceEmpty, array_write SequenceInsert
(an append) or Erase + Insert (an overwrite), array_read SequenceAt, stack / concat
ConcatFromSequence."""
from __future__ import annotations

from typing import List

from .array_types import array_elem_dtype
from .builder import OpContext
from .table import lowers


def _elem_dtype(cx: OpContext, var) -> str:
    return array_elem_dtype(var)


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


def _copy_items(cx: OpContext, start_seq: str, source: str, positions: str) -> str:
    """A Loop appending source[positions[t]] to start_seq for every t."""
    b, h = cx.b, cx.b.helper
    seq_info = b.value_info("", cx.out_var())
    it, cond, carried = b.fresh("t"), b.fresh("cond_in"), b.fresh("items")
    at, item, out, cond_out = b.fresh("at"), b.fresh("item"), b.fresh("items_out"), b.fresh("go")
    body = h.make_graph(
        [h.make_node("Gather", [positions, it], [at], axis=0),
         h.make_node("SequenceAt", [source, at], [item]),
         h.make_node("SequenceInsert", [carried, item], [out]),
         h.make_node("Identity", [cond], [cond_out])],
        b.fresh("copy_items"),
        [h.make_tensor_value_info(it, b.tensor_type("int64"), []),
         h.make_tensor_value_info(cond, b.tensor_type("bool"), []), _named(seq_info, carried)],
        [h.make_tensor_value_info(cond_out, b.tensor_type("bool"), []), _named(seq_info, out)])
    count = cx.node("Size", [positions])
    return cx.node("Loop", [count, cx.const(True), start_seq], body=body)


def _positions(cx: OpContext, seq: str) -> str:
    """0, 1, ..., len(seq) - 1 as an int64 vector."""
    n = cx.node("SequenceLength", [seq])
    return cx.node("Range", [cx.const(0, "int64"), n, cx.const(1, "int64")])


@lowers("array_join", fold=False)
def array_join(cx: OpContext) -> List[str]:
    b_seq = cx.input(1)
    return [_copy_items(cx, cx.input(0), b_seq, _positions(cx, b_seq))]


@lowers("array_slice", fold=False)
def array_slice(cx: OpContext) -> List[str]:
    a = cx.attrs
    step = 1 if a["step"] is None else int(a["step"])
    INT64_MAX, INT64_MIN = 2 ** 63 - 1, -2 ** 63
    start = a["start"] if a["start"] is not None else (0 if step > 0 else INT64_MAX)
    stop = a["stop"] if a["stop"] is not None else (INT64_MAX if step > 0 else INT64_MIN)
    # Slice on the positions applies Python's slice rules (negative and open bounds)
    picked = cx.node("Slice", [_positions(cx, cx.input(0)), cx.ints([start]), cx.ints([stop]),
                               cx.ints([0]), cx.ints([step])])
    empty = cx.node("SequenceEmpty", [], dtype=cx.b.tensor_type(_elem_dtype(cx, cx.out_var())))
    return [_copy_items(cx, empty, cx.input(0), picked)]
