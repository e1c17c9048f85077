"""ResNet (18/34/50/101/152) as Paddle defines it: conv1, bn1, relu, maxpool, layer1-4, avgpool,
fc; blocks with conv1/bn1/conv2/bn2(/conv3/bn3) and a Sequential(conv, bn) downsample."""
from __future__ import annotations

from typing import Any, Optional

from ... import nn
from ...runtime import ops
from .pretrained import refuse_download


class BasicBlock(nn.Layer):
    expansion = 1

    def __init__(self, inplanes: int, planes: int, stride: int = 1,
                 downsample: Optional[nn.Layer] = None, groups: int = 1, base_width: int = 64,
                 dilation: int = 1, norm_layer: Any = None) -> None:
        super().__init__()
        norm_layer = norm_layer or nn.BatchNorm2D
        if dilation > 1:
            raise NotImplementedError("Dilation > 1 not supported in BasicBlock")
        self.conv1 = nn.Conv2D(inplanes, planes, 3, padding=1, stride=stride, bias_attr=False)
        self.bn1 = norm_layer(planes)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2D(planes, planes, 3, padding=1, bias_attr=False)
        self.bn2 = norm_layer(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x: Any) -> Any:
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        return self.relu(out + identity)


class BottleneckBlock(nn.Layer):
    expansion = 4

    def __init__(self, inplanes: int, planes: int, stride: int = 1,
                 downsample: Optional[nn.Layer] = None, groups: int = 1, base_width: int = 64,
                 dilation: int = 1, norm_layer: Any = None) -> None:
        super().__init__()
        norm_layer = norm_layer or nn.BatchNorm2D
        width = int(planes * (base_width / 64.0)) * groups
        self.conv1 = nn.Conv2D(inplanes, width, 1, bias_attr=False)
        self.bn1 = norm_layer(width)
        self.conv2 = nn.Conv2D(width, width, 3, padding=dilation, stride=stride, groups=groups,
                               dilation=dilation, bias_attr=False)
        self.bn2 = norm_layer(width)
        self.conv3 = nn.Conv2D(width, planes * self.expansion, 1, bias_attr=False)
        self.bn3 = norm_layer(planes * self.expansion)
        self.relu = nn.ReLU()
        self.downsample = downsample
        self.stride = stride

    def forward(self, x: Any) -> Any:
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        return self.relu(out + identity)


_DEPTHS = {18: [2, 2, 2, 2], 34: [3, 4, 6, 3], 50: [3, 4, 6, 3], 101: [3, 4, 23, 3],
           152: [3, 8, 36, 3]}


class ResNet(nn.Layer):
    """ResNet(block, depth=50, width=64, num_classes=1000, with_pool=True, groups=1)."""

    def __init__(self, block: Any, depth: int = 50, width: int = 64, num_classes: int = 1000,
                 with_pool: bool = True, groups: int = 1) -> None:
        super().__init__()
        if depth not in _DEPTHS:
            raise ValueError(f"ResNet: depth must be one of {sorted(_DEPTHS)}, got {depth}")
        layers = _DEPTHS[depth]
        self.groups = groups
        self.base_width = width
        self.num_classes = num_classes
        self.with_pool = with_pool
        self._norm_layer = nn.BatchNorm2D
        self.inplanes = 64
        self.dilation = 1
        self.conv1 = nn.Conv2D(3, self.inplanes, kernel_size=7, stride=2, padding=3,
                               bias_attr=False)
        self.bn1 = self._norm_layer(self.inplanes)
        self.relu = nn.ReLU()
        self.maxpool = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, 64, layers[0])
        self.layer2 = self._make_layer(block, 128, layers[1], stride=2)
        self.layer3 = self._make_layer(block, 256, layers[2], stride=2)
        self.layer4 = self._make_layer(block, 512, layers[3], stride=2)
        if with_pool:
            self.avgpool = nn.AdaptiveAvgPool2D((1, 1))
        if num_classes > 0:
            self.fc = nn.Linear(512 * block.expansion, num_classes)

    def _make_layer(self, block: Any, planes: int, blocks: int, stride: int = 1) -> nn.Sequential:
        downsample = None
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(
                nn.Conv2D(self.inplanes, planes * block.expansion, 1, stride=stride,
                          bias_attr=False),
                self._norm_layer(planes * block.expansion))
        layers = [block(self.inplanes, planes, stride, downsample, self.groups, self.base_width,
                        norm_layer=self._norm_layer)]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(block(self.inplanes, planes, groups=self.groups,
                                base_width=self.base_width, norm_layer=self._norm_layer))
        return nn.Sequential(*layers)

    def forward(self, x: Any) -> Any:
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        if self.with_pool:
            x = self.avgpool(x)
        if self.num_classes > 0:
            x = ops.flatten(x, 1)
            x = self.fc(x)
        return x


def _resnet(arch: str, block: Any, depth: int, pretrained: bool, **kwargs: Any) -> ResNet:
    if pretrained:
        refuse_download(arch)
    return ResNet(block, depth, **kwargs)


def resnet18(pretrained: bool = False, **kwargs: Any) -> ResNet:
    return _resnet("resnet18", BasicBlock, 18, pretrained, **kwargs)


def resnet34(pretrained: bool = False, **kwargs: Any) -> ResNet:
    return _resnet("resnet34", BasicBlock, 34, pretrained, **kwargs)


def resnet50(pretrained: bool = False, **kwargs: Any) -> ResNet:
    return _resnet("resnet50", BottleneckBlock, 50, pretrained, **kwargs)


def resnet101(pretrained: bool = False, **kwargs: Any) -> ResNet:
    return _resnet("resnet101", BottleneckBlock, 101, pretrained, **kwargs)


def resnet152(pretrained: bool = False, **kwargs: Any) -> ResNet:
    return _resnet("resnet152", BottleneckBlock, 152, pretrained, **kwargs)


def _variant(arch: str, depth: int, groups: int, width: int):
    """A ResNeXt (groups x width per group) or wide ResNet (width 128) of Bottleneck blocks."""
    def build(pretrained: bool = False, **kwargs: Any) -> ResNet:
        kwargs["groups"], kwargs["width"] = groups, width
        return _resnet(arch, BottleneckBlock, depth, pretrained, **kwargs)
    build.__name__ = build.__qualname__ = arch
    build.__doc__ = f"{arch}: ResNet-{depth} with groups={groups}, width={width} (Paddle's)."
    return build


resnext50_32x4d = _variant("resnext50_32x4d", 50, 32, 4)
resnext50_64x4d = _variant("resnext50_64x4d", 50, 64, 4)
resnext101_32x4d = _variant("resnext101_32x4d", 101, 32, 4)
resnext101_64x4d = _variant("resnext101_64x4d", 101, 64, 4)
resnext152_32x4d = _variant("resnext152_32x4d", 152, 32, 4)
resnext152_64x4d = _variant("resnext152_64x4d", 152, 64, 4)
wide_resnet50_2 = _variant("wide_resnet50_2", 50, 1, 128)
wide_resnet101_2 = _variant("wide_resnet101_2", 101, 1, 128)
