"""InceptionV3 as Paddle defines it: inception_stem, inception_block_list (3 InceptionA, an
InceptionB, 4 InceptionC, an InceptionD, 2 InceptionE), avg_pool, dropout, fc. Every
convolution is a ConvNormActivation (conv, batch norm, ReLU)."""
from __future__ import annotations

import math
from typing import Any

from ... import nn
from ...nn.initializer import Uniform
from ...nn.param_attr import ParamAttr
from ...runtime import ops
from ..ops.conv_norm import ConvNormActivation
from .pretrained import refuse_download


def _cna(in_channels: int, out_channels: int, kernel_size: Any, stride: int = 1,
         padding: Any = 0) -> ConvNormActivation:
    return ConvNormActivation(in_channels, out_channels, kernel_size=kernel_size, stride=stride,
                              padding=padding, activation_layer=nn.ReLU)


def _avg_pool() -> nn.AvgPool2D:
    # the padded border counts in the average (exclusive=False), as in Paddle
    return nn.AvgPool2D(kernel_size=3, stride=1, padding=1, exclusive=False)


class InceptionStem(nn.Layer):
    """Five convolutions and two 3x3 stride-2 max pools: 299x299 -> 35x35x192."""

    def __init__(self) -> None:
        super().__init__()
        self.conv_1a_3x3 = _cna(3, 32, 3, stride=2)
        self.conv_2a_3x3 = _cna(32, 32, 3)
        self.conv_2b_3x3 = _cna(32, 64, 3, padding=1)
        self.max_pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)
        self.conv_3b_1x1 = _cna(64, 80, 1)
        self.conv_4a_3x3 = _cna(80, 192, 3)

    def forward(self, x: Any) -> Any:
        x = self.conv_2b_3x3(self.conv_2a_3x3(self.conv_1a_3x3(x)))
        x = self.max_pool(x)
        return self.max_pool(self.conv_4a_3x3(self.conv_3b_1x1(x)))


class InceptionA(nn.Layer):
    """1x1; 1x1 -> 5x5; 1x1 -> 3x3 -> 3x3; avg pool -> 1x1 (pool_features)."""

    def __init__(self, num_channels: int, pool_features: int) -> None:
        super().__init__()
        self.branch1x1 = _cna(num_channels, 64, 1)
        self.branch5x5_1 = _cna(num_channels, 48, 1)
        self.branch5x5_2 = _cna(48, 64, 5, padding=2)
        self.branch3x3dbl_1 = _cna(num_channels, 64, 1)
        self.branch3x3dbl_2 = _cna(64, 96, 3, padding=1)
        self.branch3x3dbl_3 = _cna(96, 96, 3, padding=1)
        self.branch_pool = _avg_pool()
        self.branch_pool_conv = _cna(num_channels, pool_features, 1)

    def forward(self, x: Any) -> Any:
        b5 = self.branch5x5_2(self.branch5x5_1(x))
        b3 = self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x)))
        bp = self.branch_pool_conv(self.branch_pool(x))
        return ops.concat([self.branch1x1(x), b5, b3, bp], axis=1)


class InceptionB(nn.Layer):
    """Grid reduction: 3x3 stride 2; 1x1 -> 3x3 -> 3x3 stride 2; 3x3 stride-2 max pool."""

    def __init__(self, num_channels: int) -> None:
        super().__init__()
        self.branch3x3 = _cna(num_channels, 384, 3, stride=2)
        self.branch3x3dbl_1 = _cna(num_channels, 64, 1)
        self.branch3x3dbl_2 = _cna(64, 96, 3, padding=1)
        self.branch3x3dbl_3 = _cna(96, 96, 3, stride=2)
        self.branch_pool = nn.MaxPool2D(kernel_size=3, stride=2)

    def forward(self, x: Any) -> Any:
        b3 = self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x)))
        return ops.concat([self.branch3x3(x), b3, self.branch_pool(x)], axis=1)


class InceptionC(nn.Layer):
    """Factorised 7x7: 1x1; 1x1 -> 1x7 -> 7x1; 1x1 -> 7x1 -> 1x7 -> 7x1 -> 1x7; avg pool -> 1x1."""

    def __init__(self, num_channels: int, channels_7x7: int) -> None:
        super().__init__()
        c7 = channels_7x7
        self.branch1x1 = _cna(num_channels, 192, 1)
        self.branch7x7_1 = _cna(num_channels, c7, 1)
        self.branch7x7_2 = _cna(c7, c7, (1, 7), padding=(0, 3))
        self.branch7x7_3 = _cna(c7, 192, (7, 1), padding=(3, 0))
        self.branch7x7dbl_1 = _cna(num_channels, c7, 1)
        self.branch7x7dbl_2 = _cna(c7, c7, (7, 1), padding=(3, 0))
        self.branch7x7dbl_3 = _cna(c7, c7, (1, 7), padding=(0, 3))
        self.branch7x7dbl_4 = _cna(c7, c7, (7, 1), padding=(3, 0))
        self.branch7x7dbl_5 = _cna(c7, 192, (1, 7), padding=(0, 3))
        self.branch_pool = _avg_pool()
        self.branch_pool_conv = _cna(num_channels, 192, 1)

    def forward(self, x: Any) -> Any:
        b7 = self.branch7x7_3(self.branch7x7_2(self.branch7x7_1(x)))
        d = self.branch7x7dbl_2(self.branch7x7dbl_1(x))
        d = self.branch7x7dbl_5(self.branch7x7dbl_4(self.branch7x7dbl_3(d)))
        bp = self.branch_pool_conv(self.branch_pool(x))
        return ops.concat([self.branch1x1(x), b7, d, bp], axis=1)


class InceptionD(nn.Layer):
    """Grid reduction: 1x1 -> 3x3 stride 2; 1x1 -> 1x7 -> 7x1 -> 3x3 stride 2; max pool."""

    def __init__(self, num_channels: int) -> None:
        super().__init__()
        self.branch3x3_1 = _cna(num_channels, 192, 1)
        self.branch3x3_2 = _cna(192, 320, 3, stride=2)
        self.branch7x7x3_1 = _cna(num_channels, 192, 1)
        self.branch7x7x3_2 = _cna(192, 192, (1, 7), padding=(0, 3))
        self.branch7x7x3_3 = _cna(192, 192, (7, 1), padding=(3, 0))
        self.branch7x7x3_4 = _cna(192, 192, 3, stride=2)
        self.branch_pool = nn.MaxPool2D(kernel_size=3, stride=2)

    def forward(self, x: Any) -> Any:
        b3 = self.branch3x3_2(self.branch3x3_1(x))
        b7 = self.branch7x7x3_2(self.branch7x7x3_1(x))
        b7 = self.branch7x7x3_4(self.branch7x7x3_3(b7))
        return ops.concat([b3, b7, self.branch_pool(x)], axis=1)


class InceptionE(nn.Layer):
    """Expanded filter bank: 1x1; 1x1 -> (1x3 | 3x1); 1x1 -> 3x3 -> (1x3 | 3x1); avg pool."""

    def __init__(self, num_channels: int) -> None:
        super().__init__()
        self.branch1x1 = _cna(num_channels, 320, 1)
        self.branch3x3_1 = _cna(num_channels, 384, 1)
        self.branch3x3_2a = _cna(384, 384, (1, 3), padding=(0, 1))
        self.branch3x3_2b = _cna(384, 384, (3, 1), padding=(1, 0))
        self.branch3x3dbl_1 = _cna(num_channels, 448, 1)
        self.branch3x3dbl_2 = _cna(448, 384, 3, padding=1)
        self.branch3x3dbl_3a = _cna(384, 384, (1, 3), padding=(0, 1))
        self.branch3x3dbl_3b = _cna(384, 384, (3, 1), padding=(1, 0))
        self.branch_pool = _avg_pool()
        self.branch_pool_conv = _cna(num_channels, 192, 1)

    def forward(self, x: Any) -> Any:
        b3 = self.branch3x3_1(x)
        b3 = ops.concat([self.branch3x3_2a(b3), self.branch3x3_2b(b3)], axis=1)
        d = self.branch3x3dbl_2(self.branch3x3dbl_1(x))
        d = ops.concat([self.branch3x3dbl_3a(d), self.branch3x3dbl_3b(d)], axis=1)
        bp = self.branch_pool_conv(self.branch_pool(x))
        return ops.concat([self.branch1x1(x), b3, d, bp], axis=1)


class InceptionV3(nn.Layer):
    """InceptionV3(num_classes=1000, with_pool=True); images of at least 75x75 (299x299 is
    the design size)."""

    def __init__(self, num_classes: int = 1000, with_pool: bool = True) -> None:
        super().__init__()
        self.num_classes = num_classes
        self.with_pool = with_pool
        self.layers_config = {
            "inception_a": [[192, 256, 288], [32, 64, 64]], "inception_b": [288],
            "inception_c": [[768, 768, 768, 768], [128, 160, 160, 192]],
            "inception_d": [768], "inception_e": [1280, 2048]}
        cfg = self.layers_config
        self.inception_stem = InceptionStem()
        blocks = [InceptionA(c, p) for c, p in zip(*cfg["inception_a"])]
        blocks += [InceptionB(c) for c in cfg["inception_b"]]
        blocks += [InceptionC(c, c7) for c, c7 in zip(*cfg["inception_c"])]
        blocks += [InceptionD(c) for c in cfg["inception_d"]]
        blocks += [InceptionE(c) for c in cfg["inception_e"]]
        self.inception_block_list = nn.LayerList(blocks)
        if with_pool:
            self.avg_pool = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.dropout = nn.Dropout(p=0.2, mode="downscale_in_infer")
            stdv = 1.0 / math.sqrt(2048.0)
            self.fc = nn.Linear(2048, num_classes,
                                weight_attr=ParamAttr(initializer=Uniform(-stdv, stdv)))

    def forward(self, x: Any) -> Any:
        x = self.inception_stem(x)
        for block in self.inception_block_list:
            x = block(x)
        if self.with_pool:
            x = self.avg_pool(x)
        if self.num_classes > 0:
            x = ops.reshape(x, [-1, 2048])
            x = self.fc(self.dropout(x))
        return x


def inception_v3(pretrained: bool = False, **kwargs: Any) -> InceptionV3:
    """InceptionV3(**kwargs); pretrained=True raises (dy2st downloads nothing)."""
    if pretrained:
        refuse_download("inception_v3")
    return InceptionV3(**kwargs)
