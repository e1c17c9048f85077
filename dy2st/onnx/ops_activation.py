"""The activations added after the first export (softsign, log_sigmoid, the shrinks,
thresholded_relu, selu, celu, glu): ONNX ops where one has the same formula, else a few
elementwise nodes."""
from __future__ import annotations

from typing import List

from .builder import OpContext
from .ops_nn import _c, _softplus, _x
from .table import lowers


@lowers("softsign")
def softsign(cx: OpContext) -> List[str]:
    return [cx.node("Softsign", [_x(cx)])]


@lowers("log_sigmoid")
def log_sigmoid(cx: OpContext) -> List[str]:
    # log(sigmoid(x)) = -softplus(-x), which stays finite for large |x|
    return [cx.node("Neg", [_softplus(cx, cx.node("Neg", [_x(cx)]))])]


# (not ONNX's Shrink: onnxruntime computes it in float32 for float64 tensors)
@lowers("hardshrink")
def hardshrink(cx: OpContext) -> List[str]:
    x = _x(cx)
    outside = cx.node("Greater", [cx.node("Abs", [x]), _c(cx, cx.attrs["threshold"])])
    return [cx.node("Where", [outside, x, _c(cx, 0)])]


@lowers("softshrink")
def softshrink(cx: OpContext) -> List[str]:
    x = _x(cx)
    t = _c(cx, cx.attrs["threshold"])
    low = cx.node("Neg", [t])
    inner = cx.node("Where", [cx.node("Less", [x, low]), cx.node("Add", [x, t]), _c(cx, 0)])
    return [cx.node("Where", [cx.node("Greater", [x, t]), cx.node("Sub", [x, t]), inner])]


@lowers("tanhshrink")
def tanhshrink(cx: OpContext) -> List[str]:
    x = _x(cx)
    return [cx.node("Sub", [x, cx.node("Tanh", [x])])]


@lowers("thresholded_relu")
def thresholded_relu(cx: OpContext) -> List[str]:
    x = _x(cx)
    above = cx.node("Greater", [x, _c(cx, cx.attrs["threshold"])])
    return [cx.node("Where", [above, x, _c(cx, cx.attrs["value"])])]


def _expm1_of_negative_part(cx: OpContext, x: str) -> str:
    """exp(min(x, 0)) - 1."""
    return cx.node("Sub", [cx.node("Exp", [cx.node("Min", [x, _c(cx, 0)])]), _c(cx, 1)])


@lowers("selu")
def selu(cx: OpContext) -> List[str]:
    x = _x(cx)
    neg = cx.node("Mul", [_expm1_of_negative_part(cx, x), _c(cx, cx.attrs["alpha"])])
    inner = cx.node("Where", [cx.node("Greater", [x, _c(cx, 0)]), x, neg])
    return [cx.node("Mul", [inner, _c(cx, cx.attrs["scale"])])]


@lowers("celu")
def celu(cx: OpContext) -> List[str]:
    # ONNX's Celu takes float32 only; this is max(x, 0) + min(0, alpha * expm1(min(x, 0) / alpha))
    x = _x(cx)
    alpha = float(cx.attrs["alpha"])
    scaled = cx.node("Div", [cx.node("Min", [x, _c(cx, 0)]), _c(cx, alpha)])
    expm1 = cx.node("Sub", [cx.node("Exp", [scaled]), _c(cx, 1)])
    neg = cx.node("Mul", [expm1, _c(cx, alpha)])
    return [cx.node("Add", [cx.node("Max", [x, _c(cx, 0)]), cx.node("Min", [neg, _c(cx, 0)])])]


@lowers("glu")
def glu(cx: OpContext) -> List[str]:
    axis = int(cx.attrs["axis"])
    halves = cx.node("Split", [_x(cx)], n_out=2, axis=axis,
                     num_outputs=2 if cx.opset >= 18 else None)
    return [cx.node("Mul", [halves[0], cx.node("Sigmoid", [halves[1]])])]
