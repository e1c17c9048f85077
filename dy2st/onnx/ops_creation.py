"""Creation and dtype ops: cast, assign, full & co. (constant ones are folded at export time)."""
from __future__ import annotations

from typing import List

import numpy as np

from .builder import OpContext, Value
from .table import lowers, not_exportable


@lowers("cast")
def cast(cx: OpContext) -> List[str]:
    return [cx.cast(cx.input(0), cx.dtype(0), cx.out_dtype)]


@lowers("assign", fold=False)
def assign(cx: OpContext) -> List[Value]:
    return [cx.values[0]]            # ONNX values are immutable: a copy is the value itself


def shape_vector(cx: OpContext, template: List, first_dim_input: int) -> str:
    """A 1-D int64 shape from a template whose None entries are the op's scalar dim inputs."""
    parts, k = [], first_dim_input
    for d in template:
        if d is None:
            parts.append(cx.node("Reshape", [cx.input_as(k, "int64"), cx.ints([1])]))
            k += 1
        else:
            parts.append(cx.ints([d]))
    if not parts:
        return cx.ints([])
    return parts[0] if len(parts) == 1 else cx.node("Concat", parts, axis=0)


@lowers("full")
def full(cx: OpContext) -> List[str]:      # no inputs: always folded; kept for completeness
    a = cx.attrs
    return [cx.const(np.full(a["shape"], a["value"], dtype=a["dtype"]))]


@lowers("full_like")
def full_like(cx: OpContext) -> List[str]:
    value = cx.const(np.asarray(cx.attrs["value"], dtype=cx.out_dtype))
    return [cx.node("Expand", [value, cx.node("Shape", [cx.input(0)])])]


@lowers("fill")
def fill(cx: OpContext) -> List[str]:
    d = cx.out_dtype
    value = cx.node("Reshape", [cx.input_as(0, d), cx.ints([])])
    return [cx.node("Expand", [value, shape_vector(cx, cx.attrs["shape"], 1)])]


@lowers("arange")
def arange(cx: OpContext) -> List[str]:
    d = cx.out_dtype
    # numpy counts in the inputs' dtype, then casts; Range does the same in one dtype
    w = "float64" if any(cx.dtype(i).startswith("float") for i in range(3)) else "int64"
    bounds = [cx.node("Reshape", [cx.input_as(i, w), cx.ints([])]) for i in range(3)]
    return [cx.cast(cx.node("Range", bounds), w, d)]


@lowers("full_range", "eye")
def constant_only(cx: OpContext) -> List[str]:    # no inputs: always folded
    from ..runtime.registry import OPS
    return [cx.const(OPS[cx.op.type].kernel(**cx.attrs))]


not_exportable("random sampling: ONNX's random ops cannot reproduce dy2st's generator, so the "
               "exported model could not be checked against eager results",
               "gaussian_random", "uniform_random", "randint", "dropout")
