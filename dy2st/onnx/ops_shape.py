"""Shape ops: shape, numel, reshape, flatten, squeeze/unsqueeze, transpose, concat, stack, expand."""
from __future__ import annotations

from typing import List

from .builder import OpContext
from .ops_creation import shape_vector
from .table import lowers, not_exportable


@lowers("shape")
def shape(cx: OpContext) -> List[str]:
    return [cx.node("Shape", [cx.input(0)])]


@lowers("numel")
def numel(cx: OpContext) -> List[str]:
    return [cx.node("Size", [cx.input(0)])]


@lowers("reshape")
def reshape(cx: OpContext) -> List[str]:
    # 0 copies the input's dim and -1 is inferred, in dy2st as in ONNX (allowzero=0)
    return [cx.node("Reshape", [cx.input(0), shape_vector(cx, cx.attrs["shape"], 1)])]


@lowers("flatten")
def flatten(cx: OpContext) -> List[str]:
    x = cx.input(0)
    rank = len(cx.in_var(0)._shape)
    start, stop = cx.attrs["start_axis"] % max(rank, 1), cx.attrs["stop_axis"] % max(rank, 1)
    shp = cx.node("Shape", [x])
    parts = []
    if start > 0:
        parts.append(cx.node("Slice", [shp, cx.ints([0]), cx.ints([start])]))
    parts.append(cx.ints([-1]))
    if stop + 1 < rank:
        parts.append(cx.node("Slice", [shp, cx.ints([stop + 1]), cx.ints([rank])]))
    target = parts[0] if len(parts) == 1 else cx.node("Concat", parts, axis=0)
    return [cx.node("Reshape", [x, target])]


@lowers("squeeze")
def squeeze(cx: OpContext) -> List[str]:
    axes = list(cx.attrs["axes"])
    if not axes:
        return [cx.values[0]]
    return [cx.node("Squeeze", [cx.input(0), cx.ints(axes)])]


@lowers("unsqueeze")
def unsqueeze(cx: OpContext) -> List[str]:
    # dy2st inserts the axes one after the other; so does ONNX when they are sorted
    x = cx.input(0)
    for a in cx.attrs["axes"]:
        x = cx.node("Unsqueeze", [x, cx.ints([a])])
    return [x]


@lowers("transpose")
def transpose(cx: OpContext) -> List[str]:
    return [cx.node("Transpose", [cx.input(0)], perm=[int(p) for p in cx.attrs["perm"]])]


@lowers("concat")
def concat(cx: OpContext) -> List[str]:
    d = cx.out_dtype
    ins = [cx.input_as(i, d) for i in range(len(cx.values))]
    return [cx.node("Concat", ins, axis=int(cx.attrs["axis"]))]


@lowers("stack")
def stack(cx: OpContext) -> List[str]:
    d = cx.out_dtype
    axis = int(cx.attrs["axis"])
    rank = len(cx.in_var(0)._shape)
    axis = axis % (rank + 1)
    ins = [cx.node("Unsqueeze", [cx.input_as(i, d), cx.ints([axis])])
           for i in range(len(cx.values))]
    return [cx.node("Concat", ins, axis=axis)]


@lowers("expand")
def expand(cx: OpContext) -> List[str]:
    x = cx.input(0)
    template = list(cx.attrs["shape"])
    rank = len(cx.in_var(0)._shape)
    offset = len(template) - rank
    if -1 in template:       # -1 keeps x's dim: take it from x's shape
        shp = cx.node("Shape", [x])
        parts, k = [], 1
        for i, d in enumerate(template):
            if d is None:
                parts.append(cx.node("Reshape", [cx.input_as(k, "int64"), cx.ints([1])]))
                k += 1
            elif d == -1:
                parts.append(cx.node("Slice", [shp, cx.ints([i - offset]), cx.ints([i - offset + 1])]))
            else:
                parts.append(cx.ints([d]))
        target = parts[0] if len(parts) == 1 else cx.node("Concat", parts, axis=0)
    else:
        target = shape_vector(cx, template, 1)
    return [cx.node("Expand", [x, target])]


@lowers("tile")
def tile(cx: OpContext) -> List[str]:
    x = cx.input(0)
    reps = shape_vector(cx, list(cx.attrs["repeat_times"]), 1)
    n = len(cx.attrs["repeat_times"])
    rank = len(cx.in_var(0)._shape)
    if n > rank:                 # numpy.tile prepends dims of size 1 to x
        x = cx.node("Reshape", [x, cx.node("Concat", [cx.ints([1] * (n - rank)),
                                                      cx.node("Shape", [x])], axis=0)])
    elif n < rank:
        reps = cx.node("Concat", [cx.ints([1] * (rank - n)), reps], axis=0)
    return [cx.node("Tile", [x, reps])]


not_exportable("no ONNX lowering written yet (rarely used in deployed models)",
               "flip", "roll", "split", "unbind", "strided_slice", "tril", "triu", "diag",
               "linspace")
