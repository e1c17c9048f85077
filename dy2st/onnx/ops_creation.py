"""Creation and dtype ops: cast, assign, full & co. (constant ones are folded at export time)."""
from __future__ import annotations

from typing import List

import numpy as np

from ..runtime.registry import OPS
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
    return [cx.const(OPS[cx.op.type].kernel(**cx.attrs))]


@lowers("linspace")
def linspace(cx: OpContext) -> List[str]:
    n = int(cx.attrs["n"])
    if n < 0:
        raise cx.fail("linspace with a count known only when the program runs cannot be exported")
    start = cx.node("Reshape", [cx.input_as(0, "float64"), cx.ints([1])])
    stop = cx.node("Reshape", [cx.input_as(1, "float64"), cx.ints([1])])
    d = cx.out_dtype
    if n <= 1:
        out = start if n == 1 else cx.const(np.zeros(0, "float64"))
        return [cx.cast(out, "float64", d)]
    # start + i * step, with the last value exactly stop (as numpy.linspace)
    step = cx.node("Div", [cx.node("Sub", [stop, start]), cx.const(float(n - 1), "float64")])
    ramp = cx.node("Add", [cx.node("Mul", [cx.const(np.arange(n - 1, dtype="float64")), step]),
                           start])
    return [cx.cast(cx.node("Concat", [ramp, stop], axis=0), "float64", d)]


not_exportable("random sampling: ONNX's random ops cannot reproduce dy2st's generator, so the "
               "exported model could not be checked against eager results",
               "gaussian_random", "uniform_random", "randint", "dropout")


@lowers("detach", fold=False)
def detach(cx: OpContext) -> List[Value]:
    return [cx.values[0]]            # only gradients differ from assign; ONNX graphs have none


@lowers("py_layer", fold=False)
def py_layer(cx: OpContext) -> List[Value]:
    return [cx.values[0]]            # the PyLayer's forward, traced before the op, is its value


@lowers("py_layer_multi", fold=False)
def py_layer_multi(cx: OpContext) -> List[Value]:
    return list(cx.values[:len(cx.attrs["live"])])      # the forward's outputs, as for py_layer


@lowers("no_grad_update", fold=False)
def no_grad_update(cx: OpContext) -> List[Value]:
    return [cx.values[0]]            # the new value; only its gradient path is special
