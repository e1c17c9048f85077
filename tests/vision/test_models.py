"""paddle.vision.models: Paddle's parameter names (so Paddle's state dicts load), eager ==
to_static == jit.save / jit.load, training, and the pretrained / npz conversion paths."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.vision import models
from dy2st.vision.models.vgg import make_layers
from tests.support import check_layer_converts, randn


def test_lenet_names_shapes_and_conversion(tmp_path):
    paddle.seed(0)
    net = models.LeNet()
    assert list(net.state_dict()) == [
        "features.0.weight", "features.0.bias", "features.3.weight", "features.3.bias",
        "fc.0.weight", "fc.0.bias", "fc.1.weight", "fc.1.bias", "fc.2.weight", "fc.2.bias"]
    assert net.fc[0].weight.shape == [400, 120]
    out = check_layer_converts(net, [randn(0, 2, 1, 28, 28)], tmp_path)
    assert out.shape == (2, 10)
    assert models.LeNet(num_classes=0)(paddle.to_tensor(randn(0, 1, 1, 28, 28))).shape == \
        [1, 16, 5, 5]


def test_lenet_trains():
    paddle.seed(1)
    net = models.LeNet()
    opt = paddle.optimizer.Adam(1e-3, parameters=net.parameters())
    x = paddle.to_tensor(randn(1, 16, 1, 28, 28))
    y = paddle.to_tensor(np.arange(16) % 10, dtype="int64")
    losses = []
    for _ in range(15):
        loss = paddle.nn.functional.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    assert losses[-1] < 0.7 * losses[0]


def test_resnet18_names_and_conversion(tmp_path):
    paddle.seed(2)
    net = models.resnet18(num_classes=10)
    keys = list(net.state_dict())
    for k in ["conv1.weight", "bn1.weight", "bn1.bias", "bn1._mean", "bn1._variance",
              "layer1.0.conv1.weight", "layer1.1.bn2._variance", "layer2.0.downsample.0.weight",
              "layer2.0.downsample.1._mean", "layer4.1.conv2.weight", "fc.weight", "fc.bias"]:
        assert k in keys, k
    assert len(keys) == 102          # 62 parameters + 40 running statistics, as Paddle's
    assert "conv1.bias" not in keys  # convolutions before batch norm have no bias
    out = check_layer_converts(net, [randn(3, 2, 3, 32, 32)], tmp_path, rtol=1e-4, atol=1e-5)
    assert out.shape == (2, 10)


def test_resnet50_bottleneck_names():
    paddle.seed(3)
    net = models.resnet50(num_classes=0, with_pool=False)
    keys = list(net.state_dict())
    assert "layer1.0.conv3.weight" in keys and "layer3.5.bn3._mean" in keys
    assert net.layer1[0].conv3.weight.shape == [256, 64, 1, 1]
    net.eval()
    assert net(paddle.to_tensor(randn(0, 1, 3, 32, 32))).shape == [1, 2048, 1, 1]
    with pytest.raises(ValueError, match="depth must be one of"):
        models.ResNet(models.BasicBlock, depth=20)


def test_vgg_feature_names():
    paddle.seed(4)
    features = make_layers([64, "M", 128, "M"], batch_norm=True)
    assert list(features.state_dict())[:6] == [
        "0.weight", "0.bias", "1.weight", "1.bias", "1._mean", "1._variance"]
    net = models.VGG(make_layers([8, "M", 16, "M"]), num_classes=0, with_pool=False)
    net.eval()
    assert net(paddle.to_tensor(randn(0, 1, 3, 16, 16))).shape == [1, 16, 4, 4]
    assert [k for k in models.vgg16(num_classes=0, with_pool=False).state_dict()][-1] == \
        "features.28.bias"       # 13 convolutions at Paddle's indices


def test_mobilenet_v2_names_and_conversion(tmp_path):
    paddle.seed(5)
    net = models.mobilenet_v2(scale=0.5, num_classes=10)
    keys = list(net.state_dict())
    for k in ["features.0.0.weight", "features.0.1._mean", "features.1.conv.0.0.weight",
              "features.2.conv.0.0.weight", "features.2.conv.2.weight", "features.2.conv.3._variance",
              "features.18.0.weight", "classifier.1.weight"]:
        assert k in keys, k
    assert net.features[0][0].weight.shape == [16, 3, 3, 3]
    assert net.last_channel == 1280
    out = check_layer_converts(net, [randn(6, 2, 3, 32, 32)], tmp_path, rtol=1e-4, atol=1e-5)
    assert out.shape == (2, 10)


def test_pretrained_is_refused_with_the_way_to_load_weights():
    for make in (models.resnet18, models.vgg16, models.mobilenet_v2):
        with pytest.raises(ValueError, match="does not download weights.*set_state_dict"):
            make(pretrained=True)


def test_weights_converted_to_npz_load_into_a_fresh_model(tmp_path):
    paddle.seed(7)
    src = models.LeNet()
    path = tmp_path / "lenet.npz"
    np.savez(path, **{k: v.numpy() for k, v in src.state_dict().items()})
    dst = models.LeNet()
    missing, unexpected = dst.set_state_dict({k: v for k, v in np.load(path).items()})
    assert not missing and not unexpected
    x = paddle.to_tensor(randn(0, 2, 1, 28, 28))
    np.testing.assert_array_equal(dst(x).numpy(), src(x).numpy())
