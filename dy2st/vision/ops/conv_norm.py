"""Paddle's vision.ops.ConvNormActivation: conv, norm and activation as one Sequential, so its
parameters are named `0.weight`, `1._mean`, ... (the MobileNets, ShuffleNetV2, InceptionV3)."""
from __future__ import annotations

from typing import Any, Optional

from ... import nn


class ConvNormActivation(nn.Sequential):
    """Conv2D, then a norm layer and an activation (Paddle's vision.ops.ConvNormActivation):
    padding defaults to `(kernel_size - 1) // 2 * dilation`, and the convolution has a bias
    only when there is no norm layer (unless `bias` says otherwise)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any = 3,
                 stride: Any = 1, padding: Any = None, groups: int = 1,
                 norm_layer: Any = nn.BatchNorm2D, activation_layer: Any = nn.ReLU,
                 dilation: int = 1, bias: Optional[bool] = None) -> None:
        if padding is None:
            padding = (kernel_size - 1) // 2 * dilation
        if bias is None:
            bias = norm_layer is None
        layers = [nn.Conv2D(in_channels, out_channels, kernel_size, stride, padding,
                            dilation=dilation, groups=groups,
                            bias_attr=None if bias else False)]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            layers.append(activation_layer())
        super().__init__(*layers)
