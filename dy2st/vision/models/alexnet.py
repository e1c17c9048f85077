"""AlexNet as Paddle defines it: _conv1/_conv2/_conv5 (conv, relu, max pool), _conv3/_conv4,
then _fc6/_fc7/_fc8 with `downscale_in_infer` dropout; Paddle's uniform initialisation."""
from __future__ import annotations

import math
from typing import Any

from ... import nn
from ...nn import functional as F
from ...nn.initializer import Uniform
from ...nn.param_attr import ParamAttr
from ...runtime import ops
from .pretrained import refuse_download


def _uniform(fan_in: int) -> ParamAttr:
    stdv = 1.0 / math.sqrt(fan_in)
    return ParamAttr(initializer=Uniform(-stdv, stdv))


class ConvPoolLayer(nn.Layer):
    """Conv2D (uniform init), an optional ReLU, then a 3x3 stride-2 max pool."""

    def __init__(self, input_channels: int, output_channels: int, filter_size: Any, stride: Any,
                 padding: Any, stdv: float, groups: int = 1, act: Any = None) -> None:
        super().__init__()
        self.relu = nn.ReLU() if act == "relu" else None
        init = ParamAttr(initializer=Uniform(-stdv, stdv))
        self._conv = nn.Conv2D(input_channels, output_channels, filter_size, stride=stride,
                               padding=padding, groups=groups, weight_attr=init,
                               bias_attr=ParamAttr(initializer=Uniform(-stdv, stdv)))
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)

    def forward(self, inputs: Any) -> Any:
        x = self._conv(inputs)
        if self.relu is not None:
            x = self.relu(x)
        return self._pool(x)


class AlexNet(nn.Layer):
    """AlexNet(num_classes=1000); num_classes <= 0 returns the [N, 256, 6, 6] features of a
    224x224 image (the classifier wants exactly that size)."""

    def __init__(self, num_classes: int = 1000) -> None:
        super().__init__()
        self.num_classes = num_classes
        self._conv1 = ConvPoolLayer(3, 64, 11, 4, 2, 1.0 / math.sqrt(3 * 11 * 11), act="relu")
        self._conv2 = ConvPoolLayer(64, 192, 5, 1, 2, 1.0 / math.sqrt(64 * 5 * 5), act="relu")
        self._conv3 = nn.Conv2D(192, 384, 3, stride=1, padding=1,
                                weight_attr=_uniform(192 * 9), bias_attr=_uniform(192 * 9))
        self._conv4 = nn.Conv2D(384, 256, 3, stride=1, padding=1,
                                weight_attr=_uniform(384 * 9), bias_attr=_uniform(384 * 9))
        self._conv5 = ConvPoolLayer(256, 256, 3, 1, 1, 1.0 / math.sqrt(256 * 9), act="relu")
        if num_classes > 0:
            # Paddle draws all three classifier layers from the first one's fan-in
            fan_in = 256 * 6 * 6
            self._drop1 = nn.Dropout(p=0.5, mode="downscale_in_infer")
            self._fc6 = nn.Linear(fan_in, 4096, weight_attr=_uniform(fan_in),
                                  bias_attr=_uniform(fan_in))
            self._drop2 = nn.Dropout(p=0.5, mode="downscale_in_infer")
            self._fc7 = nn.Linear(4096, 4096, weight_attr=_uniform(fan_in),
                                  bias_attr=_uniform(fan_in))
            self._fc8 = nn.Linear(4096, num_classes, weight_attr=_uniform(fan_in),
                                  bias_attr=_uniform(fan_in))

    def forward(self, inputs: Any) -> Any:
        x = self._conv2(self._conv1(inputs))
        x = F.relu(self._conv3(x))
        x = F.relu(self._conv4(x))
        x = self._conv5(x)
        if self.num_classes > 0:
            x = ops.flatten(x, 1)
            x = F.relu(self._fc6(self._drop1(x)))
            x = F.relu(self._fc7(self._drop2(x)))
            x = self._fc8(x)
        return x


def alexnet(pretrained: bool = False, **kwargs: Any) -> AlexNet:
    """AlexNet(**kwargs); pretrained=True raises (dy2st downloads nothing)."""
    if pretrained:
        refuse_download("alexnet")
    return AlexNet(**kwargs)
