"""The rest of Paddle's activations: fused elementwise kernels (softsign, log_sigmoid, the shrinks,
thresholded_relu, selu, celu), glu, and compositions of differentiable ops (prelu, rrelu, maxout,
gumbel_softmax)."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...runtime import ops
from ...runtime.ops.operands import as_tensor, cast
from ...runtime.registry import Meta, apply, register_op
from ...runtime.tensor_methods import inplace_method
from .activation import elu, float_meta, hardtanh, keep_float_dtype, leaky_relu, relu, softmax, tanh
from .dims import known_dims

__all__ = ["softsign", "log_sigmoid", "hardshrink", "softshrink", "tanhshrink", "thresholded_relu",
           "selu", "celu", "glu", "prelu", "rrelu", "maxout", "gumbel_softmax"]


# ----------------------------------------------------------------------------- fused elementwise
@register_op("softsign", infer=float_meta)
def _softsign_kernel(x):
    return keep_float_dtype(x / (1.0 + np.abs(x)), x)


@register_op("log_sigmoid", infer=float_meta)
def _log_sigmoid_kernel(x):
    if x.dtype.kind == "c":      # numpy has no complex logaddexp
        return -np.log1p(np.exp(-x))
    return keep_float_dtype(-np.logaddexp(0.0, -x), x)


@register_op("hardshrink", infer=float_meta)
def _hardshrink_kernel(x, threshold):
    return keep_float_dtype(np.where(np.abs(x) > threshold, x, 0.0), x)


@register_op("softshrink", infer=float_meta)
def _softshrink_kernel(x, threshold):
    return keep_float_dtype(np.where(x > threshold, x - threshold, np.where(x < -threshold, x + threshold, 0.0)), x)


@register_op("tanhshrink", infer=float_meta)
def _tanhshrink_kernel(x):
    return keep_float_dtype(x - np.tanh(x), x)


@register_op("thresholded_relu", infer=float_meta)
def _thresholded_relu_kernel(x, threshold, value):
    return keep_float_dtype(np.where(x > threshold, x, value), x)


@register_op("selu", infer=float_meta)
def _selu_kernel(x, scale, alpha):
    return keep_float_dtype(scale * np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0))), x)


@register_op("celu", infer=float_meta)
def _celu_kernel(x, alpha):
    return keep_float_dtype(np.maximum(x, 0) + np.minimum(0, alpha * np.expm1(np.minimum(x, 0) / alpha)), x)


def softsign(x: Any, name: Optional[str] = None) -> Any:
    """x / (1 + |x|)."""
    return apply("softsign", [as_tensor(x)])


def log_sigmoid(x: Any, name: Optional[str] = None) -> Any:
    """log(sigmoid(x)), computed without overflow."""
    return apply("log_sigmoid", [as_tensor(x)])


def hardshrink(x: Any, threshold: float = 0.5, name: Optional[str] = None) -> Any:
    """x where |x| > threshold, else 0."""
    return apply("hardshrink", [as_tensor(x)], {"threshold": float(threshold)})


def softshrink(x: Any, threshold: float = 0.5, name: Optional[str] = None) -> Any:
    """x - threshold above threshold, x + threshold below -threshold, else 0."""
    if threshold < 0:
        raise ValueError(f"softshrink: threshold must be >= 0, got {threshold}")
    return apply("softshrink", [as_tensor(x)], {"threshold": float(threshold)})


def tanhshrink(x: Any, name: Optional[str] = None) -> Any:
    """x - tanh(x)."""
    return apply("tanhshrink", [as_tensor(x)])


def thresholded_relu(x: Any, threshold: float = 1.0, value: float = 0.0, name: Optional[str] = None) -> Any:
    """x where x > threshold, else value."""
    return apply("thresholded_relu", [as_tensor(x)], {"threshold": float(threshold), "value": float(value)})


def selu(x: Any, scale: float = 1.0507009873554804934193349852946,
         alpha: float = 1.6732632423543772848170429916717, name: Optional[str] = None) -> Any:
    """scale * (x if x > 0 else alpha * (exp(x) - 1))."""
    if scale <= 1.0:
        raise ValueError(f"selu: scale must be greater than 1.0, got {scale}")
    if alpha < 0:
        raise ValueError(f"selu: alpha must be no less than 0, got {alpha}")
    return apply("selu", [as_tensor(x)], {"scale": float(scale), "alpha": float(alpha)})


def celu(x: Any, alpha: float = 1.0, name: Optional[str] = None) -> Any:
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    if alpha == 0:
        raise ZeroDivisionError("celu: alpha cannot be 0")
    return apply("celu", [as_tensor(x)], {"alpha": float(alpha)})


# ----------------------------------------------------------------------------- glu
def _glu_infer(x, axis):
    shape = list(x._shape)
    shape[axis] = shape[axis] // 2 if shape[axis] >= 0 else -1
    return Meta(tuple(shape), x.dtype)


@register_op("glu", infer=_glu_infer)
def _glu_kernel(x, axis):
    a, b = np.split(x, 2, axis=axis)
    return keep_float_dtype(a * (0.5 * (1.0 + np.tanh(0.5 * b))), x)


def glu(x: Any, axis: int = -1, name: Optional[str] = None) -> Any:
    """a * sigmoid(b) for the two halves a, b of x along axis."""
    x = as_tensor(x)
    nd = x.ndim
    if not -nd <= axis < nd:
        raise ValueError(f"glu: axis {axis} is out of range for a tensor of rank {nd}")
    axis %= nd
    size = known_dims(x)[axis]
    if size >= 0 and size % 2:
        raise ValueError(f"glu: the size of axis {axis} must be even, got {size}")
    return apply("glu", [x], {"axis": axis})


# ----------------------------------------------------------------------------- compositions
def _channel_shape(x: Any, n: int, data_format: str) -> list:
    shape = [1] * x.ndim
    if x.ndim >= 2:
        shape[x.ndim - 1 if data_format in ("NLC", "NHWC", "NDHWC") else 1] = n
    return shape


def prelu(x: Any, weight: Any, data_format: str = "NCHW", name: Optional[str] = None) -> Any:
    """max(0, x) + weight * min(0, x); weight has 1 value or one per channel."""
    x = as_tensor(x)
    dims = known_dims(weight)
    # a weight whose size is known only at run time takes the per-channel form: [1, -1, 1...]
    # broadcasts a single value as well
    n = -1 if -1 in dims else int(np.prod(dims))
    if n > 1:
        channels = known_dims(x)[x.ndim - 1 if data_format in ("NLC", "NHWC", "NDHWC") else 1]
        if channels >= 0 and channels != n:
            raise ValueError(f"prelu: the weight has {n} values but the input has {channels} channels")
    w = ops.reshape(cast(weight, x.dtype), _channel_shape(x, n, data_format) if n != 1 else [1] * max(x.ndim, 1))
    r = relu(x)
    return r + w * (x - r)


def rrelu(x: Any, lower: float = 1.0 / 8.0, upper: float = 1.0 / 3.0, training: bool = True,
          name: Optional[str] = None) -> Any:
    """Leaky relu whose negative slope is drawn from U(lower, upper) per element while training,
    and is (lower + upper) / 2 otherwise."""
    if not 0 <= lower <= upper <= 1:
        raise ValueError(f"rrelu: need 0 <= lower <= upper <= 1, got lower={lower}, upper={upper}")
    x = as_tensor(x)
    r = relu(x)
    if training:
        slope = ops.uniform(x.shape, dtype=x.dtype, min=lower, max=upper)
    else:
        slope = (lower + upper) / 2.0
    return r + (x - r) * slope


def maxout(x: Any, groups: int, axis: int = 1, name: Optional[str] = None) -> Any:
    """The maximum over each run of `groups` consecutive channels (channels become C / groups)."""
    x = as_tensor(x)
    if axis not in (1, -1, 3):
        raise ValueError(f"maxout: axis must be 1, -1 or 3, got {axis}")
    axis %= x.ndim
    c = known_dims(x)[axis]
    if c >= 0 and c % groups:
        raise ValueError(f"maxout: the {c} channels are not divisible by groups={groups}")
    # 0 copies a dim in place; the dims after the split shift by one, so give them as they are
    template = [0] * axis + [c // groups if c >= 0 else -1, groups] + list(x.shape)[axis + 1:]
    return ops.max(ops.reshape(x, template), axis=axis + 1)


def gumbel_softmax(x: Any, temperature: float = 1.0, hard: bool = False, axis: int = -1,
                   name: Optional[str] = None) -> Any:
    """softmax((x + Gumbel noise) / temperature); hard=True gives one-hot samples whose gradient is
    the soft sample's (straight-through)."""
    x = as_tensor(x)
    u = ops.uniform(x.shape, dtype=x.dtype, min=1e-10, max=1.0)
    y = softmax((x - ops.log(ops.neg(ops.log(u)))) / temperature, axis=axis)
    if not hard:
        return y
    index = ops.argmax(y, axis=axis, keepdim=True)
    one = ops.put_along_axis(ops.zeros_like(y), index, ops.ones_like(index).astype(y.dtype), axis)
    return one - y.detach() + y


# ----------------------------------------------------------------------------- in-place forms
def _in_place(fn: Any) -> Any:
    """fn's in-place form `<fn>_`: the result replaces x (eagerly) or rebinds it (while tracing)."""

    name = f"{fn.__name__}_"
    write = inplace_method(fn)

    def in_place(x: Any, *args: Any, **kwargs: Any) -> Any:
        if not getattr(x, "stop_gradient", True):
            raise RuntimeError(f"{name}: changing a tensor that needs a gradient in place would lose "
                               f"its gradient; use the out-of-place {fn.__name__}(x) instead")
        kwargs.pop("name", None)
        return write(as_tensor(x), *args, **kwargs)
    in_place.__name__ = in_place.__qualname__ = name
    in_place.__doc__ = f"{fn.__name__}, writing the result into x (x must not need a gradient)."
    return in_place


relu_ = _in_place(relu)
elu_ = _in_place(elu)
leaky_relu_ = _in_place(leaky_relu)
hardtanh_ = _in_place(hardtanh)
softmax_ = _in_place(softmax)
tanh_ = _in_place(tanh)
thresholded_relu_ = _in_place(thresholded_relu)
__all__ += ["relu_", "elu_", "leaky_relu_", "hardtanh_", "softmax_", "tanh_", "thresholded_relu_"]
