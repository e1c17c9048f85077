"""N-d convolution ops (1-D, 2-D, 3-D): conv_nd, conv_transpose_nd and the two gradient ops on
the im2col kernels (im2col.py); conv2d (conv.py) runs the same numpy code."""
from __future__ import annotations

from typing import Any, List, Sequence, Tuple

import numpy as np

from ...runtime.registry import Meta, register_op
from . import depthwise, im2col


def _pad_input(x: np.ndarray, pads: Sequence[Sequence[int]]) -> np.ndarray:
    if not any(lo or hi for lo, hi in pads):
        return x
    return np.pad(x, ((0, 0), (0, 0)) + tuple(tuple(p) for p in pads))


def _to_first(x: np.ndarray, channel_last: bool) -> np.ndarray:
    return np.moveaxis(x, -1, 1) if channel_last else x


def _from_first(x: np.ndarray, channel_last: bool) -> np.ndarray:
    return np.moveaxis(x, 1, -1) if channel_last else x


def conv_forward(x: np.ndarray, w: np.ndarray, stride: Sequence[int], pads: Sequence[Sequence[int]],
                 dilation: Sequence[int], groups: int) -> np.ndarray:
    """Cross-correlation of channel-first x [N, C, *S] with w [O, C/groups, *K]: [N, O, *out]."""
    return im2col.forward(_pad_input(x, pads), w, stride, dilation, groups)


def conv_adjoint(g: np.ndarray, w: np.ndarray, sizes: Sequence[int], stride: Sequence[int],
                 pads: Sequence[Sequence[int]], dilation: Sequence[int], groups: int) -> np.ndarray:
    """The adjoint of conv_forward in its input: g [N, O, *out] -> [N, C, *sizes] (the unpadded
    input sizes; positions no window covers get zero)."""
    padded = [s + lo + hi for s, (lo, hi) in zip(sizes, pads)]
    xp = depthwise.adjoint(g, w, padded, stride, dilation) \
        if depthwise.is_depthwise(w, groups) and g.shape[1] == groups else None
    if xp is None:
        xp = im2col.adjoint(g, w, padded, stride, dilation, groups)
    crop = tuple(slice(lo, lo + s) for s, (lo, _) in zip(sizes, pads))
    return xp[(slice(None), slice(None)) + crop]


def conv_filter_grad(x: np.ndarray, g: np.ndarray, kernel: Sequence[int], stride: Sequence[int],
                     pads: Sequence[Sequence[int]], dilation: Sequence[int], groups: int) -> np.ndarray:
    """d(sum(g * conv_forward(x, w)))/dw: [O, C/groups, *kernel]."""
    return im2col.filter_grad(_pad_input(x, pads), g, kernel, stride, dilation, groups)


# ----------------------------------------------------------------------------- shapes
def out_size(size: int, k: int, stride: int, dilation: int, pad: Sequence[int]) -> int:
    if size < 0:
        return -1
    return (size + pad[0] + pad[1] - dilation * (k - 1) - 1) // stride + 1


def transpose_out_size(size: int, k: int, stride: int, dilation: int, pad: Sequence[int],
                       output_padding: int) -> int:
    if size < 0:
        return -1
    return (size - 1) * stride - pad[0] - pad[1] + dilation * (k - 1) + 1 + output_padding


def _spatial(shape: Sequence[int], channel_last: bool) -> List[int]:
    return list(shape[1:-1]) if channel_last else list(shape[2:])


def _layout(n: int, c: int, spatial: Sequence[int], channel_last: bool) -> Tuple[int, ...]:
    return (n, *spatial, c) if channel_last else (n, c, *spatial)


def conv_infer(x, w, *bias, stride, pads, dilation, groups, channel_last):
    sizes = _spatial(x._shape, channel_last)
    outs = [out_size(s, k, st, d, p) for s, k, st, d, p in zip(sizes, w._shape[2:], stride, dilation, pads)]
    return Meta(_layout(x._shape[0], w._shape[0], outs, channel_last), x.dtype)


def _transpose_infer(x, w, *bias, stride, pads, dilation, groups, channel_last, output_padding):
    sizes = _spatial(x._shape, channel_last)
    outs = [transpose_out_size(s, k, st, d, p, op) for s, k, st, d, p, op
            in zip(sizes, w._shape[2:], stride, dilation, pads, output_padding)]
    c = w._shape[1] * groups if w._shape[1] >= 0 else -1
    return Meta(_layout(x._shape[0], c, outs, channel_last), x.dtype)


def _add_bias(out: np.ndarray, bias: Sequence[np.ndarray]) -> np.ndarray:
    if bias:
        out = out + bias[0].reshape((1, -1) + (1,) * (out.ndim - 2))
    return out


@register_op("conv_nd", infer=conv_infer)
def conv_nd_kernel(x, w, *bias, stride, pads, dilation, groups, channel_last):
    """N-d convolution; w [O, C/groups, *K]; attrs as conv2d's."""
    out = conv_forward(_to_first(x, channel_last), w, stride, pads, dilation, groups)
    out = _from_first(_add_bias(out, bias), channel_last)
    return np.ascontiguousarray(out).astype(x.dtype, copy=False)


@register_op("conv_transpose_nd", infer=_transpose_infer)
def _conv_transpose_kernel(x, w, *bias, stride, pads, dilation, groups, channel_last, output_padding):
    """N-d transposed convolution; w [C_in, C_out/groups, *K] (Paddle's layout)."""
    xf = _to_first(x, channel_last)
    sizes = [transpose_out_size(s, k, st, d, p, op) for s, k, st, d, p, op
             in zip(xf.shape[2:], w.shape[2:], stride, dilation, pads, output_padding)]
    out = conv_adjoint(xf, w, sizes, stride, pads, dilation, groups)
    out = _from_first(_add_bias(out, bias), channel_last)
    return np.ascontiguousarray(out).astype(x.dtype, copy=False)


@register_op("conv_nd_input_grad",
             infer=lambda g, w, x, **attrs: Meta(x._shape, g.dtype))
def _conv_input_grad_kernel(g, w, x, *, stride, pads, dilation, groups, channel_last):
    """The gradient of conv_nd in its input x (x gives only the shape)."""
    sizes = _spatial(x.shape, channel_last)
    out = conv_adjoint(_to_first(g, channel_last), w, sizes, stride, pads, dilation, groups)
    return np.ascontiguousarray(_from_first(out, channel_last)).astype(g.dtype, copy=False)


@register_op("conv_nd_filter_grad",
             infer=lambda x, g, w, **attrs: Meta(w._shape, g.dtype))
def _conv_filter_grad_kernel(x, g, w, *, stride, pads, dilation, groups, channel_last):
    """The gradient of conv_nd in its weight w (w gives only the shape)."""
    out = conv_filter_grad(_to_first(x, channel_last), _to_first(g, channel_last), w.shape[2:],
                           stride, pads, dilation, groups)
    return out.astype(g.dtype, copy=False)


# ----------------------------------------------------------------------------- argument forms
def as_ints(v: Any, n: int, what: str, op: str) -> List[int]:
    """An int or n ints (Paddle's kernel_size / stride / dilation forms)."""
    if isinstance(v, (int, np.integer)):
        return [int(v)] * n
    vals = [int(a) for a in v]
    if len(vals) == 1:
        return vals * n
    if len(vals) != n:
        raise ValueError(f"{op}: {what} must be an int or {n} ints, got {list(v)}")
    return vals


def same_pads(sizes: Sequence[int], kernel: Sequence[int], stride: Sequence[int], op: str) -> List[List[int]]:
    """TensorFlow-style 'SAME' padding: out = ceil(in / stride), the extra pixel at the end."""
    pads = []
    for size, k, s in zip(sizes, kernel, stride):
        if size < 0:
            raise ValueError(f"{op}: padding='SAME' needs known spatial dims, got {list(sizes)}")
        out = -(-size // s)
        total = max((out - 1) * s + k - size, 0)
        pads.append([total // 2, total - total // 2])
    return pads


def padding_pairs(padding: Any, nd: int, channel_last: bool, op: str) -> List[List[int]]:
    """[[lo, hi]] per spatial dim from an int, nd ints, 2*nd ints or nd+2 pairs (numeric forms)."""
    if isinstance(padding, (int, np.integer)):
        return [[int(padding)] * 2 for _ in range(nd)]
    p = list(padding)
    if p and all(isinstance(v, (list, tuple)) for v in p):
        if len(p) != nd + 2:
            raise ValueError(f"{op}: padding given as pairs needs {nd + 2} of them (batch and "
                             f"channel included), got {p}")
        outer = [p[0], p[-1]] if channel_last else [p[0], p[1]]
        if any(int(a) or int(b) for a, b in outer):
            raise ValueError(f"{op}: padding of the batch and channel dims must be 0, got {p}")
        spatial = p[1:-1] if channel_last else p[2:]
        return [[int(a), int(b)] for a, b in spatial]
    p = [int(v) for v in p]
    if len(p) == 1:
        return [[p[0], p[0]] for _ in range(nd)]
    if len(p) == nd:
        return [[v, v] for v in p]
    if len(p) == 2 * nd:
        return [[p[2 * i], p[2 * i + 1]] for i in range(nd)]
    raise ValueError(f"{op}: padding must be an int, {nd} or {2 * nd} ints, or {nd + 2} pairs; got {p}")


def resolve_padding(padding: Any, sizes: Sequence[int], kernel: Sequence[int], stride: Sequence[int],
                    dilation: List[int], channel_last: bool, op: str) -> List[List[int]]:
    """Pads per spatial dim; 'SAME' also sets dilation to 1, as Paddle does."""
    if isinstance(padding, str):
        mode = padding.upper()
        if mode == "VALID":
            return [[0, 0] for _ in kernel]
        if mode != "SAME":
            raise ValueError(f"{op}: padding must be 'SAME', 'VALID' or numbers, got {padding!r}")
        dilation[:] = [1] * len(kernel)
        return same_pads(sizes, kernel, stride, op)
    return padding_pairs(padding, len(kernel), channel_last, op)
