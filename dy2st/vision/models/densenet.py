"""DenseNet (121/161/169/201/264) as Paddle defines it: conv1_func, pool2d_max, dense blocks
db_conv_2 .. db_conv_5 (layers conv2_1, ...: batch norm + relu before each conv), transitions
tr_conv2_blk .. tr_conv4_blk, batch_norm, pool2d_avg, out."""
from __future__ import annotations

import math
from typing import Any, Optional

from ... import nn
from ...nn.initializer import Uniform
from ...nn.param_attr import ParamAttr
from ...runtime import ops
from .pretrained import refuse_download

# depth: (initial features, growth rate, layers per dense block)
_SPECS = {121: (64, 32, [6, 12, 24, 16]), 161: (96, 48, [6, 12, 36, 24]),
          169: (64, 32, [6, 12, 32, 32]), 201: (64, 32, [6, 12, 48, 32]),
          264: (64, 32, [6, 12, 64, 48])}


class BNACConvLayer(nn.Layer):
    """Batch norm with its activation, then a bias-free convolution (pre-activation)."""

    def __init__(self, num_channels: int, num_filters: int, filter_size: Any, stride: Any = 1,
                 pad: Any = 0, groups: int = 1, act: str = "relu") -> None:
        super().__init__()
        self._batch_norm = nn.BatchNorm(num_channels, act=act)
        self._conv = nn.Conv2D(num_channels, num_filters, filter_size, stride=stride,
                               padding=pad, groups=groups, bias_attr=False)

    def forward(self, input: Any) -> Any:
        return self._conv(self._batch_norm(input))


class DenseLayer(nn.Layer):
    """1x1 bottleneck to bn_size * growth_rate, 3x3 to growth_rate (optional dropout), and the
    input concatenated in front."""

    def __init__(self, num_channels: int, growth_rate: int, bn_size: int,
                 dropout: float) -> None:
        super().__init__()
        self.dropout = dropout
        self.bn_ac_func1 = BNACConvLayer(num_channels, bn_size * growth_rate, 1, pad=0, stride=1)
        self.bn_ac_func2 = BNACConvLayer(bn_size * growth_rate, growth_rate, 3, pad=1, stride=1)
        if dropout:
            self.dropout_func = nn.Dropout(p=dropout, mode="downscale_in_infer")

    def forward(self, input: Any) -> Any:
        conv = self.bn_ac_func2(self.bn_ac_func1(input))
        if self.dropout:
            conv = self.dropout_func(conv)
        return ops.concat([input, conv], axis=1)


class DenseBlock(nn.Layer):
    """`num_layers` DenseLayers registered as `{name}_1`, `{name}_2`, ..."""

    def __init__(self, num_channels: int, num_layers: int, bn_size: int, growth_rate: int,
                 dropout: float, name: Optional[str] = None) -> None:
        super().__init__()
        self.dropout = dropout
        self.dense_layer_func = []
        channels = num_channels
        for i in range(num_layers):
            layer = DenseLayer(channels, growth_rate, bn_size, dropout)
            self.dense_layer_func.append(self.add_sublayer(f"{name}_{i + 1}", layer))
            channels += growth_rate

    def forward(self, input: Any) -> Any:
        conv = input
        for layer in self.dense_layer_func:
            conv = layer(conv)
        return conv


class TransitionLayer(nn.Layer):
    """Batch norm + relu, 1x1 conv, 2x2 average pool."""

    def __init__(self, num_channels: int, num_output_features: int) -> None:
        super().__init__()
        self.conv_ac_func = BNACConvLayer(num_channels, num_output_features, 1, pad=0, stride=1)
        self.pool2d_avg = nn.AvgPool2D(kernel_size=2, stride=2, padding=0)

    def forward(self, input: Any) -> Any:
        return self.pool2d_avg(self.conv_ac_func(input))


class ConvBNLayer(nn.Layer):
    """A bias-free convolution, then batch norm with its activation."""

    def __init__(self, num_channels: int, num_filters: int, filter_size: Any, stride: Any = 1,
                 pad: Any = 0, groups: int = 1, act: str = "relu") -> None:
        super().__init__()
        self._conv = nn.Conv2D(num_channels, num_filters, filter_size, stride=stride,
                               padding=pad, groups=groups, bias_attr=False)
        self._batch_norm = nn.BatchNorm(num_filters, act=act)

    def forward(self, input: Any) -> Any:
        return self._batch_norm(self._conv(input))


class DenseNet(nn.Layer):
    """DenseNet(layers=121, bn_size=4, dropout=0.0, num_classes=1000, with_pool=True)."""

    def __init__(self, layers: int = 121, bn_size: int = 4, dropout: float = 0.0,
                 num_classes: int = 1000, with_pool: bool = True) -> None:
        super().__init__()
        if layers not in _SPECS:
            raise ValueError(f"DenseNet: layers must be one of {sorted(_SPECS)}, got {layers}")
        self.num_classes = num_classes
        self.with_pool = with_pool
        num_features, growth_rate, block_config = _SPECS[layers]
        self.conv1_func = ConvBNLayer(3, num_features, 7, stride=2, pad=3, act="relu")
        self.pool2d_max = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self.block_config = block_config
        self.dense_block_func_list = []
        self.transition_func_list = []
        for i, num_layers in enumerate(block_config):
            block = DenseBlock(num_features, num_layers, bn_size, growth_rate, dropout,
                               name=f"conv{i + 2}")
            self.dense_block_func_list.append(self.add_sublayer(f"db_conv_{i + 2}", block))
            num_features += num_layers * growth_rate
            if i != len(block_config) - 1:
                transition = TransitionLayer(num_features, num_features // 2)
                self.transition_func_list.append(
                    self.add_sublayer(f"tr_conv{i + 2}_blk", transition))
                num_features //= 2
        self.batch_norm = nn.BatchNorm(num_features, act="relu")
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            stdv = 1.0 / math.sqrt(num_features)
            self.out = nn.Linear(num_features, num_classes,
                                 weight_attr=ParamAttr(initializer=Uniform(-stdv, stdv)))

    def forward(self, input: Any) -> Any:
        conv = self.pool2d_max(self.conv1_func(input))
        for i, block in enumerate(self.dense_block_func_list):
            conv = block(conv)
            if i < len(self.transition_func_list):
                conv = self.transition_func_list[i](conv)
        y = self.batch_norm(conv)
        if self.with_pool:
            y = self.pool2d_avg(y)
        if self.num_classes > 0:
            y = ops.flatten(y, 1)
            y = self.out(y)
        return y


def _densenet(arch: str, layers: int, pretrained: bool, **kwargs: Any) -> DenseNet:
    if pretrained:
        refuse_download(arch)
    return DenseNet(layers=layers, **kwargs)


def densenet121(pretrained: bool = False, **kwargs: Any) -> DenseNet:
    """DenseNet-121 (growth 32, blocks 6/12/24/16)."""
    return _densenet("densenet121", 121, pretrained, **kwargs)


def densenet161(pretrained: bool = False, **kwargs: Any) -> DenseNet:
    """DenseNet-161 (96 initial features, growth 48, blocks 6/12/36/24)."""
    return _densenet("densenet161", 161, pretrained, **kwargs)


def densenet169(pretrained: bool = False, **kwargs: Any) -> DenseNet:
    """DenseNet-169 (growth 32, blocks 6/12/32/32)."""
    return _densenet("densenet169", 169, pretrained, **kwargs)


def densenet201(pretrained: bool = False, **kwargs: Any) -> DenseNet:
    """DenseNet-201 (growth 32, blocks 6/12/48/32)."""
    return _densenet("densenet201", 201, pretrained, **kwargs)


def densenet264(pretrained: bool = False, **kwargs: Any) -> DenseNet:
    """DenseNet-264 (growth 32, blocks 6/12/64/48)."""
    return _densenet("densenet264", 264, pretrained, **kwargs)
