"""Tiny ResNet-style bottleneck stack and MobileNet-style depthwise-separable network, written
the way Paddle model code is (fluid BatchNorm with act, ParamAttr, add_sublayer lists)."""
import numpy as np

import dy2st as paddle
import dy2st.nn.functional as F
from tests.support import check_model


class ConvNorm(paddle.nn.Layer):
    def __init__(self, cin, cout, k, stride=1, groups=1, act=None):
        super().__init__()
        self.conv = paddle.nn.Conv2D(cin, cout, k, stride=stride, padding=(k - 1) // 2,
                                     groups=groups, bias_attr=False)
        self.norm = paddle.nn.BatchNorm(cout, act=act)

    def forward(self, x):
        return self.norm(self.conv(x))


class Bottleneck(paddle.nn.Layer):
    def __init__(self, cin, width, stride):
        super().__init__()
        self.reduce = ConvNorm(cin, width, 1, act="relu")
        self.spatial = ConvNorm(width, width, 3, stride=stride, act="relu")
        self.expand = ConvNorm(width, width * 4, 1)
        self.project = None if (cin == width * 4 and stride == 1) else ConvNorm(cin, width * 4, 1, stride)

    def forward(self, x):
        y = self.expand(self.spatial(self.reduce(x)))
        skip = x if self.project is None else self.project(x)
        return F.relu(paddle.add(x=skip, y=y))


class TinyResNet(paddle.nn.Layer):
    def __init__(self, classes=5):
        super().__init__()
        self.stem = ConvNorm(3, 8, 3, stride=2, act="relu")
        self.pool = paddle.nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self.blocks = []
        cin = 8
        for i, (width, stride) in enumerate([(2, 1), (2, 1), (4, 2)]):
            self.blocks.append(self.add_sublayer(f"block_{i}", Bottleneck(cin, width, stride)))
            cin = width * 4
        self.gap = paddle.nn.AdaptiveAvgPool2D(1)
        self.fc = paddle.nn.Linear(cin, classes, weight_attr=paddle.ParamAttr(
            initializer=paddle.nn.initializer.Uniform(-0.3, 0.3)))
        self.features = cin

    def forward(self, x):
        y = self.pool(self.stem(x))
        for block in self.blocks:
            y = block(y)
        y = paddle.reshape(self.gap(y), shape=[-1, self.features])
        return F.softmax(self.fc(y))


class DepthwiseSeparable(paddle.nn.Layer):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.depthwise = ConvNorm(cin, cin, 3, stride=stride, groups=cin)
        self.pointwise = ConvNorm(cin, cout, 1)

    def forward(self, x, activate=True):
        y = self.depthwise(x)
        if activate:
            y = F.relu6(y)
        return F.relu6(self.pointwise(y))


class TinyMobileNet(paddle.nn.Layer):
    def __init__(self, classes=4):
        super().__init__()
        self.stem = ConvNorm(3, 8, 3, stride=2, act="relu")
        self.stages = [self.add_sublayer(f"dws_{i}", DepthwiseSeparable(cin, cout, s))
                       for i, (cin, cout, s) in enumerate([(8, 12, 1), (12, 16, 2)])]
        self.gap = paddle.nn.AdaptiveAvgPool2D(1)
        self.out = paddle.nn.Linear(16, classes)

    def forward(self, x):
        y = self.stem(x)
        for stage in self.stages:
            y = stage(y)
        return self.out(paddle.reshape(self.gap(y), [-1, 16]))


def images(batch):
    return [np.random.default_rng(batch).standard_normal((batch, 3, 12, 12)).astype("float32")]


def test_resnet_bottlenecks(tmp_path):
    labels = paddle.to_tensor(np.array([[1], [3]], "int64"))
    check_model(TinyResNet, images, [([None, 3, 12, 12], "float32")], tmp_path,
                loss_of=lambda p: paddle.mean(F.cross_entropy(p, labels, use_softmax=False)),
                optimizer=lambda ps: paddle.optimizer.Momentum(
                    0.05, momentum=0.9, parameters=ps, weight_decay=paddle.regularizer.L2Decay(1e-4)))


def test_mobilenet_depthwise_separable(tmp_path):
    labels = paddle.to_tensor(np.array([[0], [2]], "int64"))
    check_model(TinyMobileNet, images, [([None, 3, 12, 12], "float32")], tmp_path,
                loss_of=lambda o: paddle.mean(F.cross_entropy(o, labels)))
