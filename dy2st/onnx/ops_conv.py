"""Convolutions: conv2d and conv_nd (1-D to 3-D, groups, dilation, asymmetric pads) become Conv,
conv_transpose_nd becomes ConvTranspose (output_padding included); channel-last layouts go
through Transpose."""
from __future__ import annotations

from typing import List, Tuple

from .builder import OpContext
from .table import lowers


def channel_perms(rank: int) -> Tuple[List[int], List[int]]:
    """(channel-last -> channel-first, channel-first -> channel-last) permutations."""
    return [0, rank - 1] + list(range(1, rank - 1)), [0] + list(range(2, rank)) + [1]


def _conv(cx: OpContext, op_type: str, **extra) -> List[str]:
    a = cx.attrs
    rank = len(cx.in_var(0)._shape)
    to_first, to_last = channel_perms(rank)
    x = cx.input(0)
    if a["channel_last"]:
        x = cx.node("Transpose", [x], perm=to_first)
    pads = [int(lo) for lo, _ in a["pads"]] + [int(hi) for _, hi in a["pads"]]
    ins = [x, cx.input(1)] + ([cx.input(2)] if len(cx.values) > 2 else [])
    out = cx.node(op_type, ins, strides=[int(s) for s in a["stride"]],
                  dilations=[int(d) for d in a["dilation"]], group=int(a["groups"]), pads=pads,
                  **extra)
    if a["channel_last"]:
        out = cx.node("Transpose", [out], perm=to_last)
    return [out]


@lowers("conv2d", "conv_nd")
def conv(cx: OpContext) -> List[str]:
    return _conv(cx, "Conv")


@lowers("conv_transpose_nd")
def conv_transpose(cx: OpContext) -> List[str]:
    # Paddle's transposed-conv weight [C_in, C_out / groups, *K] is ONNX's ConvTranspose layout
    return _conv(cx, "ConvTranspose",
                 output_padding=[int(p) for p in cx.attrs["output_padding"]])
