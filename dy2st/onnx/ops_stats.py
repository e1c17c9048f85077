"""Statistics and comparisons of whole tensors: var, std, logsumexp, norm, cumsum, isclose,
allclose, equal_all."""
from __future__ import annotations

from typing import List, Optional

from .builder import OpContext
from .ops_reduce import axes_attr, reduce
from .table import lowers, not_exportable


def _drop_axes(cx: OpContext, kept: str, axes: Optional[List[int]], keepdim: bool) -> str:
    """A keepdims result reshaped as keepdim asks."""
    if keepdim:
        return kept
    if axes is None:
        return cx.node("Reshape", [kept, cx.ints([])])
    return cx.node("Squeeze", [kept, cx.ints(axes)])


@lowers("var", "std")
def moments(cx: OpContext) -> List[str]:
    d = cx.out_dtype
    x = cx.input_as(0, d)
    axes = axes_attr(cx)
    mean = reduce(cx, "ReduceMean", x, axes, True)
    dev = cx.node("Sub", [x, mean])
    ss = reduce(cx, "ReduceSum", cx.node("Mul", [dev, dev]), axes, True)
    count = cx.node("Div", [cx.node("Cast", [cx.node("Size", [x])], to=cx.b.tensor_type(d)),
                            cx.node("Cast", [cx.node("Size", [ss])], to=cx.b.tensor_type(d))])
    if cx.attrs["unbiased"]:
        count = cx.node("Sub", [count, cx.const(1, d)])
    out = cx.node("Div", [ss, count])
    if cx.op.type == "std":
        out = cx.node("Sqrt", [out])
    return [_drop_axes(cx, out, axes, cx.attrs["keepdim"])]


@lowers("logsumexp")
def logsumexp(cx: OpContext) -> List[str]:
    d = cx.out_dtype
    x = cx.input_as(0, d)
    axes = axes_attr(cx)
    top = reduce(cx, "ReduceMax", x, axes, True)
    # slices that are all -inf (or hold inf) shift by 0, as the kernel does
    top = cx.node("Where", [cx.node("IsInf", [top]), cx.const(0, d), top])
    total = reduce(cx, "ReduceSum", cx.node("Exp", [cx.node("Sub", [x, top])]), axes, True)
    out = cx.node("Add", [cx.node("Log", [total]), top])
    return [_drop_axes(cx, out, axes, cx.attrs["keepdim"])]


@lowers("norm")
def norm(cx: OpContext) -> List[str]:
    d = cx.out_dtype
    x = cx.input_as(0, d)
    p, axis, keep = cx.attrs["p"], cx.attrs["axis"], cx.attrs["keepdim"]
    axes = None if axis is None else ([axis] if isinstance(axis, int) else list(axis))
    if axes is not None and len(axes) == 2 and p not in (None, "fro"):
        raise cx.fail(f"the matrix norm p={p!r} cannot be exported (only 'fro')")
    if axes is None:                                 # the flattened tensor as one vector
        rank = len(cx.in_var(0)._shape)
        flat = cx.node("Reshape", [x, cx.ints([-1])])
        out = vector_norm(cx, flat, p, [0], d)
        return [cx.node("Reshape", [out, cx.ints([1] * rank if keep else [])])]
    out = vector_norm(cx, x, p, axes, d)
    return [_drop_axes(cx, out, axes, keep)]


def vector_norm(cx: OpContext, x: str, p, axes: List[int], d: str) -> str:
    """The p-norm over axes, with the axes kept."""
    a = cx.node("Abs", [x])
    if p in (None, "fro", 2, 2.0):
        return reduce(cx, "ReduceL2", x, axes, True)
    if p == "inf":
        return reduce(cx, "ReduceMax", a, axes, True)
    if p == "-inf":
        return reduce(cx, "ReduceMin", a, axes, True)
    if p == 0:
        nz = cx.node("Cast", [cx.node("Not", [cx.node("Equal", [x, cx.const(0, d)])])],
                     to=cx.b.tensor_type(d))
        return reduce(cx, "ReduceSum", nz, axes, True)
    if p in (1, 1.0):
        return reduce(cx, "ReduceSum", a, axes, True)
    total = reduce(cx, "ReduceSum", cx.node("Pow", [a, cx.const(p, d)]), axes, True)
    return cx.node("Pow", [total, cx.const(1.0 / p, d)])


@lowers("cumsum")
def cumsum(cx: OpContext) -> List[str]:
    d = cx.out_dtype
    x = cx.input_as(0, d)
    axis = cx.attrs["axis"]
    if axis is None:
        x, axis = cx.node("Reshape", [x, cx.ints([-1])]), 0
    return [cx.node("CumSum", [x, cx.const(int(axis), "int64")])]


def _isclose(cx: OpContext) -> str:
    d = cx.dtype(0)
    if not d.startswith("float"):
        d = "float64"
    x, y = cx.input_as(0, d), cx.input_as(1, d)
    a = cx.attrs
    limit = cx.node("Add", [cx.const(a["atol"], d),
                            cx.node("Mul", [cx.const(a["rtol"], d), cx.node("Abs", [y])])])
    close = cx.node("LessOrEqual", [cx.node("Abs", [cx.node("Sub", [x, y])]), limit])
    close = cx.node("Or", [close, cx.node("Equal", [x, y])])        # equal infinities
    if a["equal_nan"]:
        close = cx.node("Or", [close, cx.node("And", [cx.node("IsNaN", [x]),
                                                     cx.node("IsNaN", [y])])])
    return close


@lowers("isclose")
def isclose(cx: OpContext) -> List[str]:
    return [_isclose(cx)]


def _all(cx: OpContext, flags: str) -> str:
    ints = cx.node("Cast", [flags], to=cx.b.tensor_type("int32"))
    return cx.node("Cast", [reduce(cx, "ReduceMin", ints, None, False)],
                   to=cx.b.tensor_type("bool"))


@lowers("allclose")
def allclose(cx: OpContext) -> List[str]:
    return [_all(cx, _isclose(cx))]


@lowers("equal_all")
def equal_all(cx: OpContext) -> List[str]:
    a, b = cx.in_var(0)._shape, cx.in_var(1)._shape
    if a != b or any(d < 0 for d in a):
        raise cx.fail("equal_all of tensors whose shapes are not both known and equal cannot "
                      "be exported")
    return [_all(cx, cx.node("Equal", [cx.input(0), cx.input_as(1, cx.dtype(0))]))]


not_exportable("no ONNX lowering written yet (ONNX has no cumulative product)", "cumprod")
