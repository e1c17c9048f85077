"""Elementwise math, comparison and logic ops (broadcasting as numpy and ONNX both do)."""
from __future__ import annotations

import math
from typing import List

import numpy as np

from ..runtime.ops.rounding import ten_power
from .builder import OpContext
from .table import lowers

_ARITH = {"add": "Add", "subtract": "Sub", "multiply": "Mul", "maximum": "Max", "minimum": "Min"}
# numpy's bool arithmetic is logic: True + True is True, max is or, min is and
_BOOL_ARITH = {"add": "Or", "multiply": "And", "maximum": "Or", "minimum": "And"}


def _same_dtype_inputs(cx: OpContext, dtype: str) -> List[str]:
    return [cx.input_as(i, dtype) for i in range(len(cx.values))]


@lowers(*_ARITH)
def arith(cx: OpContext) -> List[str]:
    d = cx.out_dtype
    ins = _same_dtype_inputs(cx, d)
    if d == "bool":
        if cx.op.type not in _BOOL_ARITH:
            raise cx.fail("this arithmetic on bool tensors has no ONNX form")
        return [cx.node(_BOOL_ARITH[cx.op.type], ins)]
    return [cx.node(_ARITH[cx.op.type], ins)]


@lowers("divide")
def divide(cx: OpContext) -> List[str]:
    if cx.out_dtype == "bool":          # Paddle's bool / bool: True / True is True
        return [cx.node("And", _same_dtype_inputs(cx, "bool"))]
    return [cx.node("Div", _same_dtype_inputs(cx, cx.out_dtype))]


def _floor_div(cx: OpContext, x: str, y: str, d: str) -> str:
    if d.startswith(("int", "uint")):
        # exact: (x - x mod y) / y, with mod taking the divisor's sign as numpy's does
        r = cx.node("Mod", [x, y], fmod=0)
        return cx.node("Div", [cx.node("Sub", [x, r]), y])
    return cx.node("Floor", [cx.node("Div", [x, y])])


@lowers("floor_divide")
def floor_divide(cx: OpContext) -> List[str]:
    d = cx.out_dtype
    x, y = _same_dtype_inputs(cx, d)
    return [_floor_div(cx, x, y, d)]


@lowers("remainder")
def remainder(cx: OpContext) -> List[str]:
    d = cx.out_dtype
    x, y = _same_dtype_inputs(cx, d)
    if d.startswith(("int", "uint")):
        return [cx.node("Mod", [x, y], fmod=0)]
    # C fmod, then moved into the divisor's sign as numpy's mod does
    r = cx.node("Mod", [x, y], fmod=1)
    zero = cx.const(0, d)
    differ = cx.node("Xor", [cx.node("Less", [r, zero]), cx.node("Less", [y, zero])])
    fix = cx.node("And", [differ, cx.node("Not", [cx.node("Equal", [r, zero])])])
    return [cx.node("Where", [fix, cx.node("Add", [r, y]), r])]


@lowers("pow")
def pow_(cx: OpContext) -> List[str]:
    d = cx.out_dtype
    return [cx.node("Pow", _same_dtype_inputs(cx, d))]


_BITWISE = {"bitwise_and": ("And", "BitwiseAnd"), "bitwise_or": ("Or", "BitwiseOr"),
            "bitwise_xor": ("Xor", "BitwiseXor")}


@lowers(*_BITWISE)
def bitwise(cx: OpContext) -> List[str]:
    d = cx.out_dtype
    logic, bits = _BITWISE[cx.op.type]
    ins = _same_dtype_inputs(cx, d)
    if d == "bool":
        return [cx.node(logic, ins)]
    if cx.opset < 18:
        raise cx.fail(f"{bits} on integers needs opset 18; export with opset_version >= 18")
    return [cx.node(bits, ins)]


@lowers("bitwise_not")
def bitwise_not(cx: OpContext) -> List[str]:
    if cx.out_dtype == "bool":
        return [cx.node("Not", [cx.input(0)])]
    if cx.opset < 18:
        raise cx.fail("BitwiseNot on integers needs opset 18; export with opset_version >= 18")
    return [cx.node("BitwiseNot", [cx.input(0)])]


_COMPARE = {"equal": "Equal", "less_than": "Less", "less_equal": "LessOrEqual",
            "greater_than": "Greater", "greater_equal": "GreaterOrEqual"}


@lowers(*_COMPARE, "not_equal")
def compare(cx: OpContext) -> List[str]:
    d = cx.dtype(0)
    if d == "bool" and cx.op.type != "equal" and cx.op.type != "not_equal":
        d = "int32"                          # ONNX orders numbers only
    x, y = _same_dtype_inputs(cx, d)
    if cx.op.type == "not_equal":
        return [cx.node("Not", [cx.node("Equal", [x, y])])]
    return [cx.node(_COMPARE[cx.op.type], [x, y])]


_LOGICAL = {"logical_and": "And", "logical_or": "Or", "logical_xor": "Xor"}


@lowers(*_LOGICAL)
def logical(cx: OpContext) -> List[str]:
    return [cx.node(_LOGICAL[cx.op.type], _same_dtype_inputs(cx, "bool"))]


@lowers("logical_not")
def logical_not(cx: OpContext) -> List[str]:
    return [cx.node("Not", [cx.input_as(0, "bool")])]


# ----------------------------------------------------------------------------- unary
_UNARY = {"exp": "Exp", "log": "Log", "sqrt": "Sqrt", "sin": "Sin", "cos": "Cos", "tan": "Tan",
          "tanh": "Tanh", "sinh": "Sinh", "cosh": "Cosh", "asin": "Asin", "acos": "Acos",
          "atan": "Atan", "floor": "Floor", "ceil": "Ceil", "abs": "Abs", "neg": "Neg",
          "sign": "Sign", "reciprocal": "Reciprocal", "sigmoid": "Sigmoid", "erf": "Erf"}


@lowers(*_UNARY)
def unary(cx: OpContext) -> List[str]:
    # ops that give float32 for integer inputs compute in the output dtype
    return [cx.node(_UNARY[cx.op.type], [cx.input_as(0, cx.out_dtype)])]


@lowers("square")
def square(cx: OpContext) -> List[str]:
    x = cx.input(0)
    return [cx.node("Mul", [x, x])]


@lowers("rsqrt")
def rsqrt(cx: OpContext) -> List[str]:
    return [cx.node("Reciprocal", [cx.node("Sqrt", [cx.input_as(0, cx.out_dtype)])])]


@lowers("log2", "log10")
def log_base(cx: OpContext) -> List[str]:
    d = cx.out_dtype
    base = 2.0 if cx.op.type == "log2" else 10.0
    return [cx.node("Div", [cx.node("Log", [cx.input_as(0, d)]), cx.const(math.log(base), d)])]


@lowers("log1p")
def log1p(cx: OpContext) -> List[str]:
    d = cx.out_dtype
    x = cx.input_as(0, d)
    one = cx.const(1, d)
    u = cx.node("Add", [x, one])
    # log(u) * x / (u - 1) cancels the rounding of 1 + x (exact where u == 1: there it is x)
    um1 = cx.node("Sub", [u, one])
    exact = cx.node("Equal", [um1, cx.const(0, d)])
    safe = cx.node("Where", [exact, one, um1])
    ratio = cx.node("Div", [cx.node("Mul", [cx.node("Log", [u]), x]), safe])
    return [cx.node("Where", [exact, x, ratio])]


@lowers("round")
def round_half_even(cx: OpContext) -> List[str]:
    # ONNX Round rounds halves to even, as Paddle 3.3.1 on CPU; Paddle's kernel scales by
    # 10**|decimals| in the value's dtype (inf past its range: the result is then nan, as there)
    d = cx.out_dtype
    if not d.startswith(("float", "bfloat")):            # integers come back unchanged
        return [cx.node("Identity", [cx.input(0)])]
    x = cx.input_as(0, d)
    decimals = cx.attrs.get("decimals", 0)
    if decimals == 0:
        return [cx.node("Round", [x])]
    p = cx.const(ten_power(decimals, np.dtype(d) if d != "bfloat16" else np.float32), d)
    if decimals > 0:
        return [cx.node("Div", [cx.node("Round", [cx.node("Mul", [x, p])]), p])]
    return [cx.node("Mul", [cx.node("Round", [cx.node("Div", [x, p])]), p])]


@lowers("isnan", "isinf", "isfinite")
def float_class(cx: OpContext) -> List[str]:
    x = cx.input(0)
    if not cx.dtype(0).startswith("float"):          # integers are finite numbers
        ones = cx.node("Expand", [cx.const(cx.op.type == "isfinite"), cx.node("Shape", [x])])
        return [ones]
    if cx.op.type == "isnan":
        return [cx.node("IsNaN", [x])]
    if cx.op.type == "isinf":
        return [cx.node("IsInf", [x])]
    return [cx.node("Not", [cx.node("Or", [cx.node("IsNaN", [x]), cx.node("IsInf", [x])])])]


@lowers("clip")
def clip(cx: OpContext) -> List[str]:
    d = cx.out_dtype
    lo, hi = cx.attrs["min"], cx.attrs["max"]
    out = cx.input(0)
    # numpy clips in the promoted dtype, then the kernel casts back to x's dtype
    if lo is not None:
        out = cx.node("Max", [out, cx.const(lo, d)])
    if hi is not None:
        out = cx.node("Min", [out, cx.const(hi, d)])
    return [out]


def _scaled(cx: OpContext, x: str, d: str, mul: float, add: float, add_after: bool) -> str:
    """x * mul + add (or (x + add) * mul) computed as numpy would, cast back to x's dtype."""
    exact = d.startswith("float") or (float(mul).is_integer() and float(add).is_integer())
    w = d if exact else "float64"
    xv = x if w == d else cx.node("Cast", [x], to=cx.b.tensor_type(w))
    m, a = cx.const(mul, w), cx.const(add, w)
    out = (cx.node("Add", [cx.node("Mul", [xv, m]), a]) if add_after
           else cx.node("Mul", [cx.node("Add", [xv, a]), m]))
    return out if w == d else cx.node("Cast", [out], to=cx.b.tensor_type(d))


@lowers("scale")
def scale(cx: OpContext) -> List[str]:
    a = cx.attrs
    return [_scaled(cx, cx.input(0), cx.out_dtype, a["scale"], a["bias"], a["bias_after_scale"])]


@lowers("increment")
def increment(cx: OpContext) -> List[str]:
    return [_scaled(cx, cx.input(0), cx.out_dtype, 1.0, cx.attrs["value"], True)]


@lowers("where")
def where(cx: OpContext) -> List[str]:
    d = cx.out_dtype
    return [cx.node("Where", [cx.input_as(0, "bool"), cx.input_as(1, d), cx.input_as(2, d)])]
