"""Normalisation over groups of channels: group_norm, instance_norm (one group per channel) and
local_response_norm, written with differentiable ops (their gradients need no new rule)."""
from __future__ import annotations

from typing import Any, Optional

from ...runtime import ops
from ...runtime.dtype import dtype_name
from ...runtime.ops.operands import as_tensor, cast
from ...runtime.registry import apply, classified_as
from .dims import known_dims

__all__ = ["group_norm", "instance_norm", "local_response_norm"]

_CHANNEL_LAST = ("NLC", "NHWC", "NDHWC")


def _channel_axis(x: Any, data_format: str) -> int:
    return x.ndim - 1 if data_format in _CHANNEL_LAST else 1


def _affine_shape(x: Any, data_format: str, c: int) -> list:
    shape = [1] * x.ndim
    shape[_channel_axis(x, data_format)] = c
    return shape


def _affine(out: Any, x: Any, weight: Any, bias: Any, data_format: str, c: int) -> Any:
    shape = _affine_shape(x, data_format, c)
    if weight is not None:
        out = out * ops.reshape(cast(weight, out.dtype), shape)
    if bias is not None:
        out = out + ops.reshape(cast(bias, out.dtype), shape)
    return out


def _normalize_groups(x: Any, groups: int, epsilon: float, data_format: str, op: str) -> Any:
    """(x - mean) / sqrt(var + epsilon) with statistics per sample and group of channels."""
    c = known_dims(x)[_channel_axis(x, data_format)]
    if c < 0:
        raise ValueError(f"{op}: the channel dim must be known, got shape {known_dims(x)}")
    if groups < 1 or c % groups:
        raise ValueError(f"{op}: {c} channels cannot be split into {groups} groups")
    if data_format in _CHANNEL_LAST:
        grouped = ops.reshape(x, [0, -1, groups, c // groups])
        axes = [1, 3]
    else:
        grouped = ops.reshape(x, [0, groups, -1])
        axes = [2]
    mean = ops.mean(grouped, axis=axes, keepdim=True)
    centred = grouped - mean
    var = ops.mean(ops.square(centred), axis=axes, keepdim=True)
    out = centred * ops.rsqrt(var + epsilon)
    return ops.reshape(out, x.shape), c


def _float_input(x: Any, op: str) -> Any:
    x = as_tensor(x)
    if not x.dtype.is_floating:
        raise TypeError(f"{op}: expected a floating-point input, got {dtype_name(x.dtype)}")
    if x.ndim < 2:
        raise ValueError(f"{op}: the input must have rank >= 2, got shape {known_dims(x)}")
    return x


@classified_as("group_norm")
def group_norm(x: Any, num_groups: int, epsilon: float = 1e-05, weight: Any = None, bias: Any = None,
               data_format: str = "NCHW", name: Optional[str] = None) -> Any:
    """Normalise each sample over groups of num_groups channels, then scale and shift per channel."""
    x = _float_input(x, "group_norm")
    out, c = _normalize_groups(x, int(num_groups), float(epsilon), data_format, "group_norm")
    return _affine(out, x, weight, bias, data_format, c)


def instance_norm(x: Any, running_mean: Any = None, running_var: Any = None, weight: Any = None,
                  bias: Any = None, use_input_stats: bool = True, momentum: float = 0.9,
                  eps: float = 1e-05, data_format: str = "NCHW", name: Optional[str] = None) -> Any:
    """Normalise each sample and channel over its spatial dims (or by the running statistics when
    use_input_stats=False), then scale and shift per channel."""
    x = _float_input(x, "instance_norm")
    c = known_dims(x)[_channel_axis(x, data_format)]
    if use_input_stats:
        out, c = _normalize_groups(x, c, float(eps), data_format, "instance_norm")
    else:
        if running_mean is None or running_var is None:
            raise ValueError("instance_norm: use_input_stats=False needs running_mean and running_var")
        shape = _affine_shape(x, data_format, c)
        out = (x - ops.reshape(cast(running_mean, x.dtype), shape)) * \
            ops.rsqrt(ops.reshape(cast(running_var, x.dtype), shape) + float(eps))
    return _affine(out, x, weight, bias, data_format, c)


def local_response_norm(x: Any, size: int, alpha: float = 0.0001, beta: float = 0.75, k: float = 1.0,
                        data_format: str = "NCHW", name: Optional[str] = None) -> Any:
    """x / (k + alpha * mean of x^2 over `size` neighbouring channels) ** beta."""
    x = _float_input(x, "local_response_norm")
    if x.ndim < 3:
        raise ValueError(f"local_response_norm: the input must have rank >= 3, got shape {known_dims(x)}")
    size = int(size)
    if size < 1:
        raise ValueError(f"local_response_norm: size must be positive, got {size}")
    window = {"kind": "pool", "k": size, "s": 1, "lo": size // 2, "hi": (size - 1) // 2,
              "ceil": False, "exclusive": False}
    mean_sq = apply("resample", [ops.square(x)], {"axes": [_channel_axis(x, data_format)], "specs": [window]})
    return x / ops.pow(mean_sq * float(alpha) + float(k), float(beta))
