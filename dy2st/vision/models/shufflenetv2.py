"""ShuffleNetV2 as Paddle defines it: _conv1, _max_pool, blocks registered as 2_1 .. 4_4
(a downsampling InvertedResidualDS first in each stage), _last_conv, _pool2d_avg, _fc."""
from __future__ import annotations

from typing import Any, Optional

from ... import nn
from ...runtime import ops
from ..ops.conv_norm import ConvNormActivation
from .pretrained import refuse_download

_STAGE_REPEATS = [4, 8, 4]
# stem, three stages and the last 1x1 conv, per scale
_STAGE_CHANNELS = {0.25: [24, 24, 48, 96, 512], 0.33: [24, 32, 64, 128, 512],
                   0.5: [24, 48, 96, 192, 1024], 1.0: [24, 116, 232, 464, 1024],
                   1.5: [24, 176, 352, 704, 1024], 2.0: [24, 224, 488, 976, 2048]}


def create_activation_layer(act: Optional[str]) -> Any:
    """The activation class for 'relu' / 'swish', None for None."""
    if act == "swish":
        return nn.Swish
    if act == "relu":
        return nn.ReLU
    if act is None:
        return None
    raise ValueError(f"ShuffleNetV2: act must be 'relu', 'swish' or None, got {act!r}")


def channel_shuffle(x: Any, groups: int) -> Any:
    """Interleave the channels of `groups` groups: [N, g*c, H, W] -> view [N, g, c, H, W],
    swap g and c, and back (the batch may be dynamic; channels and spatial sizes are not)."""
    _, num_channels, height, width = x.shape[0:4]
    x = ops.reshape(x, [-1, groups, num_channels // groups, height, width])
    x = ops.transpose(x, [0, 2, 1, 3, 4])
    return ops.reshape(x, [-1, num_channels, height, width])


class InvertedResidual(nn.Layer):
    """Stride-1 unit: half the channels pass through, the other half go 1x1, depthwise 3x3,
    1x1; then concatenate and shuffle."""

    def __init__(self, in_channels: int, out_channels: int, stride: Any,
                 activation_layer: Any = nn.ReLU) -> None:
        super().__init__()
        half = out_channels // 2
        self._conv_pw = ConvNormActivation(in_channels // 2, half, kernel_size=1, stride=1,
                                           padding=0, activation_layer=activation_layer)
        self._conv_dw = ConvNormActivation(half, half, kernel_size=3, stride=stride, padding=1,
                                           groups=half, activation_layer=None)
        self._conv_linear = ConvNormActivation(half, half, kernel_size=1, stride=1, padding=0,
                                               activation_layer=activation_layer)

    def forward(self, inputs: Any) -> Any:
        half = inputs.shape[1] // 2
        x1, x2 = ops.split(inputs, [half, half], axis=1)
        x2 = self._conv_linear(self._conv_dw(self._conv_pw(x2)))
        return channel_shuffle(ops.concat([x1, x2], axis=1), 2)


class InvertedResidualDS(nn.Layer):
    """Downsampling unit: two strided branches over the whole input, concatenated and
    shuffled."""

    def __init__(self, in_channels: int, out_channels: int, stride: Any,
                 activation_layer: Any = nn.ReLU) -> None:
        super().__init__()
        half = out_channels // 2
        self._conv_dw_1 = ConvNormActivation(in_channels, in_channels, kernel_size=3,
                                             stride=stride, padding=1, groups=in_channels,
                                             activation_layer=None)
        self._conv_linear_1 = ConvNormActivation(in_channels, half, kernel_size=1, stride=1,
                                                 padding=0, activation_layer=activation_layer)
        self._conv_pw_2 = ConvNormActivation(in_channels, half, kernel_size=1, stride=1,
                                             padding=0, activation_layer=activation_layer)
        self._conv_dw_2 = ConvNormActivation(half, half, kernel_size=3, stride=stride, padding=1,
                                             groups=half, activation_layer=None)
        self._conv_linear_2 = ConvNormActivation(half, half, kernel_size=1, stride=1, padding=0,
                                                 activation_layer=activation_layer)

    def forward(self, inputs: Any) -> Any:
        x1 = self._conv_linear_1(self._conv_dw_1(inputs))
        x2 = self._conv_linear_2(self._conv_dw_2(self._conv_pw_2(inputs)))
        return channel_shuffle(ops.concat([x1, x2], axis=1), 2)


class ShuffleNetV2(nn.Layer):
    """ShuffleNetV2(scale=1.0, act="relu", num_classes=1000, with_pool=True); scale is one of
    0.25, 0.33, 0.5, 1.0, 1.5, 2.0."""

    def __init__(self, scale: float = 1.0, act: Optional[str] = "relu",
                 num_classes: int = 1000, with_pool: bool = True) -> None:
        super().__init__()
        if scale not in _STAGE_CHANNELS:
            raise ValueError(f"ShuffleNetV2: scale must be one of {sorted(_STAGE_CHANNELS)}, "
                             f"got {scale}")
        self.scale = scale
        self.num_classes = num_classes
        self.with_pool = with_pool
        activation_layer = create_activation_layer(act)
        channels = _STAGE_CHANNELS[scale]
        self._conv1 = ConvNormActivation(3, channels[0], kernel_size=3, stride=2, padding=1,
                                         activation_layer=activation_layer)
        self._max_pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self._block_list = []
        for stage, repeats in enumerate(_STAGE_REPEATS):
            cin, cout = channels[stage], channels[stage + 1]
            for i in range(repeats):
                if i == 0:
                    block = InvertedResidualDS(cin, cout, 2, activation_layer=activation_layer)
                else:
                    block = InvertedResidual(cout, cout, 1, activation_layer=activation_layer)
                self._block_list.append(self.add_sublayer(f"{stage + 2}_{i + 1}", block))
        self._last_conv = ConvNormActivation(channels[-2], channels[-1], kernel_size=1, stride=1,
                                             padding=0, activation_layer=activation_layer)
        if with_pool:
            self._pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self._out_c = channels[-1]
            self._fc = nn.Linear(channels[-1], num_classes)

    def forward(self, inputs: Any) -> Any:
        x = self._max_pool(self._conv1(inputs))
        for block in self._block_list:
            x = block(x)
        x = self._last_conv(x)
        if self.with_pool:
            x = self._pool2d_avg(x)
        if self.num_classes > 0:
            x = ops.flatten(x, 1)
            x = self._fc(x)
        return x


def _shufflenet_v2(arch: str, pretrained: bool, scale: float, **kwargs: Any) -> ShuffleNetV2:
    if pretrained:
        refuse_download(arch)
    return ShuffleNetV2(scale=scale, **kwargs)


def _builder(arch: str, scale: float, act: Optional[str] = None):
    """A builder of Paddle's name for one scale (and, for the swish variant, activation)."""
    def build(pretrained: bool = False, **kwargs: Any) -> ShuffleNetV2:
        if act is not None:
            kwargs["act"] = act
        return _shufflenet_v2(arch, pretrained, scale, **kwargs)
    build.__name__ = build.__qualname__ = arch
    build.__doc__ = (f"{arch}: ShuffleNetV2(scale={scale}"
                     + (f", act={act!r})" if act else ")") + "; pretrained=True raises.")
    return build


shufflenet_v2_x0_25 = _builder("shufflenet_v2_x0_25", 0.25)
shufflenet_v2_x0_33 = _builder("shufflenet_v2_x0_33", 0.33)
shufflenet_v2_x0_5 = _builder("shufflenet_v2_x0_5", 0.5)
shufflenet_v2_x1_0 = _builder("shufflenet_v2_x1_0", 1.0)
shufflenet_v2_x1_5 = _builder("shufflenet_v2_x1_5", 1.5)
shufflenet_v2_x2_0 = _builder("shufflenet_v2_x2_0", 2.0)
shufflenet_v2_swish = _builder("shufflenet_v2_swish", 1.0, "swish")
