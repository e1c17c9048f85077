"""Convolutions: conv1d/2d/3d and their transposes, one N-d kernel (conv_nd.py) for all of them."""
from __future__ import annotations

from typing import Any, List, Optional

from ...runtime.ops.operands import as_tensor, cast
from ...runtime.registry import apply, register_op
from .conv_nd import as_ints, conv_infer, conv_nd_kernel, resolve_padding, transpose_out_size
from .dims import known_dims

__all__ = ["conv1d", "conv2d", "conv3d", "conv1d_transpose", "conv2d_transpose", "conv3d_transpose"]

# conv2d runs the conv_nd kernel under its own op name (saved programs and its gradient rule use it)
register_op("conv2d", infer=conv_infer)(conv_nd_kernel)

_LAYOUTS = {1: ("NCL", "NLC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def _common(op: str, nd: int, x: Any, weight: Any, groups: int, data_format: str, transpose: bool):
    if data_format not in _LAYOUTS[nd]:
        raise ValueError(f"{op}: data_format must be {' or '.join(map(repr, _LAYOUTS[nd]))}, "
                         f"got {data_format!r}")
    x = as_tensor(x)
    channel_last = data_format == _LAYOUTS[nd][1]
    xs, ws = known_dims(x), known_dims(weight)
    if len(xs) != nd + 2 or len(ws) != nd + 2:
        raise ValueError(f"{op}: expected a {nd + 2}-D input and weight, got shapes {xs} and {ws}")
    if groups < 1:
        raise ValueError(f"{op}: groups must be >= 1, got {groups}")
    c = xs[-1] if channel_last else xs[1]
    want = ws[0] if transpose else ws[1] * groups
    if c >= 0 and ws[0] >= 0 and ws[1] >= 0 and c != want:
        raise ValueError(f"{op}: the input has {c} channels but the weight {ws} with groups={groups} "
                         f"expects {want}")
    if not transpose and ws[0] >= 0 and ws[0] % groups:
        raise ValueError(f"{op}: out_channels ({ws[0]}) must be divisible by groups ({groups})")
    if transpose and ws[0] >= 0 and ws[0] % groups:
        raise ValueError(f"{op}: in_channels ({ws[0]}) must be divisible by groups ({groups})")
    sizes = xs[1:-1] if channel_last else xs[2:]
    return x, channel_last, sizes, ws[2:]


def _inputs(x: Any, weight: Any, bias: Any) -> List[Any]:
    inputs = [x, cast(as_tensor(weight), x.dtype)]
    if bias is not None:
        inputs.append(cast(as_tensor(bias), x.dtype))
    return inputs


def conv_any(op: str, nd: int, x: Any, weight: Any, bias: Any, stride: Any, padding: Any,
             dilation: Any, groups: int, data_format: str, op_type: str = "conv_nd") -> Any:
    """An nd-dimensional convolution with weight [out_channels, in_channels/groups, *kernel]."""
    x, channel_last, sizes, kernel = _common(op, nd, x, weight, groups, data_format, False)
    stride_, dilation_ = as_ints(stride, nd, "stride", op), as_ints(dilation, nd, "dilation", op)
    pads = resolve_padding(padding, sizes, kernel, stride_, dilation_, channel_last, op)
    return apply(op_type, _inputs(x, weight, bias),
                 {"stride": stride_, "pads": pads, "dilation": dilation_, "groups": int(groups),
                  "channel_last": channel_last})


def conv_transpose_any(op: str, nd: int, x: Any, weight: Any, bias: Any, stride: Any, padding: Any,
                       output_padding: Any, dilation: Any, groups: int, output_size: Any,
                       data_format: str) -> Any:
    """An nd-dimensional transposed convolution with weight [in_channels, out_channels/groups, *kernel]."""
    x, channel_last, sizes, kernel = _common(op, nd, x, weight, groups, data_format, True)
    stride_, dilation_ = as_ints(stride, nd, "stride", op), as_ints(dilation, nd, "dilation", op)
    pads = resolve_padding(padding, sizes, kernel, stride_, dilation_, channel_last, op)
    extra = as_ints(output_padding, nd, "output_padding", op)
    if output_size is not None:
        if any(e for e in extra):
            raise ValueError(f"{op}: give output_padding or output_size, not both")
        want = as_ints(output_size, nd, "output_size", op)
        for i, (s, k, st, d, p, w) in enumerate(zip(sizes, kernel, stride_, dilation_, pads, want)):
            if s < 0:
                raise ValueError(f"{op}: output_size needs known spatial dims, got {list(sizes)}")
            base = transpose_out_size(s, k, st, d, p, 0)
            if not base <= w < base + st:
                raise ValueError(f"{op}: output_size {want} is not reachable: dim {i} can be "
                                 f"{base}..{base + st - 1}")
            extra[i] = w - base
    for e, st, d in zip(extra, stride_, dilation_):
        if e < 0 or (e >= st and e >= d):
            raise ValueError(f"{op}: output_padding {extra} must be smaller than the stride "
                             f"{stride_} or the dilation {dilation_}")
    return apply("conv_transpose_nd", _inputs(x, weight, bias),
                 {"stride": stride_, "pads": pads, "dilation": dilation_, "groups": int(groups),
                  "channel_last": channel_last, "output_padding": extra})


def conv1d(x: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0, dilation: Any = 1,
           groups: int = 1, data_format: str = "NCL", name: Optional[str] = None) -> Any:
    """1-D convolution with weight [out_channels, in_channels/groups, k]."""
    return conv_any("conv1d", 1, x, weight, bias, stride, padding, dilation, groups, data_format)


def conv2d(x: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1, data_format: str = "NCHW", name: Optional[str] = None) -> Any:
    """2-D convolution (cross-correlation) with weight [out_channels, in_channels/groups, kh, kw]."""
    return conv_any("conv2d", 2, x, weight, bias, stride, padding, dilation, groups, data_format,
                    op_type="conv2d")


def conv3d(x: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0, dilation: Any = 1,
           groups: int = 1, data_format: str = "NCDHW", name: Optional[str] = None) -> Any:
    """3-D convolution with weight [out_channels, in_channels/groups, kd, kh, kw]."""
    return conv_any("conv3d", 3, x, weight, bias, stride, padding, dilation, groups, data_format)


def conv1d_transpose(x: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, groups: int = 1, dilation: Any = 1, output_size: Any = None,
                     data_format: str = "NCL", name: Optional[str] = None) -> Any:
    """1-D transposed convolution with weight [in_channels, out_channels/groups, k]."""
    return conv_transpose_any("conv1d_transpose", 1, x, weight, bias, stride, padding, output_padding,
                              dilation, groups, output_size, data_format)


def conv2d_transpose(x: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, dilation: Any = 1, groups: int = 1, output_size: Any = None,
                     data_format: str = "NCHW", name: Optional[str] = None) -> Any:
    """2-D transposed convolution with weight [in_channels, out_channels/groups, kh, kw]."""
    return conv_transpose_any("conv2d_transpose", 2, x, weight, bias, stride, padding, output_padding,
                              dilation, groups, output_size, data_format)


def conv3d_transpose(x: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, groups: int = 1, dilation: Any = 1, output_size: Any = None,
                     data_format: str = "NCDHW", name: Optional[str] = None) -> Any:
    """3-D transposed convolution with weight [in_channels, out_channels/groups, kd, kh, kw]."""
    return conv_transpose_any("conv3d_transpose", 3, x, weight, bias, stride, padding, output_padding,
                              dilation, groups, output_size, data_format)
