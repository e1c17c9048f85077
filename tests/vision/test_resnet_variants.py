"""ResNeXt and wide ResNet builders: Paddle's group / width settings, parameter names and shapes
(equal to PaddlePaddle's state dict when it is installed), a forward pass."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.vision.models import resnet as resnet_module

M = paddle.vision.models
VARIANTS = {"resnext50_32x4d": (32, 4), "resnext50_64x4d": (64, 4),
            "resnext101_32x4d": (32, 4), "resnext101_64x4d": (64, 4),
            "resnext152_32x4d": (32, 4), "resnext152_64x4d": (64, 4),
            "wide_resnet50_2": (1, 128), "wide_resnet101_2": (1, 128)}


def test_groups_and_width_follow_paddle(monkeypatch):
    built = {}
    # record what each builder asks ResNet for, without building the deep networks
    monkeypatch.setattr(resnet_module, "ResNet",
                        lambda block, depth, **kw: built.setdefault(depth, (block, kw)))
    for name, (groups, width) in VARIANTS.items():
        assert name in M.__all__
        built.clear()
        getattr(M, name)(num_classes=3)
        (depth, (block, kw)), = built.items()
        assert str(depth) in name and block is resnet_module.BottleneckBlock
        assert kw == {"num_classes": 3, "groups": groups, "width": width}, name


def test_resnext_forward_runs_and_is_deterministic():
    paddle.seed(0)
    model = M.resnext50_32x4d(num_classes=4)
    model.eval()
    # Bottleneck width in the first stage: int(64 * 4 / 64) * 32 = 128, in 32 groups
    assert list(model.layer1[0].conv2.weight.shape) == [128, 4, 3, 3]
    x = paddle.to_tensor(np.random.default_rng(0).standard_normal((1, 3, 32, 32)), "float32")
    out = model(x)
    assert out.shape == [1, 4] and np.all(np.isfinite(out.numpy()))
    np.testing.assert_array_equal(model(x).numpy(), out.numpy())


def test_pretrained_weights_are_refused_with_a_message():
    with pytest.raises(Exception, match="resnext50_32x4d"):
        M.resnext50_32x4d(pretrained=True)


def test_state_dict_matches_paddles():
    real = pytest.importorskip("paddle", reason="PaddlePaddle is not installed (reference)")
    for name in ("resnext50_64x4d",):
        theirs = {k: list(v.shape) for k, v in
                  getattr(real.vision.models, name)(num_classes=10).state_dict().items()}
        ours = {k: list(v.shape) for k, v in getattr(M, name)(num_classes=10).state_dict().items()}
        assert ours == theirs, name
