"""Elementwise math, comparison and logic ops (with broadcasting)."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..dtype import REAL_OF, bool_, float32
from ..registry import Meta, apply, register_op
from ..tensor import Tensor
from . import infer as I
from .erf_kernels import erf_array
from .operands import as_tensor, binary_operands, cast, is_tensor


def _floor_divide(x, y):
    if x.dtype.kind in "iu":
        return np.floor_divide(x, y)
    return np.floor_divide(x, y)


def _remainder(x, y):
    return np.mod(x, y)


def _pow(x, y):
    return np.power(x, y)


def _divide(x, y):
    if x.dtype == np.bool_:
        # Paddle 3.3.1 divides bools as integers into a bool (True / True is True), and
        # refuses a division by False as an integer division by zero
        if not np.all(y):
            raise ZeroDivisionError("divide: integer division by zero (a bool divisor is False)")
        return np.logical_and(x, y)
    out = np.true_divide(x, y)
    # Paddle: integer / integer is float32 (numpy would give float64).
    return out.astype(x.dtype if x.dtype.kind in "fc" else np.float32)


_BINARY = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply,
    "floor_divide": _floor_divide, "remainder": _remainder, "pow": _pow,
    "maximum": np.maximum, "minimum": np.minimum,
    "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor,
}
_COMPARE = {
    "equal": np.equal, "not_equal": np.not_equal, "less_than": np.less,
    "less_equal": np.less_equal, "greater_than": np.greater, "greater_equal": np.greater_equal,
    "logical_and": np.logical_and, "logical_or": np.logical_or, "logical_xor": np.logical_xor,
}

for _name, _fn in _BINARY.items():
    register_op(_name, infer=I.binary(_name))(_fn)
for _name, _fn in _COMPARE.items():
    register_op(_name, infer=I.binary_bool(_name))(_fn)


def _divide_infer(x, y):
    shape = I.broadcast_shapes("divide", x._shape, y._shape)
    return Meta(shape, x.dtype if x.dtype.is_inexact or x.dtype == bool_ else float32)


register_op("divide", infer=_divide_infer)(_divide)


def _binary(op: str):
    def fn(x: Any, y: Any, name: Optional[str] = None) -> Any:
        x, y = binary_operands(x, y, op)
        return apply(op, [x, y])
    fn.__name__ = op
    fn.__doc__ = f"Elementwise {op.replace('_', ' ')} with broadcasting."
    return fn


add = _binary("add")
subtract = _binary("subtract")
multiply = _binary("multiply")
floor_divide = _binary("floor_divide")
remainder = _binary("remainder")
mod = remainder
maximum = _binary("maximum")
minimum = _binary("minimum")
equal = _binary("equal")
not_equal = _binary("not_equal")
less_than = _binary("less_than")
less_equal = _binary("less_equal")
greater_than = _binary("greater_than")
greater_equal = _binary("greater_equal")
bitwise_and = _binary("bitwise_and")
bitwise_or = _binary("bitwise_or")
bitwise_xor = _binary("bitwise_xor")


def divide(x: Any, y: Any, name: Optional[str] = None) -> Any:
    """Elementwise true division (integer inputs give float32)."""
    x, y = binary_operands(x, y, "divide")
    return apply("divide", [x, y])


def pow(x: Any, y: Any, name: Optional[str] = None) -> Any:
    """x ** y elementwise."""
    x, y = binary_operands(x, y, "pow")
    return apply("pow", [x, y])


def _logical(op: str):
    def fn(x: Any, y: Any, out: Any = None, name: Optional[str] = None) -> Any:
        x, y = binary_operands(x, y, op)
        result = apply(op, [x, y])
        # Paddle writes the result into `out` itself (its other holders see it)
        return result if out is None else out.copy_(result)
    fn.__name__ = op
    return fn


logical_and = _logical("logical_and")
logical_or = _logical("logical_or")
logical_xor = _logical("logical_xor")

# ----------------------------------------------------------------------------- unary
UNARY_FLOAT = {
    "exp": np.exp, "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p,
    "sqrt": np.sqrt, "sin": np.sin, "cos": np.cos, "tan": np.tan, "tanh": np.tanh,
    "sinh": np.sinh, "cosh": np.cosh, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
    "floor": np.floor, "ceil": np.ceil,
}
_UNARY_SAME = {"neg": np.negative, "sign": np.sign, "square": np.square}


def _float_kernel(f):
    def k(x):
        out = f(x)
        return out if x.dtype.kind in "fc" else out.astype(np.float32)
    return k


def _float_infer(x):
    return Meta(x._shape, x.dtype if x.dtype.is_inexact else float32)


@register_op("abs", infer=lambda x: Meta(x._shape, REAL_OF.get(x.dtype, x.dtype)))
def _abs(x):
    return np.abs(x)     # the modulus of a complex tensor, in its parts' float dtype


for _name, _fn in UNARY_FLOAT.items():
    register_op(_name, infer=_float_infer)(_float_kernel(_fn))
for _name, _fn in _UNARY_SAME.items():
    register_op(_name, infer=I.same)(_fn)


@register_op("rsqrt", infer=_float_infer)
def _rsqrt(x):
    return (1.0 / np.sqrt(x)).astype(x.dtype if x.dtype.kind in "fc" else np.float32)


@register_op("reciprocal", infer=_float_infer)
def _reciprocal(x):
    return (1.0 / x).astype(x.dtype if x.dtype.kind in "fc" else np.float32)


@register_op("sigmoid", infer=_float_infer)
def _sigmoid(x):
    # tanh form: no overflow warning for large negative inputs
    return (0.5 * (1.0 + np.tanh(0.5 * x))).astype(x.dtype if x.dtype.kind in "fc" else np.float32)


@register_op("logical_not", infer=I.same_as_bool)
def _logical_not(x):
    return np.logical_not(x)


@register_op("bitwise_not", infer=I.same)
def _bitwise_not(x):
    return np.invert(x)


for _name in ("isnan", "isinf", "isfinite"):
    register_op(_name, infer=I.same_as_bool)(getattr(np, _name))


def _unary(op: str):
    def fn(x: Any, name: Optional[str] = None) -> Any:
        return apply(op, [as_tensor(x)])
    fn.__name__ = op
    fn.__doc__ = f"Elementwise {op}."
    return fn


for _name in list(UNARY_FLOAT) + list(_UNARY_SAME) + ["abs", "rsqrt", "reciprocal", "sigmoid",
                                                       "logical_not", "bitwise_not", "isnan",
                                                       "isinf", "isfinite"]:
    globals()[_name] = _unary(_name)


@register_op("clip", infer=I.same)
def _clip(x, min, max):
    return np.clip(x, min, max).astype(x.dtype)


def clip(x: Any, min: Any = None, max: Any = None, name: Optional[str] = None) -> Any:
    """Clamp values into [min, max] (either bound may be None or a tensor)."""
    if is_tensor(min) or is_tensor(max):
        out = x
        if min is not None:
            out = maximum(out, cast(as_tensor(min), x.dtype))
        if max is not None:
            out = minimum(out, cast(as_tensor(max), x.dtype))
        return out
    return apply("clip", [x], {"min": min, "max": max})


@register_op("scale", infer=I.same)
def _scale(x, scale, bias, bias_after_scale):
    out = x * scale + bias if bias_after_scale else (x + bias) * scale
    return out.astype(x.dtype)


def scale(x: Any, scale: float = 1.0, bias: float = 0.0, bias_after_scale: bool = True,
          act: Any = None, name: Optional[str] = None) -> Any:
    """scale * x + bias (or (x + bias) * scale)."""
    if is_tensor(scale):
        return add(multiply(x, scale), bias) if bias_after_scale else multiply(add(x, bias), scale)
    return apply("scale", [x], {"scale": float(scale), "bias": float(bias),
                                "bias_after_scale": bool(bias_after_scale)})


@register_op("erf", infer=_float_infer)
def _erf(x):
    return erf_array(x)


def erf(x: Any, name: Optional[str] = None) -> Any:
    """The Gauss error function, elementwise."""
    return apply("erf", [as_tensor(x)])


@register_op("increment", infer=I.same)
def _increment(x, value):
    return (x + value).astype(x.dtype)


def increment(x: Any, value: float = 1.0, name: Optional[str] = None) -> Any:
    """x + value, written back into x (a static Variable takes the result in place)."""
    out = apply("increment", [x], {"value": value})
    if isinstance(x, Tensor):
        x._value = out._value
        return x
    # through the in-place journal, so a loop or branch body that increments a counter from
    # outside carries its new value out (as `x.add_(1)` does)
    from ..inplace import assign_in_place
    return assign_in_place(x, out)


# Only the op functions are public: a bare star-import would also re-export helpers such as
# operands.cast, which then shadowed the public creation.cast in the ops package.
__all__ = [_n for _n, _v in list(globals().items())
           if not _n.startswith("_") and callable(_v) and getattr(_v, "__module__", None) == __name__]
