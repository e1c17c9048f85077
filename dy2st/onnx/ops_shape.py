"""Shape ops: shape, numel, reshape, flatten, squeeze/unsqueeze, transpose, concat, stack,
expand, tile, flip, roll, slices, split, tril/triu, diag."""
from __future__ import annotations

from typing import List

from .builder import OpContext
from .ops_creation import shape_vector
from .table import lowers


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
                j = i - offset
                parts.append(cx.node("Slice", [shp, cx.ints([j]), cx.ints([j + 1])]))
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


INT64_MAX, INT64_MIN = 2 ** 63 - 1, -2 ** 63


@lowers("flip")
def flip(cx: OpContext) -> List[str]:
    axes = [int(a) for a in cx.attrs["axis"]]
    if not axes:
        return [cx.values[0]]
    n = len(axes)
    return [cx.node("Slice", [cx.input(0), cx.ints([-1] * n), cx.ints([INT64_MIN] * n),
                              cx.ints(axes), cx.ints([-1] * n)])]


def _roll_axis(cx: OpContext, x: str, shift: int, axis: int) -> str:
    size = cx.node("Slice", [cx.node("Shape", [x]), cx.ints([axis]),
                             cx.ints([axis + 1 if axis != -1 else INT64_MAX])])
    cut = cx.node("Sub", [size, cx.node("Mod", [cx.ints([shift]), size], fmod=0)])
    tail = cx.node("Slice", [x, cut, size, cx.ints([axis])])
    head = cx.node("Slice", [x, cx.ints([0]), cut, cx.ints([axis])])
    return cx.node("Concat", [tail, head], axis=axis)


@lowers("roll")
def roll(cx: OpContext) -> List[str]:
    shifts, axes = list(cx.attrs["shifts"]), cx.attrs["axis"]
    x = cx.input(0)
    if axes is None:                          # the flattened tensor, shape kept
        flat = _roll_axis(cx, cx.node("Reshape", [x, cx.ints([-1])]), int(shifts[0]), 0)
        return [cx.node("Reshape", [flat, cx.node("Shape", [x])])]
    for shift, axis in zip(shifts, axes):
        x = _roll_axis(cx, x, int(shift), int(axis))
    return [x]


@lowers("strided_slice")
def strided_slice(cx: OpContext) -> List[str]:
    a = cx.attrs
    k = [1]

    def vector(slots: List) -> str:
        parts = []
        for v in slots:
            if v is None:
                parts.append(cx.node("Reshape", [cx.input_as(k[0], "int64"), cx.ints([1])]))
                k[0] += 1
            else:
                parts.append(cx.ints([v]))
        return parts[0] if len(parts) == 1 else cx.node("Concat", parts, axis=0)
    if not a["axes"]:
        return [cx.values[0]]
    starts, ends = vector(a["starts"]), vector(a["ends"])
    if any(s is None for s in a["strides"]):
        raise cx.fail("a slice stride given by a tensor cannot be exported")
    return [cx.node("Slice", [cx.input(0), starts, ends, cx.ints(a["axes"]),
                              cx.ints(a["strides"])])]


@lowers("split")
def split(cx: OpContext) -> List[str]:
    a = cx.attrs
    axis, index = int(a["axis"]), int(a["index"])
    x = cx.input(0)
    size = cx.node("Slice", [cx.node("Shape", [x]), cx.ints([axis]),
                             cx.ints([axis + 1 if axis != -1 else INT64_MAX])])
    if a["num"] is not None:
        piece = cx.node("Div", [size, cx.ints([a["num"]])])
        start = cx.node("Mul", [piece, cx.ints([index])])
        stop = cx.node("Add", [start, piece])
    else:
        sections = list(a["sections"])
        before, known = sections[:index], sum(s for s in sections if s != -1)
        if -1 in before:                      # the open section comes first: count from the end
            after = sections[index + 1:]
            stop = cx.node("Sub", [size, cx.ints([sum(after)])])
            start = cx.node("Sub", [stop, cx.ints([sections[index]])])
        else:
            start = cx.ints([sum(before)])
            stop = (cx.node("Sub", [size, cx.ints([known - sum(before)])])
                    if sections[index] == -1 else cx.ints([sum(before) + sections[index]]))
    return [cx.node("Slice", [x, start, stop, cx.ints([axis])])]


@lowers("tril", "triu", min_opset=14)
def triangle(cx: OpContext) -> List[str]:
    return [cx.node("Trilu", [cx.input(0), cx.const(int(cx.attrs["diagonal"]), "int64")],
                    upper=int(cx.op.type == "triu"))]


@lowers("diag")
def diag(cx: OpContext) -> List[str]:
    x = cx.input(0)
    offset = int(cx.attrs["offset"])
    rows_off, cols_off = (0, offset) if offset >= 0 else (-offset, 0)
    if len(cx.in_var(0)._shape) == 2:            # the diagonal of a matrix
        shp = cx.node("Shape", [x])
        r = cx.node("Sub", [cx.node("Gather", [shp, cx.const(0, "int64")], axis=0),
                            cx.const(rows_off, "int64")])
        c = cx.node("Sub", [cx.node("Gather", [shp, cx.const(1, "int64")], axis=0),
                            cx.const(cols_off, "int64")])
        n = cx.node("Max", [cx.node("Min", [r, c]), cx.const(0, "int64")])
        i = cx.node("Range", [cx.const(0, "int64"), n, cx.const(1, "int64")])
        at = cx.node("Concat", [cx.node("Unsqueeze", [cx.node("Add", [i, cx.const(o, "int64")]),
                                                      cx.ints([1])])
                                for o in (rows_off, cols_off)], axis=1)
        return [cx.node("GatherND", [x, at])]
    # a vector on the diagonal of a square matrix filled with padding_value
    size = cx.node("Shape", [x])
    n = cx.node("Add", [size, cx.ints([abs(offset)])])
    base = cx.node("Expand", [cx.const(cx.attrs["padding_value"], cx.dtype(0)),
                              cx.node("Concat", [n, n], axis=0)])
    i = cx.node("Range", [cx.const(0, "int64"), cx.node("Reshape", [size, cx.ints([])]),
                          cx.const(1, "int64")])
    at = cx.node("Concat", [cx.node("Unsqueeze", [cx.node("Add", [i, cx.const(o, "int64")]),
                                                  cx.ints([1])])
                            for o in (rows_off, cols_off)], axis=1)
    return [cx.node("ScatterND", [base, at, x])]
