"""Small models using every layer of the CNN family: to_static matches eager on two batch sizes,
and jit.save / jit.load with a None batch dim reproduces them in a fresh interpreter."""
import pytest

import dy2st as paddle
from tests.roundtrip import RT, roundtrip_all
from tests.support import randn as r, seeded

nn = paddle.nn
F = paddle.nn.functional


class Conv1DNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1D(3, 4, 3, padding=1)
        self.pool = nn.MaxPool1D(2)
        self.avg = nn.AvgPool1D(2, ceil_mode=True)
        self.norm = nn.InstanceNorm1D(4)
        self.pad = nn.Pad1D([1, 1], mode="reflect")
        self.zero = nn.ZeroPad1D(1)
        self.up = nn.Conv1DTranspose(4, 4, 3, stride=2)
        self.glu = nn.GLU(axis=1)
        self.adapt_avg, self.adapt_max = nn.AdaptiveAvgPool1D(3), nn.AdaptiveMaxPool1D(3)

    def forward(self, x):
        h = self.norm(self.avg(self.pool(self.conv(x))))
        h = self.glu(self.up(self.zero(self.pad(h))))
        return self.adapt_avg(h) + self.adapt_max(h)


class Conv2DNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(3, 8, 3, padding=1, padding_mode="circular")
        self.bn = nn.BatchNorm(8, act="relu")
        self.pool = nn.MaxPool2D(3, 2, 1, ceil_mode=True)
        self.gn = nn.GroupNorm(2, 8)
        self.lrn = nn.LocalResponseNorm(3)
        self.avg = nn.AvgPool2D(3, 1, 1, exclusive=False)
        self.inorm = nn.InstanceNorm2D(8)
        self.up = nn.Conv2DTranspose(8, 4, 2, stride=2)
        self.adapt_avg, self.adapt_max = nn.AdaptiveAvgPool2D([4, 4]), nn.AdaptiveMaxPool2D(4)
        self.softmax = nn.Softmax2D()

    def forward(self, x):
        h = self.avg(self.lrn(self.gn(self.pool(self.bn(self.conv(x))))))
        h = self.up(self.inorm(h))
        return self.softmax(self.adapt_avg(h) - self.adapt_max(h))


class Conv3DNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv3D(2, 4, 3, padding=1)
        self.pool = nn.MaxPool3D(2)
        self.avg = nn.AvgPool3D(3, 1, 1)
        self.norm = nn.InstanceNorm3D(4)
        self.pad, self.zero = nn.Pad3D(1, mode="replicate"), nn.ZeroPad3D([0, 1, 0, 1, 0, 1])
        self.adapt_avg, self.adapt_max = nn.AdaptiveAvgPool3D(2), nn.AdaptiveMaxPool3D(2)
        self.up = nn.Conv3DTranspose(4, 2, 2, stride=2)

    def forward(self, x):
        h = self.norm(self.avg(self.pool(self.conv(x))))
        h = self.zero(self.pad(h))
        return self.up(self.adapt_avg(h) * self.adapt_max(h))


class VisionNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.shuffle, self.unshuffle = nn.PixelShuffle(2), nn.PixelUnshuffle(2)
        self.channels = nn.ChannelShuffle(2)
        self.pad, self.zero = nn.Pad2D([1, 0, 0, 1], mode="circular"), nn.ZeroPad2D(1)
        self.up = nn.Upsample(scale_factor=2, mode="bilinear")
        self.nearest = nn.UpsamplingNearest2D(size=[5, 5])
        self.bilinear = nn.UpsamplingBilinear2D(scale_factor=2)
        self.bicubic = nn.Upsample(size=[6, 6], mode="bicubic", align_corners=True)
        self.unfold = nn.Unfold(2, strides=2)
        self.fold = nn.Fold([6, 6], 2, strides=2)
        self.theta = nn.Linear(4, 6)

    def forward(self, x):
        h = self.channels(self.unshuffle(self.shuffle(x)))
        h = self.nearest(self.up(self.zero(self.pad(h))))
        h = self.bicubic(self.bilinear(h))
        cols = self.unfold(h)
        img = self.fold(cols * 2.0)
        theta = self.theta(x.mean(axis=[2, 3])).reshape([-1, 2, 3])
        grid = F.affine_grid(theta, [x.shape[0], 4, 3, 3], align_corners=False)
        return F.grid_sample(img, grid, padding_mode="border")


class ActivationNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 8)
        self.acts = nn.LayerList([nn.CELU(0.5), nn.Hardshrink(), nn.Hardsigmoid(), nn.Hardtanh(),
                                  nn.LogSigmoid(), nn.SELU(), nn.SiLU(), nn.Softshrink(0.2),
                                  nn.Softsign(), nn.Swish(), nn.Tanhshrink(), nn.ThresholdedReLU(0.3),
                                  nn.PReLU(8), nn.RReLU(), nn.GLU(), nn.Maxout(2)])

    def forward(self, x):
        h = self.fc(x) * 2.0
        return paddle.concat([act(h) for act in self.acts], axis=1)


class ResizeToNet(nn.Layer):
    """Resizes x to y's spatial size, which is unknown while tracing (a size from a tensor shape)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(3, 3, 1)

    def forward(self, x, y):
        return F.interpolate(self.conv(x), size=y.shape[2:], mode="bilinear", align_corners=True) * y


class UnpoolNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.pool, self.unpool = nn.MaxPool2D(2, return_mask=True), nn.MaxUnPool2D(2)
        self.pool1, self.unpool1 = nn.MaxPool1D(2, return_mask=True), nn.MaxUnPool1D(2)
        self.pool3, self.unpool3 = nn.MaxPool3D(2, return_mask=True), nn.MaxUnPool3D(2)
        self.lp, self.lp1 = nn.LPPool2D(2, 2), nn.LPPool1D(2, 2)

    def forward(self, x):
        y, mask = self.pool(x)
        y1, mask1 = self.pool1(x.reshape([-1, 2, 16]))
        y3, mask3 = self.pool3(x.reshape([-1, 2, 2, 4, 2]))
        up = self.unpool(y, mask) + self.unpool1(y1, mask1).reshape([-1, 2, 4, 4])
        up = up + self.unpool3(y3, mask3).reshape([-1, 2, 4, 4])
        return self.lp(up * up + 1.0), self.lp1(x.reshape([-1, 2, 16]) ** 2)


class ConvBN(nn.Layer):
    """Conv2D without bias + fluid-style BatchNorm with named parameters, as Paddle's model zoo writes it."""

    def __init__(self, cin, cout, k, stride=1, groups=1, act="relu"):
        super().__init__()
        self.conv = nn.Conv2D(cin, cout, k, stride=stride, padding=(k - 1) // 2, groups=groups,
                              weight_attr=paddle.ParamAttr(initializer=nn.initializer.KaimingUniform(),
                                                           name=self.full_name() + "_weights"),
                              bias_attr=False)
        self.bn = nn.BatchNorm(cout, act=act, param_attr=paddle.ParamAttr(name=self.full_name() + "_scale"),
                               bias_attr=paddle.ParamAttr(name=self.full_name() + "_offset"),
                               moving_mean_name=self.full_name() + "_mean",
                               moving_variance_name=self.full_name() + "_variance")

    def forward(self, x, relu6=False):
        y = self.bn(self.conv(x))
        if relu6:
            y = F.relu6(y)
        return y


class TinyMobileNet(nn.Layer):
    """Depthwise-separable and inverted-residual blocks (a Python bool picks the shortcut)."""

    def __init__(self, classes=5):
        super().__init__()
        self.stem = ConvBN(3, 8, 3, stride=2)
        self.depthwise = ConvBN(8, 8, 3, groups=8)
        self.pointwise = ConvBN(8, 16, 1)
        self.expand = ConvBN(16, 32, 1, act=None)
        self.bottleneck = ConvBN(32, 32, 3, groups=32, act=None)
        self.project = ConvBN(32, 16, 1, act=None)
        self.pool = nn.AdaptiveAvgPool2D(1)
        self.fc = nn.Linear(16, classes)

    def block(self, x, shortcut):
        y = self.project(self.bottleneck(self.expand(x, relu6=True), relu6=True))
        if shortcut:
            y = paddle.add(x, y)
        return y

    def forward(self, x):
        y = self.pointwise(self.depthwise(self.stem(x)))
        y = self.block(self.block(y, False), True)
        y = paddle.reshape(self.pool(y), shape=[-1, 16])
        return self.fc(y)


class TinyResNet(nn.Layer):
    """A stem with max pooling and two bottleneck blocks with projection shortcuts."""

    def __init__(self, classes=4):
        super().__init__()
        self.stem = ConvBN(3, 8, 7, stride=2)
        self.pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self.blocks = nn.LayerList()
        self.shortcuts = nn.LayerList()
        cin = 8
        for cout, stride in ((16, 1), (32, 2)):
            self.blocks.append(nn.Sequential(ConvBN(cin, cout // 4, 1), ConvBN(cout // 4, cout // 4, 3, stride),
                                             ConvBN(cout // 4, cout, 1, act=None)))
            self.shortcuts.append(ConvBN(cin, cout, 1, stride, act=None))
            cin = cout
        self.avg = nn.AdaptiveAvgPool2D(1)
        self.fc = nn.Linear(32, classes)

    def forward(self, x):
        y = self.pool(self.stem(x))
        for block, shortcut in zip(self.blocks, self.shortcuts):
            y = F.relu(block(y) + shortcut(y))
        return F.softmax(self.fc(paddle.flatten(self.avg(y), 1)))


MODELS = [
    RT("conv1d_net", seeded(Conv1DNet), [([None, 3, 8], "float32")], [(r(1, 2, 3, 8),), (r(2, 3, 3, 8),)]),
    RT("conv2d_net", seeded(Conv2DNet), [([None, 3, 8, 8], "float32")], [(r(3, 2, 3, 8, 8),), (r(4, 1, 3, 8, 8),)]),
    RT("conv3d_net", seeded(Conv3DNet), [([None, 2, 4, 4, 4], "float32")],
       [(r(5, 2, 2, 4, 4, 4),), (r(6, 1, 2, 4, 4, 4),)]),
    RT("vision_net", seeded(VisionNet), [([None, 4, 2, 2], "float32")], [(r(7, 2, 4, 2, 2),), (r(8, 3, 4, 2, 2),)]),
    RT("activation_net", seeded(ActivationNet), [([None, 6], "float32")], [(r(9, 3, 6),), (r(10, 5, 6),)]),
    RT("resize_to_net", seeded(ResizeToNet), [([None, 3, None, None], "float32")] * 2,
       [(r(11, 2, 3, 4, 5), r(12, 2, 3, 7, 9)), (r(13, 1, 3, 3, 3), r(14, 1, 3, 5, 2))]),
    RT("unpool_net", seeded(UnpoolNet), [([None, 2, 4, 4], "float32")], [(r(19, 2, 2, 4, 4),), (r(20, 3, 2, 4, 4),)]),
    RT("tiny_mobilenet", seeded(TinyMobileNet), [([None, 3, 16, 16], "float32")],
       [(r(15, 2, 3, 16, 16),), (r(16, 3, 3, 16, 16),)]),
    RT("tiny_resnet", seeded(TinyResNet), [([None, 3, 32, 32], "float32")],
       [(r(17, 2, 3, 32, 32),), (r(18, 1, 3, 32, 32),)]),
]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    return roundtrip_all(MODELS, tmp_path_factory.mktemp("rt_cnn"))


@pytest.mark.parametrize("name", [m.name for m in MODELS])
def test_roundtrip(results, name):
    assert results[name] is None, results[name]


def test_models_use_every_new_layer():
    used = set()
    for m in MODELS:
        used |= {type(layer).__name__ for layer in m.factory().sublayers(include_self=True)}
    new = {"Conv1D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose", "MaxPool1D",
           "MaxPool2D", "MaxPool3D", "AvgPool1D", "AvgPool2D", "AvgPool3D", "AdaptiveAvgPool1D",
           "AdaptiveAvgPool2D", "AdaptiveAvgPool3D", "AdaptiveMaxPool1D", "AdaptiveMaxPool2D",
           "AdaptiveMaxPool3D", "CELU", "GLU", "PReLU", "RReLU", "SELU", "Hardshrink", "Hardsigmoid",
           "Hardtanh", "LogSigmoid", "Maxout", "Silu", "Softmax2D", "Softshrink", "Softsign", "Swish",
           "Tanhshrink", "ThresholdedReLU", "BatchNorm", "GroupNorm", "InstanceNorm1D", "InstanceNorm2D",
           "InstanceNorm3D", "LocalResponseNorm", "Pad1D", "Pad2D", "Pad3D", "ZeroPad1D", "ZeroPad2D",
           "ZeroPad3D", "ChannelShuffle", "Fold", "PixelShuffle", "PixelUnshuffle", "Unfold", "Upsample",
           "UpsamplingBilinear2D", "UpsamplingNearest2D", "MaxUnPool1D", "MaxUnPool2D", "MaxUnPool3D",
           "LPPool1D", "LPPool2D"}
    assert new <= used, sorted(new - used)
