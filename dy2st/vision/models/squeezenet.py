"""SqueezeNet 1.0 / 1.1 as Paddle defines it: _conv, _pool, fire modules _conv1.._conv8 (each
_conv squeeze, _conv_path1 1x1 / _conv_path2 3x3 expand), _drop, _conv9 classifier, _avg_pool."""
from __future__ import annotations

from typing import Any

from ... import nn
from ...nn import functional as F
from ...runtime import ops
from .pretrained import refuse_download

# (squeeze, expand) channels of the eight fire modules; each expands to 2 * expand channels
_FIRES = [(16, 64), (16, 64), (32, 128), (32, 128), (48, 192), (48, 192), (64, 256), (64, 256)]
# after which fire modules (1-based) each version max-pools
_POOL_AFTER = {"1.0": (3, 7), "1.1": (2, 4)}


class MakeFireConv(nn.Layer):
    """Conv2D with bias, then ReLU."""

    def __init__(self, input_channels: int, output_channels: int, filter_size: Any,
                 padding: Any = 0) -> None:
        super().__init__()
        self._conv = nn.Conv2D(input_channels, output_channels, filter_size, padding=padding)

    def forward(self, x: Any) -> Any:
        return F.relu(self._conv(x))


class MakeFire(nn.Layer):
    """A fire module: a 1x1 squeeze, then 1x1 and 3x3 expands concatenated on channels."""

    def __init__(self, input_channels: int, squeeze_channels: int, expand1x1_channels: int,
                 expand3x3_channels: int) -> None:
        super().__init__()
        self._conv = MakeFireConv(input_channels, squeeze_channels, 1)
        self._conv_path1 = MakeFireConv(squeeze_channels, expand1x1_channels, 1)
        self._conv_path2 = MakeFireConv(squeeze_channels, expand3x3_channels, 3, padding=1)

    def forward(self, inputs: Any) -> Any:
        x = self._conv(inputs)
        return ops.concat([self._conv_path1(x), self._conv_path2(x)], axis=1)


class SqueezeNet(nn.Layer):
    """SqueezeNet(version="1.0"|"1.1", num_classes=1000, with_pool=True). As in Paddle,
    `_conv9` exists even when num_classes <= 0 (with zero output channels, unused), so the
    state dict keys do not depend on num_classes."""

    def __init__(self, version: str, num_classes: int = 1000, with_pool: bool = True) -> None:
        super().__init__()
        if version not in _POOL_AFTER:
            raise ValueError(f"SqueezeNet: version must be one of {sorted(_POOL_AFTER)}, "
                             f"got {version!r}")
        self.version = version
        self.num_classes = num_classes
        self.with_pool = with_pool
        if version == "1.0":
            self._conv = nn.Conv2D(3, 96, 7, stride=2)
        else:
            self._conv = nn.Conv2D(3, 64, 3, stride=2, padding=1)
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)
        in_channels = self._conv.weight.shape[0]
        for i, (squeeze, expand) in enumerate(_FIRES):
            setattr(self, f"_conv{i + 1}", MakeFire(in_channels, squeeze, expand, expand))
            in_channels = 2 * expand
        self._drop = nn.Dropout(p=0.5, mode="downscale_in_infer")
        self._conv9 = nn.Conv2D(512, max(num_classes, 0), 1)
        self._avg_pool = nn.AdaptiveAvgPool2D(1)
        self._fires = [getattr(self, f"_conv{i + 1}") for i in range(len(_FIRES))]
        self._pool_after = _POOL_AFTER[version]

    def forward(self, inputs: Any) -> Any:
        x = self._pool(F.relu(self._conv(inputs)))
        for i, fire in enumerate(self._fires):
            x = fire(x)
            if i + 1 in self._pool_after:
                x = self._pool(x)
        if self.num_classes > 0:
            x = self._conv9(self._drop(x))
        if self.with_pool:
            x = self._avg_pool(F.relu(x))
            x = ops.squeeze(x, axis=[2, 3])
        return x


def _squeezenet(arch: str, version: str, pretrained: bool, **kwargs: Any) -> SqueezeNet:
    if pretrained:
        refuse_download(arch)
    return SqueezeNet(version, **kwargs)


def squeezenet1_0(pretrained: bool = False, **kwargs: Any) -> SqueezeNet:
    """SqueezeNet 1.0 (7x7 stem, 96 channels)."""
    return _squeezenet("squeezenet1_0", "1.0", pretrained, **kwargs)


def squeezenet1_1(pretrained: bool = False, **kwargs: Any) -> SqueezeNet:
    """SqueezeNet 1.1 (3x3 stem, 64 channels, earlier pooling: 2.4x less computation)."""
    return _squeezenet("squeezenet1_1", "1.1", pretrained, **kwargs)
