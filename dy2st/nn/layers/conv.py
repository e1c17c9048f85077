"""Conv2D: a 2-D convolution layer over functional.conv2d."""
from __future__ import annotations

import math
from typing import Any

from .. import functional as F
from ..initializer import Normal
from ..layer import Layer


class Conv2D(Layer):
    """weight [out_channels, in_channels // groups, kh, kw]; Paddle's default init N(0, sqrt(2 / fan_in))."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, padding_mode: str = "zeros",
                 weight_attr: Any = None, bias_attr: Any = None, data_format: str = "NCHW") -> None:
        super().__init__()
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"Conv2D: in_channels ({in_channels}) and out_channels ({out_channels}) "
                             f"must be divisible by groups ({groups})")
        if padding_mode != "zeros":
            raise NotImplementedError(f"Conv2D: padding_mode {padding_mode!r} (only 'zeros')")
        kh, kw = (kernel_size, kernel_size) if isinstance(kernel_size, int) else tuple(kernel_size)
        self._in_channels, self._out_channels, self._kernel_size = in_channels, out_channels, [kh, kw]
        self._stride, self._padding, self._dilation, self._groups = stride, padding, dilation, groups
        self._data_format = data_format
        fan_in = in_channels // groups * kh * kw
        self.weight = self.create_parameter([out_channels, in_channels // groups, kh, kw], attr=weight_attr,
                                            default_initializer=Normal(0.0, math.sqrt(2.0 / fan_in)))
        self.bias = self.create_parameter([out_channels], attr=bias_attr, is_bias=True)

    def forward(self, x: Any) -> Any:
        return F.conv2d(x, self.weight, self.bias, self._stride, self._padding, self._dilation,
                        self._groups, self._data_format)

    def extra_repr(self) -> str:
        return (f"{self._in_channels}, {self._out_channels}, kernel_size={self._kernel_size}, "
                f"stride={self._stride}, padding={self._padding}, data_format={self._data_format}")
