"""MobileNetV2 as Paddle defines it: features (ConvNormActivation and InvertedResidual blocks),
pool2d_avg, classifier."""
from __future__ import annotations

from typing import Any

from ... import nn
from ...runtime import ops
from ..ops.conv_norm import ConvNormActivation
from .channels import make_divisible
from .pretrained import refuse_download


class InvertedResidual(nn.Layer):
    def __init__(self, inp: int, oup: int, stride: int, expand_ratio: float,
                 norm_layer: Any = nn.BatchNorm2D) -> None:
        super().__init__()
        self.stride = stride
        if stride not in (1, 2):
            raise ValueError(f"InvertedResidual: stride must be 1 or 2, got {stride}")
        hidden_dim = int(round(inp * expand_ratio))
        self.use_res_connect = self.stride == 1 and inp == oup
        layers = []
        if expand_ratio != 1:
            layers.append(ConvNormActivation(inp, hidden_dim, kernel_size=1,
                                             norm_layer=norm_layer, activation_layer=nn.ReLU6))
        layers.extend([
            ConvNormActivation(hidden_dim, hidden_dim, stride=stride, groups=hidden_dim,
                               norm_layer=norm_layer, activation_layer=nn.ReLU6),
            nn.Conv2D(hidden_dim, oup, 1, 1, 0, bias_attr=False),
            norm_layer(oup)])
        self.conv = nn.Sequential(*layers)

    def forward(self, x: Any) -> Any:
        if self.use_res_connect:
            return x + self.conv(x)
        return self.conv(x)


class MobileNetV2(nn.Layer):
    """MobileNetV2(scale=1.0, num_classes=1000, with_pool=True)."""

    def __init__(self, scale: float = 1.0, num_classes: int = 1000,
                 with_pool: bool = True) -> None:
        super().__init__()
        self.num_classes = num_classes
        self.with_pool = with_pool
        input_channel, last_channel, round_nearest = 32, 1280, 8
        norm_layer = nn.BatchNorm2D
        setting = [[1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 3, 2], [6, 64, 4, 2], [6, 96, 3, 1],
                   [6, 160, 3, 2], [6, 320, 1, 1]]
        input_channel = make_divisible(input_channel * scale, round_nearest)
        self.last_channel = make_divisible(last_channel * max(1.0, scale), round_nearest)
        features: list = [ConvNormActivation(3, input_channel, stride=2, norm_layer=norm_layer,
                                             activation_layer=nn.ReLU6)]
        for t, c, n, s in setting:
            output_channel = make_divisible(c * scale, round_nearest)
            for i in range(n):
                features.append(InvertedResidual(input_channel, output_channel,
                                                 s if i == 0 else 1, expand_ratio=t,
                                                 norm_layer=norm_layer))
                input_channel = output_channel
        features.append(ConvNormActivation(input_channel, self.last_channel, kernel_size=1,
                                           norm_layer=norm_layer, activation_layer=nn.ReLU6))
        self.features = nn.Sequential(*features)
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.classifier = nn.Sequential(nn.Dropout(0.2),
                                            nn.Linear(self.last_channel, num_classes))

    def forward(self, x: Any) -> Any:
        x = self.features(x)
        if self.with_pool:
            x = self.pool2d_avg(x)
        if self.num_classes > 0:
            x = ops.flatten(x, 1)
            x = self.classifier(x)
        return x


def mobilenet_v2(pretrained: bool = False, scale: float = 1.0, **kwargs: Any) -> MobileNetV2:
    if pretrained:
        refuse_download("mobilenet_v2")
    return MobileNetV2(scale=scale, **kwargs)
