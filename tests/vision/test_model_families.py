"""The model families beyond LeNet / ResNet / VGG / MobileNetV2, without Paddle: output shapes
and state dict sizes (Paddle's, checked key by key in test_models_paddle.py), eager ==
to_static == jit.load, one training step, builder settings and errors."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.vision import models
from dy2st.vision.models import densenet, shufflenetv2, squeezenet
from tests.support import check_layer_converts, randn

# one small model per family: builder, arguments, input size, output shape(s) for one
# image, number of state dict entries (Paddle's for the same configuration)
FAMILIES = {
    "alexnet": ("alexnet", {"num_classes": 0}, 64, [[1, 256, 1, 1]], 10),
    "squeezenet": ("squeezenet1_1", {"num_classes": 10}, 32, [[1, 10]], 52),
    "mobilenet_v1": ("mobilenet_v1", {"scale": 0.25, "num_classes": 10}, 32, [[1, 10]], 137),
    "mobilenet_v3": ("mobilenet_v3_small", {"scale": 0.5, "num_classes": 10}, 32, [[1, 10]],
                     210),
    "shufflenet_v2": ("shufflenet_v2_x0_25", {"num_classes": 10}, 32, [[1, 10]], 282),
    "densenet": ("densenet121", {"num_classes": 10}, 32, [[1, 10]], 606),
    "googlenet": ("googlenet", {"num_classes": 0}, 96,
                  [[1, 1024, 1, 1], [1, 512, 1, 1], [1, 528, 1, 1]], 57),
    "inception_v3": ("inception_v3", {"num_classes": 10}, 75, [[1, 10]], 472),
}
# their convolutions take seconds in numpy: conversion and training run in the slow set
# (DenseNet trains in the quick set block by block, test_densenet_blocks_train)
HEAVY = {"googlenet", "inception_v3"}


def family_params(heavy=HEAVY):
    return [pytest.param(f, marks=pytest.mark.slow) if f in heavy else f for f in FAMILIES]


def build(family, seed=0):
    name, kwargs, size, _, _ = FAMILIES[family]
    paddle.seed(seed)
    return getattr(models, name)(**kwargs), randn(seed, 2, 3, size, size)


@pytest.mark.parametrize("family", family_params())
def test_eager_equals_to_static_and_the_saved_model(family, tmp_path):
    net, x = build(family)
    x = x[:1]   # one image: eval mode needs no batch statistics
    _, _, _, shapes, n_keys = FAMILIES[family]
    assert len(net.state_dict()) == n_keys
    if len(shapes) == 1:
        out = check_layer_converts(net, [x], tmp_path, rtol=1e-4, atol=1e-5)
        assert list(out.shape) == shapes[0]
        return
    net.eval()   # GoogLeNet returns (out, aux1, aux2)
    eager = net(paddle.to_tensor(x))
    static = paddle.jit.to_static(net, full_graph=True)(paddle.to_tensor(x))
    assert [list(t.shape) for t in eager] == shapes
    for e, s in zip(eager, static):
        np.testing.assert_allclose(s.numpy(), e.numpy(), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("family", family_params(HEAVY | {"densenet"}))
def test_one_training_step(family):
    net, x = build(family, seed=1)
    check_training_step(net, x)


def test_densenet_blocks_train():
    paddle.seed(4)
    net = paddle.nn.Sequential(densenet.ConvBNLayer(3, 8, 3, pad=1),
                               densenet.DenseBlock(8, 2, bn_size=2, growth_rate=4, dropout=0.2,
                                                   name="conv2"),
                               densenet.TransitionLayer(16, 8), paddle.nn.BatchNorm(8, act="relu"))
    assert [k for k in net.state_dict() if k.endswith("_conv.weight")] == [
        "0._conv.weight", "1.conv2_1.bn_ac_func1._conv.weight",
        "1.conv2_1.bn_ac_func2._conv.weight", "1.conv2_2.bn_ac_func1._conv.weight",
        "1.conv2_2.bn_ac_func2._conv.weight", "2.conv_ac_func._conv.weight"]
    check_training_step(net, randn(4, 2, 3, 6, 6))


def check_training_step(net, x):
    """train mode: every parameter gets a finite gradient, nearly all nonzero; SGD moves them."""
    net.train()
    opt = paddle.optimizer.SGD(learning_rate=0.01, parameters=net.parameters())
    before = {p.name: p.numpy().copy() for p in net.parameters()}
    out = net(paddle.to_tensor(x))
    outs = out if isinstance(out, tuple) else (out,)
    loss = sum((o * o).mean() for o in outs)
    loss.backward()
    for p in net.parameters():
        assert p.grad is not None, p.name
        assert np.all(np.isfinite(p.grad.numpy())), p.name
    assert sum(float(np.abs(p.grad.numpy()).sum()) > 0 for p in net.parameters()) > \
        0.9 * len(net.parameters())
    opt.step()
    assert any(not np.array_equal(p.numpy(), before[p.name]) for p in net.parameters())


def test_heads_off_give_the_feature_maps():
    paddle.seed(2)
    x = paddle.to_tensor(randn(2, 1, 3, 32, 32))
    cases = [(models.mobilenet_v1(scale=0.25, num_classes=0, with_pool=False), [1, 256, 1, 1]),
             (models.mobilenet_v3_small(scale=0.5, num_classes=0), [1, 288, 1, 1]),
             (models.shufflenet_v2_x0_25(num_classes=0, with_pool=False), [1, 512, 1, 1]),
             (models.squeezenet1_1(num_classes=0), [1, 512]),
             (models.squeezenet1_1(num_classes=10, with_pool=False), [1, 10, 1, 1])]
    for net, shape in cases:
        net.eval()
        assert net(x).shape == shape, type(net).__name__
    # squeezenet keeps an empty classifier without classes, as Paddle does (same keys)
    assert models.squeezenet1_1(num_classes=0)._conv9.weight.shape == [0, 512, 1, 1]


def test_builders_pass_paddles_settings(monkeypatch):
    seen = []
    monkeypatch.setattr(densenet, "DenseNet", lambda **kw: seen.append(kw))
    for depth in (121, 161, 169, 201, 264):
        getattr(models, f"densenet{depth}")(dropout=0.1)
        assert seen.pop() == {"layers": depth, "dropout": 0.1}
    monkeypatch.setattr(shufflenetv2, "ShuffleNetV2", lambda **kw: seen.append(kw))
    for suffix, scale in [("x0_25", 0.25), ("x0_33", 0.33), ("x0_5", 0.5), ("x1_0", 1.0),
                          ("x1_5", 1.5), ("x2_0", 2.0)]:
        builder = getattr(models, f"shufflenet_v2_{suffix}")
        assert builder.__name__ == f"shufflenet_v2_{suffix}"
        builder(num_classes=3)
        assert seen.pop() == {"scale": scale, "num_classes": 3}
    models.shufflenet_v2_swish()
    assert seen.pop() == {"scale": 1.0, "act": "swish"}
    monkeypatch.setattr(squeezenet, "SqueezeNet", lambda version, **kw: seen.append(version))
    models.squeezenet1_0()
    models.squeezenet1_1()
    assert seen == ["1.0", "1.1"]


def test_channel_shuffle_interleaves_groups():
    x = paddle.to_tensor(np.arange(2 * 6 * 1 * 1, dtype="float32").reshape(2, 6, 1, 1))
    got = shufflenetv2.channel_shuffle(x, 2).numpy()[:, :, 0, 0]
    np.testing.assert_array_equal(got[0], [0, 3, 1, 4, 2, 5])
    np.testing.assert_array_equal(got[1], [6, 9, 7, 10, 8, 11])


def test_densenet_dropout_is_used_in_training_only():
    paddle.seed(3)
    layer = densenet.DenseLayer(8, growth_rate=4, bn_size=2, dropout=0.5)
    x = paddle.to_tensor(randn(3, 2, 8, 5, 5))
    layer.train()
    first, second = layer(x).numpy(), layer(x).numpy()
    assert first.shape == (2, 12, 5, 5)
    np.testing.assert_array_equal(first[:, :8], x.numpy())   # the input passes in front
    assert not np.allclose(first[:, 8:], second[:, 8:])
    layer.eval()
    np.testing.assert_array_equal(layer(x).numpy(), layer(x).numpy())
    assert not hasattr(densenet.DenseLayer(8, 4, 2, 0.0), "dropout_func")


def test_conv_norm_activation_pads_and_drops_the_bias_as_paddle():
    block = paddle.vision.ops.ConvNormActivation(3, 4, kernel_size=5, dilation=2)
    assert block[0]._padding == 4       # (kernel_size - 1) // 2 * dilation
    assert list(block.state_dict()) == ["0.weight", "1.weight", "1.bias", "1._mean",
                                        "1._variance"]        # no conv bias before a norm
    bare = paddle.vision.ops.ConvNormActivation(3, 4, norm_layer=None, activation_layer=None)
    assert list(bare.state_dict()) == ["0.weight", "0.bias"] and len(bare) == 1
    x = paddle.to_tensor(randn(5, 1, 3, 9, 9))
    assert block(x).shape == [1, 4, 9, 9] and float(block(x).min()) >= 0   # same size, ReLU


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="layers must be one of"):
        models.DenseNet(layers=100)
    with pytest.raises(ValueError, match="scale must be one of"):
        models.ShuffleNetV2(scale=0.7)
    with pytest.raises(ValueError, match="act must be"):
        models.ShuffleNetV2(scale=0.25, act="gelu")
    with pytest.raises(ValueError, match="version must be one of"):
        models.SqueezeNet("1.2")


def test_pretrained_is_refused_with_the_way_to_load_weights():
    for name in ["alexnet", "densenet121", "densenet264", "googlenet", "inception_v3",
                 "mobilenet_v1", "mobilenet_v3_small", "mobilenet_v3_large",
                 "shufflenet_v2_x1_0", "shufflenet_v2_swish", "squeezenet1_0", "squeezenet1_1"]:
        with pytest.raises(ValueError, match=f"{name}.*does not download weights"):
            getattr(models, name)(pretrained=True)
