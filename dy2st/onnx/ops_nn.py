"""nn ops: activations, softmax / log_softmax, layer_norm, batch_norm (inference), embedding,
one_hot."""
from __future__ import annotations

import math
from typing import List

import numpy as np

from .builder import OpContext
from .ops_reduce import reduce
from .ops_stats import vector_norm
from .table import lowers, not_exportable


def float_input(cx: OpContext) -> str:
    """Input 0 in the op's output dtype (activations give float32 for integer inputs)."""
    return cx.input_as(0, cx.out_dtype)


def float_const(cx: OpContext, v: float) -> str:
    return cx.const(v, cx.out_dtype)


@lowers("relu")
def relu(cx: OpContext) -> List[str]:
    return [cx.node("Max", [cx.input(0), float_const(cx, 0)])]


@lowers("relu6", "hardtanh")
def clamp(cx: OpContext) -> List[str]:
    lo, hi = (0, cx.attrs["threshold"]) if cx.op.type == "relu6" else (cx.attrs["min"],
                                                                        cx.attrs["max"])
    return [cx.node("Min", [cx.node("Max", [cx.input(0), float_const(cx, lo)]), float_const(cx, hi)])]


@lowers("leaky_relu")
def leaky_relu(cx: OpContext) -> List[str]:
    x = float_input(cx)
    neg = cx.node("Mul", [x, float_const(cx, cx.attrs["negative_slope"])])
    return [cx.node("Where", [cx.node("GreaterOrEqual", [x, float_const(cx, 0)]), x, neg])]


@lowers("hardsigmoid")
def hardsigmoid(cx: OpContext) -> List[str]:
    x = float_input(cx)
    lin = cx.node("Add", [cx.node("Mul", [x, float_const(cx, cx.attrs["slope"])]),
                          float_const(cx, cx.attrs["offset"])])
    return [cx.node("Min", [cx.node("Max", [lin, float_const(cx, 0)]), float_const(cx, 1)])]


@lowers("hardswish")
def hardswish(cx: OpContext) -> List[str]:
    x = float_input(cx)
    gate = cx.node("Min", [cx.node("Max", [cx.node("Add", [x, float_const(cx, 3)]), float_const(cx, 0)]),
                           float_const(cx, 6)])
    return [cx.node("Div", [cx.node("Mul", [x, gate]), float_const(cx, 6)])]


@lowers("elu")
def elu(cx: OpContext) -> List[str]:
    x = float_input(cx)
    expm1 = cx.node("Sub", [cx.node("Exp", [cx.node("Min", [x, float_const(cx, 0)])]), float_const(cx, 1)])
    neg = cx.node("Mul", [expm1, float_const(cx, cx.attrs["alpha"])])
    return [cx.node("Where", [cx.node("Greater", [x, float_const(cx, 0)]), x, neg])]


@lowers("gelu")
def gelu(cx: OpContext) -> List[str]:
    x = float_input(cx)
    if cx.attrs["approximate"]:
        cube = cx.node("Mul", [cx.node("Mul", [x, x]), x])
        inner = cx.node("Mul", [cx.node("Add", [x, cx.node("Mul", [cube, float_const(cx, 0.044715)])]),
                                float_const(cx, math.sqrt(2.0 / math.pi))])
        gate = cx.node("Add", [cx.node("Tanh", [inner]), float_const(cx, 1)])
    else:
        gate = cx.node("Add", [cx.node("Erf", [cx.node("Div", [x, float_const(cx, math.sqrt(2.0))])]),
                               float_const(cx, 1)])
    return [cx.node("Mul", [cx.node("Mul", [x, gate]), float_const(cx, 0.5)])]


@lowers("silu")
def silu(cx: OpContext) -> List[str]:
    x = float_input(cx)
    return [cx.node("Mul", [x, cx.node("Sigmoid", [x])])]


def softplus_of(cx: OpContext, bx: str) -> str:
    """log(1 + exp(bx)) without overflow: max(bx, 0) + log(1 + exp(-|bx|))."""
    pos = cx.node("Max", [bx, float_const(cx, 0)])
    tail = cx.node("Exp", [cx.node("Neg", [cx.node("Abs", [bx])])])
    return cx.node("Add", [pos, cx.node("Log", [cx.node("Add", [tail, float_const(cx, 1)])])])


@lowers("softplus")
def softplus(cx: OpContext) -> List[str]:
    x = float_input(cx)
    beta = cx.attrs["beta"]
    bx = cx.node("Mul", [x, float_const(cx, beta)])
    soft = cx.node("Div", [softplus_of(cx, bx), float_const(cx, beta)])
    return [cx.node("Where", [cx.node("Greater", [bx, float_const(cx, cx.attrs["threshold"])]), x, soft])]


@lowers("mish")
def mish(cx: OpContext) -> List[str]:
    x = float_input(cx)
    return [cx.node("Mul", [x, cx.node("Tanh", [softplus_of(cx, x)])])]


@lowers("softmax", "log_softmax")
def softmax(cx: OpContext) -> List[str]:
    x = float_input(cx)
    if not cx.in_var(0)._shape:                   # a 0-d input: ONNX wants an axis
        x1 = cx.node("Reshape", [x, cx.ints([1])])
        out = cx.node("Softmax" if cx.op.type == "softmax" else "LogSoftmax", [x1], axis=0)
        return [cx.node("Reshape", [out, cx.ints([])])]
    op = "Softmax" if cx.op.type == "softmax" else "LogSoftmax"
    return [cx.node(op, [x], axis=int(cx.attrs["axis"]))]


@lowers("layer_norm")
def layer_norm(cx: OpContext) -> List[str]:
    d = cx.out_dtype
    x = cx.input_as(0, d)
    rank = len(cx.in_var(0)._shape)
    axes = list(range(cx.attrs["begin_axis"], rank))
    mean = reduce(cx, "ReduceMean", x, axes, True)
    centered = cx.node("Sub", [x, mean])
    var = reduce(cx, "ReduceMean", cx.node("Mul", [centered, centered]), axes, True)
    out = cx.node("Div", [centered, cx.node("Sqrt", [cx.node("Add", [var, cx.const(
        cx.attrs["epsilon"], d)])])])
    rest = list(range(1, len(cx.values)))
    tail = cx.node("Slice", [cx.node("Shape", [x]), cx.ints([cx.attrs["begin_axis"]]),
                             cx.ints([rank])])
    if cx.attrs["has_weight"]:
        out = cx.node("Mul", [out, cx.node("Reshape", [cx.input_as(rest.pop(0), d), tail])])
    if cx.attrs["has_bias"]:
        out = cx.node("Add", [out, cx.node("Reshape", [cx.input_as(rest.pop(0), d), tail])])
    return [out]


@lowers("batch_norm")
def batch_norm(cx: OpContext) -> List[str]:
    d = cx.out_dtype
    x = cx.input(0)
    rank = len(cx.in_var(0)._shape)
    axis = cx.attrs["axis"] % rank
    shape = [1] * rank
    shape[axis] = -1

    def per_channel(i: int) -> str:
        return cx.node("Reshape", [cx.input_as(i, d), cx.ints(shape)])
    out = cx.node("Div", [cx.node("Sub", [x, per_channel(1)]),
                          cx.node("Sqrt", [cx.node("Add", [per_channel(2),
                                                           cx.const(cx.attrs["epsilon"], d)])])])
    k = 3
    if cx.attrs["has_weight"]:
        out = cx.node("Mul", [out, per_channel(k)])
        k += 1
    if cx.attrs["has_bias"]:
        out = cx.node("Add", [out, per_channel(k)])
    return [out]


@lowers("embedding")
def embedding(cx: OpContext) -> List[str]:
    ids = cx.input_as(0, "int64")
    out = cx.node("Gather", [cx.input(1), ids], axis=0)
    pad = cx.attrs.get("padding_idx")
    if pad is not None:
        pad = pad % cx.in_var(1)._shape[0]
        keep = cx.node("Unsqueeze", [cx.node("Not", [cx.node("Equal", [ids, cx.ints([pad])])]),
                                     cx.ints([-1])])
        out = cx.node("Where", [keep, out, cx.const(0, cx.out_dtype)])
    return [out]


@lowers("one_hot")
def one_hot(cx: OpContext) -> List[str]:
    n = int(cx.attrs["num_classes"])
    eye = cx.const(np.eye(n, dtype="float32"))
    return [cx.node("Gather", [eye, cx.input_as(0, "int64")], axis=0)]


not_exportable("training-time statistics: export the model in eval mode (jit.save and "
               "onnx.export put Layers in eval mode), which uses the running statistics",
               "batch_norm_stats")
not_exportable("a loss: losses are computed in training, not in exported inference graphs",
               "cross_entropy", "smooth_l1")
_PAD_MODES = {"constant": "constant", "reflect": "reflect", "edge": "edge", "wrap": "wrap"}


@lowers("pad")
def pad(cx: OpContext) -> List[str]:
    widths, mode = cx.attrs["widths"], cx.attrs["mode"]
    if mode not in _PAD_MODES:
        raise cx.fail(f"pad mode {mode!r} cannot be exported")
    if mode == "wrap" and cx.opset < 19:
        raise cx.fail("circular padding needs opset 19; export with opset_version >= 19")
    pads = cx.ints([lo for lo, _ in widths] + [hi for _, hi in widths])
    ins = [cx.input(0), pads]
    if mode == "constant":
        ins.append(cx.const(cx.attrs["value"] or 0, cx.dtype(0)))
    return [cx.node("Pad", ins, mode=_PAD_MODES[mode])]


@lowers("normalize")
def normalize(cx: OpContext) -> List[str]:
    d = cx.out_dtype
    x = cx.input_as(0, d)
    p = cx.attrs["p"]
    p = "inf" if p == float("inf") else p
    size = vector_norm(cx, x, p, [int(cx.attrs["axis"])], d)
    return [cx.node("Div", [x, cx.node("Max", [size, cx.const(cx.attrs["epsilon"], d)])])]
not_exportable("a loss: losses are computed in training, not in exported inference graphs "
               "(the RNN-T lattice recursion and its gradient kernel)",
               "rnnt_loss", "rnnt_loss_grad")
not_exportable("no ONNX lowering written yet (fractional windows depend on a run-time u; ONNX "
               "MaxPool has only fixed strides)", "fractional_max_pool_nd")
