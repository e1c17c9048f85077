"""DeformConv2D: a deformable convolution layer (paddle.vision.ops.DeformConv2D) owning its
weight and bias; forward(x, offset, mask=None)."""
from __future__ import annotations

import math
from typing import Any

from ..functional.conv_nd import as_ints
from ..functional.deform_conv import deform_conv2d
from ..initializer import Normal
from ..layer import Layer

__all__ = ["DeformConv2D"]


class DeformConv2D(Layer):
    """deform_conv2d with its weight [out, in / groups, kh, kw] (Paddle's default init
    N(0, sqrt(2 / (in * kh * kw)))) and bias; forward(x, offset, mask=None)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, deformable_groups: int = 1,
                 groups: int = 1, weight_attr: Any = None, bias_attr: Any = None) -> None:
        super().__init__()
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"DeformConv2D: in_channels ({in_channels}) and out_channels "
                             f"({out_channels}) must be divisible by groups ({groups})")
        self._in_channels, self._out_channels = int(in_channels), int(out_channels)
        self._kernel_size = as_ints(kernel_size, 2, "kernel_size", "DeformConv2D")
        self._stride, self._padding, self._dilation = stride, padding, dilation
        self._deformable_groups, self._groups = int(deformable_groups), int(groups)
        fan_in = self._in_channels * math.prod(self._kernel_size)
        self.weight = self.create_parameter(
            [self._out_channels, self._in_channels // groups] + self._kernel_size,
            attr=weight_attr, default_initializer=Normal(0.0, math.sqrt(2.0 / fan_in)))
        self.bias = self.create_parameter([self._out_channels], attr=bias_attr, is_bias=True)

    def forward(self, x: Any, offset: Any, mask: Any = None) -> Any:
        return deform_conv2d(x, offset, self.weight, self.bias, self._stride, self._padding,
                             self._dilation, self._deformable_groups, self._groups, mask)

    def extra_repr(self) -> str:
        return (f"{self._in_channels}, {self._out_channels}, kernel_size={self._kernel_size}, "
                f"stride={self._stride}, padding={self._padding}, "
                f"deformable_groups={self._deformable_groups}")
