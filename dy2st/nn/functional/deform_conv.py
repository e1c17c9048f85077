"""Deformable convolution v1/v2 (paddle.vision.ops.deform_conv2d, static.nn.deform_conv2d):
every kernel tap reads x at its grid position moved by a learned offset (and scaled by a
modulation mask in v2); the layer is nn.layers.deform_conv.DeformConv2D."""
from __future__ import annotations

from typing import Any, List, Optional

from ...runtime import ops
from ...runtime.ops.operands import as_tensor
from ...runtime.registry import apply
from .conv_nd import as_ints
from .dims import known_dims

__all__ = ["deform_conv2d"]


def _check(x: Any, offset: Any, weight: Any, mask: Any, groups: int,
           deformable_groups: int) -> List[int]:
    xs, ws = known_dims(x), known_dims(weight)
    if len(xs) != 4 or len(ws) != 4 or len(known_dims(offset)) != 4:
        raise ValueError(f"deform_conv2d: x, offset and weight must be 4-D, got shapes {xs}, "
                         f"{known_dims(offset)}, {ws}")
    c = xs[1]
    if c >= 0 and ws[1] * groups != c:
        raise ValueError(f"deform_conv2d: x has {c} channels but weight {ws} with groups={groups} "
                         f"expects {ws[1] * groups}")
    if (ws[0] >= 0 and ws[0] % groups) or (c >= 0 and c % deformable_groups):
        raise ValueError(f"deform_conv2d: out_channels ({ws[0]}) must divide by groups ({groups}) "
                         f"and in_channels ({c}) by deformable_groups ({deformable_groups})")
    taps = ws[2] * ws[3]
    if known_dims(offset)[1] not in (-1, 2 * deformable_groups * taps):
        raise ValueError(f"deform_conv2d: offset needs 2 * deformable_groups * kh * kw = "
                         f"{2 * deformable_groups * taps} channels, got {known_dims(offset)[1]}")
    if mask is not None and known_dims(mask)[1] not in (-1, deformable_groups * taps):
        raise ValueError(f"deform_conv2d: mask needs deformable_groups * kh * kw = "
                         f"{deformable_groups * taps} channels, got {known_dims(mask)[1]}")
    return ws


def deform_conv2d(x: Any, offset: Any, weight: Any, bias: Any = None, stride: Any = 1,
                  padding: Any = 0, dilation: Any = 1, deformable_groups: int = 1,
                  groups: int = 1, mask: Any = None, name: Optional[str] = None) -> Any:
    """Deformable 2-D convolution of x [N, C, H, W] with weight [out, C / groups, kh, kw];
    offset [N, 2 * deformable_groups * kh * kw, H_out, W_out] holds a (dy, dx) per tap, and
    mask [N, deformable_groups * kh * kw, H_out, W_out] (v2) scales each tap's sample."""
    x, offset, weight = as_tensor(x), as_tensor(offset), as_tensor(weight)
    mask = as_tensor(mask) if mask is not None else None
    ws = _check(x, offset, weight, mask, int(groups), int(deformable_groups))
    cout, cg, kh, kw = ws
    attrs = {"kernel_size": [kh, kw], "stride": as_ints(stride, 2, "stride", "deform_conv2d"),
             "padding": as_ints(padding, 2, "padding", "deform_conv2d"),
             "dilation": as_ints(dilation, 2, "dilation", "deform_conv2d"),
             "deformable_groups": int(deformable_groups)}
    cols = apply("deform_sample", [x, offset], attrs)          # [N, C, K, Ho, Wo]
    c = cg * groups
    ho, wo = known_dims(cols)[3:]
    if min(ho, wo) < 0:         # spatial dims known at run time only
        dims = ops.shape(cols)
        ho, wo = dims[3], dims[4]
    if mask is not None:
        dg = int(deformable_groups)
        cols = ops.reshape(ops.reshape(cols, [0, dg, c // dg, kh * kw, -1])
                           * ops.reshape(mask, [0, dg, 1, kh * kw, -1]), [0, c, kh * kw, -1])
    cols = ops.reshape(cols, [0, groups, cg * kh * kw, -1])
    w = ops.reshape(weight, [groups, -1, cg * kh * kw])
    out = ops.reshape(ops.matmul(w, cols), [0, -1, ho, wo])
    if bias is not None:
        out = out + ops.reshape(as_tensor(bias), [1, -1, 1, 1])
    return out
