"""Indexing: x[index] (getitem) and x[index] = v (setitem) with ints, slices, None, Ellipsis and
one integer or boolean tensor. Ints and slices become one Slice (then Squeeze), a tensor index
Gather (or Compress for a mask), None Unsqueeze; setitem scatters into the positions that the
same index selects from a tensor of flat positions."""
from __future__ import annotations

from typing import Any, List, Optional

from ..runtime.dtype import dtype_name
from .builder import OpContext
from .table import lowers

INT64_MAX = 2 ** 63 - 1
INT64_MIN = -2 ** 63


def _bound(cx: OpContext, v: Any, offset: int, default: int) -> str:
    """A 1-element int64 bound: a Python int, a tensor input ({"t": k}), or None (default)."""
    if v is None:
        return cx.ints([default])
    if isinstance(v, dict):
        return cx.node("Reshape", [cx.input_as(offset + v["t"], "int64"), cx.ints([1])])
    return cx.ints([int(v)])


def _is_int_item(cx: OpContext, it: dict, offset: int) -> bool:
    """Whether an index item acts as an int (a Python int, or a 0-d integer tensor)."""
    if it["k"] == "int":
        return True
    if it["k"] == "tensor":
        var = cx.in_var(offset + it["t"])
        return not var._shape and var.dtype != "bool"
    return False


def select(cx: OpContext, x: str, rank: int, items: List[dict], offset: int) -> str:
    """x[index] for the encoded index `items` whose tensors are op inputs from `offset` on."""
    consumed = 0
    for it in items:
        if it["k"] in ("int", "slice"):
            consumed += 1
        elif it["k"] == "tensor":
            var = cx.in_var(offset + it["t"])
            consumed += len(var._shape) if var.dtype == "bool" else 1
    expanded: List[dict] = []
    for it in items:
        if it["k"] == "ellipsis":
            expanded += [{"k": "slice", "v": [None, None, None]}] * (rank - consumed)
        else:
            expanded.append(it)
    starts, ends, axes, steps = [], [], [], []
    squeeze: List[int] = []
    advanced: Optional[tuple] = None     # (input axis, item)
    none_at: List[int] = []              # output positions of the new axes
    int_dims: List[int] = []
    dim = out = 0
    for it in expanded:
        k = it["k"]
        if k == "none":
            none_at.append(out)
            out += 1
        elif _is_int_item(cx, it, offset):
            if k == "int":
                i = int(it["v"])
                starts.append(cx.ints([i]))
                ends.append(cx.ints([i + 1 if i != -1 else INT64_MAX]))
            else:
                t = cx.node("Reshape", [cx.input_as(offset + it["t"], "int64"), cx.ints([1])])
                nxt = cx.node("Add", [t, cx.ints([1])])
                last = cx.node("Equal", [t, cx.ints([-1])])
                starts.append(t)
                ends.append(cx.node("Where", [last, cx.ints([INT64_MAX]), nxt]))
            axes.append(dim)
            steps.append(cx.ints([1]))
            squeeze.append(dim)
            int_dims.append(dim)
            dim += 1
        elif k == "slice":
            a, b, s = it["v"]
            if isinstance(s, dict):
                raise cx.fail("a slice step given by a tensor cannot be exported (its sign "
                              "decides the slice's defaults)")
            step = 1 if s is None else int(s)
            if not (a is None and b is None and step == 1):
                starts.append(_bound(cx, a, offset, 0 if step > 0 else INT64_MAX))
                ends.append(_bound(cx, b, offset, INT64_MAX if step > 0 else INT64_MIN))
                axes.append(dim)
                steps.append(cx.ints([step]))
            dim += 1
            out += 1
        else:                                   # an index tensor
            if advanced is not None:
                raise cx.fail("indexing with more than one tensor index cannot be exported")
            var = cx.in_var(offset + it["t"])
            advanced = (dim, it, var)
            n = len(var._shape) if var.dtype == "bool" else 1
            dim += n
            out += 1 if var.dtype == "bool" else len(var._shape)
    if advanced is not None and int_dims:
        a = advanced[0]
        span = range(min(int_dims + [a]), max(int_dims + [a]) + 1)
        if any(d not in int_dims and d != a for d in span):
            raise cx.fail("an index tensor separated from int indices by a slice cannot be "
                          "exported (numpy moves its dims to the front)")
    if starts:
        def cat(parts: List[Any]) -> Any:
            return parts[0] if len(parts) == 1 else cx.node("Concat", parts, axis=0)
        x = cx.node("Slice", [x, cat(starts), cat(ends), cx.ints(axes), cat(steps)])
    if advanced is not None:
        a, it, var = advanced
        idx = cx.input(offset + it["t"])
        if var.dtype == "bool":
            n = len(var._shape)
            if n != 1:                          # collapse the masked dims into one
                shp = cx.node("Shape", [x])
                parts = [cx.node("Slice", [shp, cx.ints([0]), cx.ints([a])]), cx.ints([-1]),
                         cx.node("Slice", [shp, cx.ints([a + n]), cx.ints([INT64_MAX])])]
                x = cx.node("Reshape", [x, cx.node("Concat", parts, axis=0)])
                idx = cx.node("Reshape", [idx, cx.ints([-1])])
            x = cx.node("Compress", [x, idx], axis=a)
            grow = 1 - n
        else:
            x = cx.node("Gather", [x, cx.cast(idx, dtype_name(var.dtype), "int64")], axis=a)
            grow = len(var._shape) - 1
        squeeze = [d + grow if d > a else d for d in squeeze]
    if squeeze:
        x = cx.node("Squeeze", [x, cx.ints(squeeze)])
    if none_at:
        x = cx.node("Unsqueeze", [x, cx.ints(none_at)])
    return x


@lowers("getitem")
def getitem(cx: OpContext) -> List[str]:
    return [select(cx, cx.input(0), len(cx.in_var(0)._shape), cx.attrs["items"], 1)]


def scatter_indexed(cx: OpContext, base: str, reduction: Optional[str] = None) -> str:
    """`base` (flat, like input 0) with input 1 written (or, reduction="add", added) at the
    positions input 0's index selects (index tensors are inputs from 2 on), reshaped like input
    0: the flat positions of x, indexed like x, are the positions `x[index] = v` writes."""
    x = cx.input(0)
    shp = cx.node("Shape", [x])
    count = cx.node("Reshape", [cx.node("Size", [x]), cx.ints([])])
    flat_pos = cx.node("Range", [cx.const(0, "int64"), count, cx.const(1, "int64")])
    positions = select(cx, cx.node("Reshape", [flat_pos, shp]), len(cx.in_var(0)._shape),
                       cx.attrs["items"], 2)
    value = cx.node("Expand", [cx.input_as(1, cx.out_dtype), cx.node("Shape", [positions])])
    flat = cx.node("ScatterElements", [base, cx.node("Reshape", [positions, cx.ints([-1])]),
                                       cx.node("Reshape", [value, cx.ints([-1])])],
                   axis=0, reduction=reduction)
    return cx.node("Reshape", [flat, shp])


@lowers("setitem")
def setitem(cx: OpContext) -> List[str]:
    return [scatter_indexed(cx, cx.node("Reshape", [cx.input(0), cx.ints([-1])]))]
