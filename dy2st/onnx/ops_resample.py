"""resample (average pooling, adaptive average pooling, interpolation) and grid_sample.
Each resample form becomes the ONNX op with the same index formula (AveragePool,
GlobalAveragePool, Resize); a form no ONNX op matches is exported as its exact per-axis matrix
(MatMul) when the sizes are known at export time, and refused otherwise."""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence

import numpy as np

from ..nn.functional.resample import matrix, out_len
from .builder import OpContext
from .ops_conv import channel_perms
from .table import lowers


def _channel_first_axes(axes: Sequence[int], rank: int) -> Optional[bool]:
    """Whether `axes` are the spatial dims of a channel-last input (True), of a channel-first
    one (False), or neither (None)."""
    axes = [a % rank for a in axes]
    if axes == list(range(2, rank)):
        return False
    if axes == list(range(1, rank - 1)):
        return True
    return None


def _as_matmuls(cx: OpContext, x: str, axes: Sequence[int], specs: Sequence[Dict],
                form: str) -> str:
    """x mapped along each axis by the spec's [out, size] matrix (sizes known at export time)."""
    shape = cx.in_var(0)._shape
    rank = len(shape)
    if not _sizes_known(specs, [shape[a % rank] for a in axes]):
        raise cx.fail(f"{form} on dims known only when the program runs has no ONNX "
                      "equivalent (its sizes must be known at export time)")
    for axis, spec in zip(axes, specs):
        axis %= rank
        m = matrix(spec, shape[axis]).astype(np.dtype(cx.out_dtype))       # [out, size]
        if axis == rank - 1:
            x = cx.node("MatMul", [x, cx.const(m.T)])
        elif axis == rank - 2:
            # from the left, without the Transposes: onnxruntime 1.19 fuses a Transpose of the
            # last two dims into a FusedMatMul it has no float64 kernel for
            x = cx.node("MatMul", [cx.const(m), x])
        else:
            swap = list(range(rank))
            swap[axis], swap[-1] = swap[-1], swap[axis]
            x = cx.node("Transpose", [x], perm=swap)
            x = cx.node("MatMul", [x, cx.const(m.T)])
            x = cx.node("Transpose", [x], perm=swap)
    return x


def _sizes_known(specs: Sequence[Dict], sizes: Sequence[int]) -> bool:
    return all(n >= 0 and s.get("out_input") is None for s, n in zip(specs, sizes))


def _in_layout(cx: OpContext, channel_last: bool, build) -> str:
    """build(channel-first x) -> channel-first y, with Transposes around for channel-last x."""
    rank = len(cx.in_var(0)._shape)
    to_first, to_last = channel_perms(rank)
    x = cx.node("Transpose", [cx.input(0)], perm=to_first) if channel_last else cx.input(0)
    y = build(x)
    return cx.node("Transpose", [y], perm=to_last) if channel_last else y


def _average_pool(cx: OpContext, specs: Sequence[Dict], channel_last: bool) -> Optional[str]:
    """AveragePool for fixed windows (Paddle's divisor is ONNX's with count_include_pad = not
    exclusive); None for forms it does not match."""
    if len({bool(s["exclusive"]) for s in specs}) > 1:
        return None
    kernel, strides = [int(s["k"]) for s in specs], [int(s["s"]) for s in specs]
    los = [int(s["lo"]) for s in specs]
    his = [int(s["hi"]) for s in specs]
    exclusive = bool(specs[0]["exclusive"])
    if not any(s["ceil"] for s in specs) and all(p < k for p, k in zip(los + his, kernel * 2)):
        return _in_layout(cx, channel_last, lambda x: cx.node(
            "AveragePool", [x], kernel_shape=kernel, strides=strides, pads=los + his,
            count_include_pad=0 if exclusive else 1))
    # onnxruntime's ceil_mode drops and shrinks edge windows (and disagrees with onnx's shape
    # inference), so Paddle's windows are spelled out: zero padding, ceil_mode's partial window as
    # s - 1 more of it, and for `exclusive` the count of real elements in each window
    his = [h + (int(s["s"]) - 1 if s["ceil"] else 0) for h, s in zip(his, specs)]
    rank = len(cx.in_var(0)._shape)
    pads = cx.ints([0, 0] + los + [0, 0] + his)
    d = cx.out_dtype

    def pooled_sum(x: str) -> str:
        summed = cx.node("AveragePool", [cx.node("Pad", [x, pads, cx.const(0, d)])],
                         kernel_shape=kernel, strides=strides)
        if not exclusive:
            return summed
        spatial = cx.node("Slice", [cx.node("Shape", [x]), cx.ints([2]), cx.ints([rank])])
        ones = cx.node("Expand", [cx.const(1, d), cx.node("Concat", [cx.ints([1, 1]), spatial],
                                                          axis=0)])
        share = cx.node("AveragePool", [cx.node("Pad", [ones, pads, cx.const(0, d)])],
                        kernel_shape=kernel, strides=strides)
        # a window of padding alone has no element: 0 / (half the smallest share) = 0, as eager
        floor = cx.const(0.5 / float(np.prod(kernel)), d)
        return cx.node("Div", [summed, cx.node("Max", [share, floor])])
    return _in_layout(cx, channel_last, pooled_sum)


def _adaptive_pool(cx: OpContext, specs: Sequence[Dict], sizes: Sequence[int],
                   channel_last: bool) -> Optional[str]:
    if all(s["out"] == 1 for s in specs):
        return _in_layout(cx, channel_last, lambda x: cx.node("GlobalAveragePool", [x]))
    if any(n < 0 or n % s["out"] for s, n in zip(specs, sizes)):
        return None
    ks = [n // s["out"] for s, n in zip(specs, sizes)]
    return _in_layout(cx, channel_last, lambda x: cx.node("AveragePool", [x], kernel_shape=ks,
                                                          strides=ks))


_RESIZE_MODES = {"nearest": "nearest", "linear": "linear", "cubic": "cubic"}


def _coordinate_mode(spec: Dict) -> str:
    if spec["align_corners"]:
        return "align_corners"
    if spec["kind"] == "nearest" or (spec["kind"] == "linear" and spec.get("align_mode", 0) == 1):
        return "asymmetric"
    # Paddle's centred source index, clamped at 0 and 0 for a length-1 output
    return "pytorch_half_pixel" if spec["kind"] == "linear" else "half_pixel"


def _resize(cx: OpContext, axes: Sequence[int], specs: Sequence[Dict], sizes: Sequence[int],
            form: str) -> Optional[str]:
    kinds = {s["kind"] for s in specs}
    modes = {_coordinate_mode(s) for s in specs}
    if len(kinds) > 1 or len(modes) > 1:
        return None
    spec = specs[0]
    mode = modes.pop()
    if spec["kind"] == "cubic" and mode == "half_pixel" and any(
            out_len(s, n) in (-1, 1) for s, n in zip(specs, sizes)):
        # Paddle samples a one-pixel output at -0.5, Resize at the centre
        if _sizes_known(specs, sizes):
            return None
        raise cx.fail("bicubic interpolation without align_corners to a size known only when the "
                      "program runs cannot be exported (for a one-pixel output Paddle samples at "
                      "-0.5, which ONNX's Resize cannot express); give the size as numbers")
    rank = len(cx.in_var(0)._shape)
    axes = [a % rank for a in axes]
    attrs = {"mode": _RESIZE_MODES[spec["kind"]], "coordinate_transformation_mode": mode}
    if spec["kind"] == "nearest":
        attrs["nearest_mode"] = "round_prefer_ceil" if spec["align_corners"] else "floor"
    if spec["kind"] == "cubic":
        attrs.update(cubic_coeff_a=-0.75, exclude_outside=0)
    with_scale = [s.get("scale") is not None for s in specs]
    if all(with_scale):
        scales = np.ones(rank, dtype=np.float32)
        for a, s in zip(axes, specs):
            scales[a] = s["scale"]
        return cx.node("Resize", [cx.input(0), "", cx.const(scales)], **attrs)
    if any(with_scale):
        return None
    shape = cx.node("Shape", [cx.input(0)])
    parts = []
    for d in range(rank):
        if d not in axes:
            parts.append(cx.node("Gather", [shape, cx.ints([d])], axis=0))
            continue
        s = specs[axes.index(d)]
        if s.get("out_input") is not None:
            dim = cx.input_as(1 + s["out_input"], "int64")
            parts.append(cx.node("Reshape", [dim, cx.ints([1])]))
        else:
            parts.append(cx.ints([s["out"]]))
    return cx.node("Resize", [cx.input(0), "", "", cx.node("Concat", parts, axis=0)], **attrs)


_FORMS = {"pool": "average pooling", "adaptive": "adaptive average pooling",
          "nearest": "nearest interpolation", "linear": "linear interpolation",
          "cubic": "bicubic interpolation"}


@lowers("resample")
def resample(cx: OpContext) -> List[str]:
    axes, specs = cx.attrs["axes"], cx.attrs["specs"]
    shape = cx.in_var(0)._shape
    rank = len(shape)
    sizes = [shape[a % rank] for a in axes]
    kinds = {s["kind"] for s in specs}
    form = " / ".join(sorted(_FORMS.get(k, k) for k in kinds))
    channel_last = _channel_first_axes(axes, rank)
    out = None
    if cx.out_dtype == "float64" and _sizes_known(specs, sizes):
        # onnxruntime's AveragePool and Resize take no float64; the matrices are exact
        return [_as_matmuls(cx, cx.input(0), axes, specs, form)]
    if kinds == {"pool"} and channel_last is not None:
        out = _average_pool(cx, specs, channel_last)
    elif kinds == {"adaptive"} and channel_last is not None:
        out = _adaptive_pool(cx, specs, sizes, channel_last)
        form += " with unequal windows" if out is None else ""
    elif kinds <= {"nearest", "linear", "cubic"}:
        out = _resize(cx, axes, specs, sizes, form)
    if out is None:
        out = _as_matmuls(cx, cx.input(0), axes, specs, form)
    return [out]


@lowers("grid_sample", min_opset=16)
def grid_sample(cx: OpContext) -> List[str]:
    rank = len(cx.in_var(0)._shape)
    if rank != 4 and cx.opset < 20:
        raise cx.fail("3-D grid sampling (a 5-D input) needs ONNX opset 20; export with "
                      "opset_version >= 20")
    mode = cx.attrs["mode"]
    if mode == "bilinear" and cx.opset >= 20:
        mode = "linear"                        # opset 20 renamed the modes
    return [cx.node("GridSample", [cx.input(0), cx.input_as(1, cx.dtype(0))], mode=mode,
                    padding_mode=cx.attrs["padding_mode"],
                    align_corners=int(bool(cx.attrs["align_corners"])))]
