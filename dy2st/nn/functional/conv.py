"""conv2d: one fused kernel (sliding windows + tensordot per group) for eager and static mode."""
from __future__ import annotations

from typing import Any, List, Optional, Tuple

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ...runtime.ops.operands import as_tensor, cast
from ...runtime.registry import Meta, apply, register_op
from .dims import known_dims

__all__ = ["conv2d"]


def _pair(v: Any, what: str) -> Tuple[int, int]:
    if isinstance(v, int):
        return v, v
    v = [int(a) for a in v]
    if len(v) != 2:
        raise ValueError(f"conv2d: {what} must be an int or two ints, got {v}")
    return v[0], v[1]


def _out_size(size: int, k: int, stride: int, dilation: int, pad: Tuple[int, int]) -> int:
    if size < 0:
        return -1
    return (size + pad[0] + pad[1] - dilation * (k - 1) - 1) // stride + 1


def _conv_infer(x, w, *bias, stride, pads, dilation, groups, channel_last):
    n, h, wd = (x._shape[0], x._shape[1], x._shape[2]) if channel_last else (x._shape[0], x._shape[2], x._shape[3])
    kh, kw = w._shape[2], w._shape[3]
    oh = _out_size(h, kh, stride[0], dilation[0], pads[0])
    ow = _out_size(wd, kw, stride[1], dilation[1], pads[1])
    o = w._shape[0]
    return Meta((n, oh, ow, o) if channel_last else (n, o, oh, ow), x.dtype)


@register_op("conv2d", infer=_conv_infer)
def _conv2d_kernel(x, w, *bias, stride, pads, dilation, groups, channel_last):
    if channel_last:
        x = x.transpose(0, 3, 1, 2)
    xp = np.pad(x, ((0, 0), (0, 0), tuple(pads[0]), tuple(pads[1])))
    o, cg, kh, kw = w.shape
    span = (dilation[0] * (kh - 1) + 1, dilation[1] * (kw - 1) + 1)
    # windows: [N, C, OH, OW, kh, kw] views into xp (no copy until tensordot)
    win = sliding_window_view(xp, span, axis=(2, 3))[:, :, ::stride[0], ::stride[1], ::dilation[0], ::dilation[1]]
    og = o // groups
    parts = [np.tensordot(win[:, g * cg:(g + 1) * cg], w[g * og:(g + 1) * og], axes=([1, 4, 5], [1, 2, 3]))
             for g in range(groups)]
    out = parts[0] if groups == 1 else np.concatenate(parts, axis=-1)     # [N, OH, OW, O]
    if bias:
        out = out + bias[0]
    if not channel_last:
        out = out.transpose(0, 3, 1, 2)
    return np.ascontiguousarray(out).astype(x.dtype, copy=False)


def _paddings(padding: Any, sizes: List[int], kernel: Tuple[int, int], stride: Tuple[int, int],
              dilation: Tuple[int, int]) -> List[List[int]]:
    """[[top, bottom], [left, right]] from Paddle's padding forms (int, 2 or 4 ints, 'SAME', 'VALID')."""
    if isinstance(padding, str):
        mode = padding.upper()
        if mode == "VALID":
            return [[0, 0], [0, 0]]
        if mode != "SAME":
            raise ValueError(f"conv2d: padding must be 'SAME', 'VALID' or numbers, got {padding!r}")
        pads = []
        for size, k, s, d in zip(sizes, kernel, stride, dilation):
            if size < 0:
                raise ValueError("conv2d: padding='SAME' needs known spatial dims")
            out = -(-size // s)
            total = max((out - 1) * s + d * (k - 1) + 1 - size, 0)
            pads.append([total // 2, total - total // 2])
        return pads
    if isinstance(padding, int):
        return [[padding, padding], [padding, padding]]
    p = [int(v) for v in padding]
    if len(p) == 2:
        return [[p[0], p[0]], [p[1], p[1]]]
    if len(p) == 4:
        return [[p[0], p[1]], [p[2], p[3]]]
    raise ValueError(f"conv2d: padding must have 1, 2 or 4 values, got {p}")


def conv2d(x: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1, data_format: str = "NCHW", name: Optional[str] = None) -> Any:
    """2-D convolution (cross-correlation) with weight [out_channels, in_channels/groups, kh, kw]."""
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"conv2d: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
    x = as_tensor(x)
    channel_last = data_format == "NHWC"
    xs, ws = known_dims(x), known_dims(weight)
    if len(xs) != 4 or len(ws) != 4:
        raise ValueError(f"conv2d: expected a 4-D input and weight, got shapes {xs} and {ws}")
    c = xs[3] if channel_last else xs[1]
    if c >= 0 and ws[1] >= 0 and c != ws[1] * groups:
        raise ValueError(f"conv2d: the input has {c} channels but the weight {ws} with groups={groups} "
                         f"expects {ws[1] * groups}")
    if ws[0] >= 0 and ws[0] % groups:
        raise ValueError(f"conv2d: out_channels ({ws[0]}) must be divisible by groups ({groups})")
    stride_, dilation_ = _pair(stride, "stride"), _pair(dilation, "dilation")
    sizes = xs[1:3] if channel_last else xs[2:4]
    pads = _paddings(padding, sizes, (ws[2], ws[3]), stride_, dilation_)
    inputs = [x, cast(weight, x.dtype)]
    if bias is not None:
        inputs.append(cast(as_tensor(bias), x.dtype))
    return apply("conv2d", inputs, {"stride": list(stride_), "pads": pads, "dilation": list(dilation_),
                                    "groups": int(groups), "channel_last": channel_last})
