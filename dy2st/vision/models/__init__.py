"""paddle.vision.models: LeNet, ResNet, VGG and MobileNetV2 with Paddle's layer and parameter
names, so Paddle's state dicts load with set_state_dict."""
from __future__ import annotations

from .lenet import LeNet
from .mobilenetv2 import MobileNetV2, mobilenet_v2
from .resnet import (BasicBlock, BottleneckBlock, ResNet, resnet18, resnet34, resnet50,
                     resnet101, resnet152, resnext50_32x4d, resnext50_64x4d, resnext101_32x4d,
                     resnext101_64x4d, resnext152_32x4d, resnext152_64x4d, wide_resnet50_2,
                     wide_resnet101_2)
from .vgg import VGG, vgg11, vgg13, vgg16, vgg19

__all__ = ["LeNet", "ResNet", "resnet18", "resnet34", "resnet50", "resnet101", "resnet152",
           "BasicBlock", "BottleneckBlock", "VGG", "vgg11", "vgg13", "vgg16", "vgg19",
           "MobileNetV2", "mobilenet_v2", "resnext50_32x4d", "resnext50_64x4d",
           "resnext101_32x4d", "resnext101_64x4d", "resnext152_32x4d", "resnext152_64x4d",
           "wide_resnet50_2", "wide_resnet101_2"]
