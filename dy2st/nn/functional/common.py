"""linear, dropout and pad: fused kernels for eager and static mode."""
from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from ...runtime import state
from ...runtime.config import rng
from ...runtime.dtype import bool_
from ...runtime.ops import scale, zeros_like
from ...runtime.ops.infer import broadcast_shapes
from ...runtime.ops.linalg import matmul_rows
from ...runtime.ops.operands import as_tensor, binary_operands, cast
from ...runtime.registry import Meta, apply, register_op
from ...runtime.tensor import Tensor

__all__ = ["linear", "dropout", "pad"]


# ----------------------------------------------------------------------------- linear
def _linear_infer(x, w, *bias):
    if len(x._shape) < 1 or len(w._shape) != 2:
        raise ValueError(f"linear: expected x of rank >= 1 and a 2-D weight, got shapes "
                         f"{list(x._shape)} and {list(w._shape)}")
    k1, k2 = x._shape[-1], w._shape[0]
    if k1 >= 0 and k2 >= 0 and k1 != k2:
        raise ValueError(f"linear: x's last dim is {k1} but the weight has shape {list(w._shape)} "
                         f"(expected [{k1}, out_features])")
    out = tuple(x._shape[:-1]) + (w._shape[1],)
    if bias:
        out = broadcast_shapes("linear", out, bias[0]._shape)
    return Meta(out, x.dtype)


@register_op("linear", infer=_linear_infer)
def _linear_kernel(x, w, *bias):
    out = matmul_rows(x, w)
    if bias:
        out += bias[0]          # matmul returns a fresh array: adding in place saves a copy
    return out


def linear(x: Any, weight: Any, bias: Any = None, name: Optional[str] = None) -> Any:
    """x @ weight + bias, with weight of shape [in_features, out_features] (Paddle's layout)."""
    x, weight = binary_operands(x, weight)
    inputs = [x, weight]
    if bias is not None:
        inputs.append(cast(as_tensor(bias), x.dtype))
    return apply("linear", inputs)


# ----------------------------------------------------------------------------- dropout
def _dropout_infer(x, p, axis, upscale, seed=0):
    mask = x._shape if axis is None else tuple(d if i in axis else 1 for i, d in enumerate(x._shape))
    return Meta(x._shape, x.dtype), Meta(mask, bool_)


@register_op("dropout", infer=_dropout_infer, n_outputs=2)
def _dropout_kernel(x, p, axis, upscale, seed=0):
    """(x with dropped elements zeroed, the keep mask): the gradient reads the mask, so it is
    exact also where x itself is 0. A non-zero `seed` (Program.random_seed) fixes the mask."""
    # The mask is drawn when the kernel runs, so each run of a static program draws a new one.
    mask_shape = list(x.shape) if axis is None else [d if i in axis else 1 for i, d in enumerate(x.shape)]
    keep = (np.random.default_rng(seed) if seed else rng()).random(mask_shape) >= p
    out = x * keep
    if upscale:
        out = out / (1.0 - p)
    return out.astype(x.dtype, copy=False), keep


def _dropout_axes(axis: Any, ndim: int) -> Optional[List[int]]:
    if axis is None:
        return None
    axes = [axis] if isinstance(axis, int) else list(axis)
    for a in axes:
        if not -ndim <= a < ndim:
            raise ValueError(f"dropout: axis {a} is out of range for a tensor of rank {ndim}")
    return sorted(a % ndim for a in axes)


def dropout(x: Any, p: float = 0.5, axis: Any = None, training: bool = True,
            mode: str = "upscale_in_train", name: Optional[str] = None) -> Any:
    """Zero each element with probability p while training.

    mode='upscale_in_train' scales kept values by 1/(1-p) in training and is the identity otherwise;
    mode='downscale_in_infer' keeps values unscaled in training and multiplies by (1-p) otherwise."""
    if not isinstance(p, (int, float)) or not 0 <= p <= 1:
        raise ValueError(f"dropout: p must be a number in [0, 1], got {p!r}")
    if mode not in ("upscale_in_train", "downscale_in_infer"):
        raise ValueError(f"dropout: mode must be 'upscale_in_train' or 'downscale_in_infer', got {mode!r}")
    x = as_tensor(x)
    if not training:
        if mode == "downscale_in_infer" and p != 0:
            return scale(x, 1.0 - p)
        return x
    if p == 0:
        return x
    if p == 1:
        return zeros_like(x)
    attrs = {"p": float(p), "axis": _dropout_axes(axis, x.ndim), "upscale": mode == "upscale_in_train"}
    block = state.current_block()
    if block is not None and block.program.random_seed:     # as Paddle: a seeded program's mask
        attrs["seed"] = block.program.random_seed
    out, _ = apply("dropout", [x], attrs)
    return out


# ----------------------------------------------------------------------------- pad
def _pad_infer(x, widths, mode, value):
    shape = tuple(d if d < 0 else d + lo + hi for d, (lo, hi) in zip(x._shape, widths))
    return Meta(shape, x.dtype)


@register_op("pad", infer=_pad_infer)
def _pad_kernel(x, widths, mode, value):
    if mode == "constant":
        return np.pad(x, widths, mode="constant", constant_values=value)
    return np.pad(x, widths, mode=mode)


_NP_MODES = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}
_CHANNEL_LAST = ("NLC", "NHWC", "NDHWC")


def pad_widths(pad: Sequence[int], ndim: int, data_format: str) -> Tuple[Tuple[int, int], ...]:
    """Per-dim (before, after) pairs from Paddle's flat `pad` list.

    A list of 2*ndim values pads every dim in order (dim 0 first). A shorter list pads spatial dims
    starting from the last one: [left, right, top, bottom, front, back] as in Paddle."""
    pad = [int(v) for v in pad]
    if len(pad) % 2:
        raise ValueError(f"pad: the pad list must have an even length, got {pad}")
    widths = [(0, 0)] * ndim
    if len(pad) == 2 * ndim:
        return tuple((pad[2 * i], pad[2 * i + 1]) for i in range(ndim))
    k = len(pad) // 2
    last_spatial = ndim - 2 if data_format in _CHANNEL_LAST else ndim - 1
    first_spatial = 1 if data_format in _CHANNEL_LAST else 2
    if k > last_spatial - first_spatial + 1:
        raise ValueError(f"pad: {len(pad)} pad values do not fit a rank-{ndim} input in "
                         f"{data_format} layout (expected {2 * ndim} or at most "
                         f"{2 * (last_spatial - first_spatial + 1)})")
    for j in range(k):
        widths[last_spatial - j] = (pad[2 * j], pad[2 * j + 1])
    return tuple(widths)


def pad(x: Any, pad: Any, mode: str = "constant", value: float = 0.0, data_format: str = "NCHW",
        pad_from_left_axis: bool = True, name: Optional[str] = None) -> Any:
    """Pad x; mode is 'constant', 'reflect', 'replicate' or 'circular'."""
    if mode not in _NP_MODES:
        raise ValueError(f"pad: mode must be one of {list(_NP_MODES)}, got {mode!r}")
    if isinstance(pad, Tensor):
        pad = pad.numpy().reshape(-1).tolist()
    x = as_tensor(x)
    widths = pad_widths(pad, x.ndim, data_format)
    return apply("pad", [x], {"widths": widths, "mode": _NP_MODES[mode], "value": float(value)})
