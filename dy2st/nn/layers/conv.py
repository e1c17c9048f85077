"""Convolution layers: Conv1D/2D/3D and Conv1D/2D/3DTranspose over one N-d base."""
from __future__ import annotations

import math
from typing import Any, List, Optional

from .. import functional as F
from ..functional.conv import conv_any, conv_transpose_any
from ..functional.conv_nd import as_ints, padding_pairs
from ..initializer import Normal
from ..layer import Layer

_PAD_MODES = ("zeros", "reflect", "replicate", "circular")


class ConvNd(Layer):
    """weight [out, in/groups, *k] ([in, out/groups, *k] when transposed); Paddle's default init
    N(0, sqrt(2 / (in_channels * prod(k))))."""

    _nd = 2
    _transpose = False
    _default_format = "NCHW"

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, padding_mode: str = "zeros",
                 weight_attr: Any = None, bias_attr: Any = None, data_format: Optional[str] = None,
                 output_padding: Any = 0) -> None:
        super().__init__()
        name = type(self).__name__
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"{name}: in_channels ({in_channels}) and out_channels ({out_channels}) "
                             f"must be divisible by groups ({groups})")
        if padding_mode not in _PAD_MODES:
            raise ValueError(f"{name}: padding_mode must be one of {list(_PAD_MODES)}, got {padding_mode!r}")
        nd = self._nd
        self._in_channels, self._out_channels = int(in_channels), int(out_channels)
        self._kernel_size = as_ints(kernel_size, nd, "kernel_size", name)
        self._stride, self._padding, self._dilation, self._groups = stride, padding, dilation, int(groups)
        self._output_padding = output_padding
        self._padding_mode = padding_mode
        self._data_format = data_format or self._default_format
        self._pad_list: Optional[List[int]] = None
        if padding_mode != "zeros":
            if isinstance(padding, str):
                raise ValueError(f"{name}: padding_mode {padding_mode!r} needs numeric padding, got {padding!r}")
            pairs = padding_pairs(padding, nd, self._data_format[-1] == "C", name)
            # F.pad's short form lists the last spatial dim first
            self._pad_list = [v for pair in reversed(pairs) for v in pair]
        if self._transpose:
            shape = [self._in_channels, self._out_channels // groups] + self._kernel_size
        else:
            shape = [self._out_channels, self._in_channels // groups] + self._kernel_size
        fan_in = self._in_channels * math.prod(self._kernel_size)
        self.weight = self.create_parameter(shape, attr=weight_attr,
                                            default_initializer=Normal(0.0, math.sqrt(2.0 / fan_in)))
        self.bias = self.create_parameter([self._out_channels], attr=bias_attr, is_bias=True)

    def forward(self, x: Any) -> Any:
        name = type(self).__name__
        padding = self._padding
        if self._pad_list is not None:
            x = F.pad(x, self._pad_list, mode=self._padding_mode, data_format=self._data_format)
            padding = 0
        return conv_any(name, self._nd, x, self.weight, self.bias, self._stride, padding,
                        self._dilation, self._groups, self._data_format,
                        op_type="conv2d" if self._nd == 2 else "conv_nd")

    def extra_repr(self) -> str:
        return (f"{self._in_channels}, {self._out_channels}, kernel_size={self._kernel_size}, "
                f"stride={self._stride}, padding={self._padding}, data_format={self._data_format}")


class Conv1D(ConvNd):
    _nd, _default_format = 1, "NCL"

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, padding_mode: str = "zeros",
                 weight_attr: Any = None, bias_attr: Any = None, data_format: str = "NCL") -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups,
                         padding_mode, weight_attr, bias_attr, data_format)


class Conv2D(ConvNd):
    _nd, _default_format = 2, "NCHW"

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, padding_mode: str = "zeros",
                 weight_attr: Any = None, bias_attr: Any = None, data_format: str = "NCHW") -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups,
                         padding_mode, weight_attr, bias_attr, data_format)


class Conv3D(ConvNd):
    _nd, _default_format = 3, "NCDHW"

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, padding_mode: str = "zeros",
                 weight_attr: Any = None, bias_attr: Any = None, data_format: str = "NCDHW") -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups,
                         padding_mode, weight_attr, bias_attr, data_format)


class _ConvTransposeNd(ConvNd):
    _transpose = True

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, output_padding: Any = 0, groups: int = 1, dilation: Any = 1,
                 weight_attr: Any = None, bias_attr: Any = None, data_format: Optional[str] = None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups,
                         "zeros", weight_attr, bias_attr, data_format, output_padding)


    def forward(self, x: Any, output_size: Any = None) -> Any:
        return conv_transpose_any(type(self).__name__, self._nd, x, self.weight, self.bias, self._stride,
                                  self._padding, self._output_padding, self._dilation, self._groups,
                                  output_size, self._data_format)


class Conv1DTranspose(_ConvTransposeNd):
    _nd, _default_format = 1, "NCL"


class Conv2DTranspose(_ConvTransposeNd):
    _nd, _default_format = 2, "NCHW"


class Conv3DTranspose(_ConvTransposeNd):
    _nd, _default_format = 3, "NCDHW"
