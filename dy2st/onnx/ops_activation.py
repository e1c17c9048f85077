"""The activations added after the first export (softsign, log_sigmoid, the shrinks,
thresholded_relu, selu, celu, glu): ONNX ops where one has the same formula, else a few
elementwise nodes."""
from __future__ import annotations

from typing import List

from .builder import OpContext
from .ops_nn import float_const, float_input, softplus_of
from .table import lowers


@lowers("softsign")
def softsign(cx: OpContext) -> List[str]:
    return [cx.node("Softsign", [float_input(cx)])]


@lowers("log_sigmoid")
def log_sigmoid(cx: OpContext) -> List[str]:
    # log(sigmoid(x)) = -softplus(-x), which stays finite for large |x|
    return [cx.node("Neg", [softplus_of(cx, cx.node("Neg", [float_input(cx)]))])]


# (not ONNX's Shrink: onnxruntime computes it in float32 for float64 tensors)
@lowers("hardshrink")
def hardshrink(cx: OpContext) -> List[str]:
    x = float_input(cx)
    outside = cx.node("Greater", [cx.node("Abs", [x]), float_const(cx, cx.attrs["threshold"])])
    return [cx.node("Where", [outside, x, float_const(cx, 0)])]


@lowers("softshrink")
def softshrink(cx: OpContext) -> List[str]:
    x = float_input(cx)
    t = float_const(cx, cx.attrs["threshold"])
    low = cx.node("Neg", [t])
    inner = cx.node("Where", [cx.node("Less", [x, low]), cx.node("Add", [x, t]), float_const(cx, 0)])
    return [cx.node("Where", [cx.node("Greater", [x, t]), cx.node("Sub", [x, t]), inner])]


@lowers("tanhshrink")
def tanhshrink(cx: OpContext) -> List[str]:
    x = float_input(cx)
    return [cx.node("Sub", [x, cx.node("Tanh", [x])])]


@lowers("thresholded_relu")
def thresholded_relu(cx: OpContext) -> List[str]:
    x = float_input(cx)
    above = cx.node("Greater", [x, float_const(cx, cx.attrs["threshold"])])
    return [cx.node("Where", [above, x, float_const(cx, cx.attrs["value"])])]


def _expm1_of_negative_part(cx: OpContext, x: str) -> str:
    """exp(min(x, 0)) - 1."""
    return cx.node("Sub", [cx.node("Exp", [cx.node("Min", [x, float_const(cx, 0)])]), float_const(cx, 1)])


@lowers("selu")
def selu(cx: OpContext) -> List[str]:
    x = float_input(cx)
    neg = cx.node("Mul", [_expm1_of_negative_part(cx, x), float_const(cx, cx.attrs["alpha"])])
    inner = cx.node("Where", [cx.node("Greater", [x, float_const(cx, 0)]), x, neg])
    return [cx.node("Mul", [inner, float_const(cx, cx.attrs["scale"])])]


@lowers("celu")
def celu(cx: OpContext) -> List[str]:
    # ONNX's Celu takes float32 only; this is max(x, 0) + min(0, alpha * expm1(min(x, 0) / alpha))
    x = float_input(cx)
    alpha = float(cx.attrs["alpha"])
    scaled = cx.node("Div", [cx.node("Min", [x, float_const(cx, 0)]), float_const(cx, alpha)])
    expm1 = cx.node("Sub", [cx.node("Exp", [scaled]), float_const(cx, 1)])
    neg = cx.node("Mul", [expm1, float_const(cx, alpha)])
    return [cx.node("Add", [cx.node("Max", [x, float_const(cx, 0)]), cx.node("Min", [neg, float_const(cx, 0)])])]


@lowers("glu")
def glu(cx: OpContext) -> List[str]:
    axis = int(cx.attrs["axis"])
    halves = cx.node("Split", [float_input(cx)], n_out=2, axis=axis,
                     num_outputs=2 if cx.opset >= 18 else None)
    return [cx.node("Mul", [halves[0], cx.node("Sigmoid", [halves[1]])])]
