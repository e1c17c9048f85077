"""Activation functions, each one fused numpy kernel registered once for eager and static mode."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...runtime.dtype import convert_dtype
from ...runtime.ops import sigmoid, tanh  # noqa: F401 - re-exported as nn.functional.sigmoid / tanh
from ...runtime.ops.erf_kernels import gelu_array, gelu_grad_array, gelu_into
from ...runtime.ops.operands import as_tensor
from ...runtime.ops.softmax import log_softmax, softmax  # noqa: F401 - nn.functional's own names
from ...runtime.registry import Meta, apply, register_into, register_op

__all__ = ["relu", "relu6", "leaky_relu", "elu", "gelu", "silu", "swish", "sigmoid", "tanh",
           "softmax", "log_softmax", "softplus", "hardtanh", "hardsigmoid", "hardswish", "mish"]


def float_meta(x: Any, **attrs: Any) -> Meta:
    # complex inputs reach only the complex-capable ops (runtime/complex_capable.py)
    return Meta(x._shape, x.dtype if x.dtype.is_inexact else convert_dtype("float32"))


def _same_meta(x: Any, **attrs: Any) -> Meta:
    return Meta(x._shape, x.dtype)


def keep_float_dtype(result: np.ndarray, x: np.ndarray) -> np.ndarray:
    # Kernels may compute in a wider type; results keep a float input's dtype (ints give float32).
    return np.asarray(result).astype(x.dtype if x.dtype.kind in "fc" else np.float32, copy=False)


# ----------------------------------------------------------------------------- piecewise linear
@register_op("relu", infer=_same_meta)
def _relu_kernel(x):
    return np.maximum(x, np.zeros((), x.dtype))


@register_into("relu")
def _relu_into(x, out):
    return np.maximum(x, np.zeros((), x.dtype), out=out)


@register_op("relu6", infer=_same_meta)
def _relu6_kernel(x, threshold):
    return np.clip(x, 0, threshold).astype(x.dtype, copy=False)


@register_op("leaky_relu", infer=float_meta)
def _leaky_relu_kernel(x, negative_slope):
    return keep_float_dtype(np.where(x >= 0, x, x * negative_slope), x)


@register_op("hardtanh", infer=_same_meta)
def _hardtanh_kernel(x, min, max):
    return np.clip(x, min, max).astype(x.dtype, copy=False)


@register_op("hardsigmoid", infer=float_meta)
def _hardsigmoid_kernel(x, slope, offset):
    return keep_float_dtype(np.clip(x * slope + offset, 0.0, 1.0), x)


@register_op("hardswish", infer=float_meta)
def _hardswish_kernel(x):
    return keep_float_dtype(x * np.clip(x + 3.0, 0.0, 6.0) / 6.0, x)


def relu(x: Any, name: Optional[str] = None) -> Any:
    """max(x, 0)."""
    return apply("relu", [as_tensor(x)])


def relu6(x: Any, name: Optional[str] = None) -> Any:
    """min(max(x, 0), 6)."""
    return apply("relu6", [as_tensor(x)], {"threshold": 6.0})


def leaky_relu(x: Any, negative_slope: float = 0.01, name: Optional[str] = None) -> Any:
    """x where x >= 0, else negative_slope * x."""
    return apply("leaky_relu", [as_tensor(x)], {"negative_slope": float(negative_slope)})


def hardtanh(x: Any, min: float = -1.0, max: float = 1.0, name: Optional[str] = None) -> Any:
    return apply("hardtanh", [as_tensor(x)], {"min": float(min), "max": float(max)})


def hardsigmoid(x: Any, slope: float = 0.1666667, offset: float = 0.5, name: Optional[str] = None) -> Any:
    return apply("hardsigmoid", [as_tensor(x)], {"slope": float(slope), "offset": float(offset)})


def hardswish(x: Any, name: Optional[str] = None) -> Any:
    return apply("hardswish", [as_tensor(x)])


# ----------------------------------------------------------------------------- smooth
@register_op("elu", infer=float_meta)
def _elu_kernel(x, alpha):
    # expm1 of min(x, 0): no overflow warnings from the branch np.where discards.
    return keep_float_dtype(np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0))), x)


@register_op("gelu", infer=float_meta)
def _gelu_kernel(x, approximate):
    return gelu_array(x, approximate)


register_into("gelu")(gelu_into)


@register_op("gelu_grad", infer=lambda x, g, **attrs: Meta(g._shape, g.dtype))
def _gelu_grad_kernel(x, g, approximate):
    """g * gelu'(x), one fused pass (the gelu rule's backward)."""
    slope = gelu_grad_array(x, approximate)
    np.multiply(slope, g, out=slope, casting="unsafe")
    return slope.astype(g.dtype, copy=False)


@register_op("silu", infer=float_meta)
def _silu_kernel(x):
    # sigmoid(x) = (1 + tanh(x/2)) / 2 never overflows, unlike 1 / (1 + exp(-x)).
    return keep_float_dtype(x * (0.5 * (1.0 + np.tanh(0.5 * x))), x)


@register_op("softplus", infer=float_meta)
def _softplus_kernel(x, beta, threshold):
    bx = x * beta
    if x.dtype.kind == "c":      # no complex logaddexp; Paddle switches on the real part
        return keep_float_dtype(np.where(bx.real > threshold, x, np.log1p(np.exp(bx)) / beta), x)
    return keep_float_dtype(np.where(bx > threshold, x, np.logaddexp(0.0, bx) / beta), x)


@register_op("mish", infer=float_meta)
def _mish_kernel(x):
    return keep_float_dtype(x * np.tanh(np.logaddexp(0.0, x)), x)


def elu(x: Any, alpha: float = 1.0, name: Optional[str] = None) -> Any:
    """x where x > 0, else alpha * (exp(x) - 1)."""
    return apply("elu", [as_tensor(x)], {"alpha": float(alpha)})


def gelu(x: Any, approximate: bool = False, name: Optional[str] = None) -> Any:
    """x * Phi(x) with the exact erf form, or the tanh approximation when approximate=True."""
    return apply("gelu", [as_tensor(x)], {"approximate": bool(approximate)})


def silu(x: Any, name: Optional[str] = None) -> Any:
    """x * sigmoid(x)."""
    return apply("silu", [as_tensor(x)])


def swish(x: Any, name: Optional[str] = None) -> Any:
    return silu(x)


def softplus(x: Any, beta: float = 1.0, threshold: float = 20.0, name: Optional[str] = None) -> Any:
    """log(1 + exp(beta * x)) / beta, and x itself where beta * x > threshold."""
    return apply("softplus", [as_tensor(x)], {"beta": float(beta), "threshold": float(threshold)})


def mish(x: Any, name: Optional[str] = None) -> Any:
    return apply("mish", [as_tensor(x)])
