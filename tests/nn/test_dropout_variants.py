"""dropout1d, alpha_dropout, feature_alpha_dropout and the AlphaDropout layers: the masks'
structure, the SELU-preserving affine map, eval-mode identity, static programs."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st import nn
from dy2st.nn import functional as F
from tests.support import check_layer_converts, randn, run_static

ALPHA_P = -1.6732632423543772848170429916717 * 1.0507009873554804934193349852946


def affine(p):
    a = ((1 - p) * (1 + p * ALPHA_P ** 2)) ** -0.5
    return a, -a * ALPHA_P * p


def test_alpha_dropout_values_are_the_affine_map_of_kept_or_saturated_units():
    x = randn(1, 200, 50)
    p = 0.3
    out = F.alpha_dropout(paddle.to_tensor(x), p=p).numpy()
    a, b = affine(p)
    kept = np.isclose(out, a * x + b, rtol=1e-5, atol=1e-6)
    dropped = np.isclose(out, a * ALPHA_P + b, rtol=1e-5, atol=1e-6)
    assert (kept | dropped).all()
    assert abs(dropped.mean() - p) < 0.02          # about p of the units dropped, element by element
    # SELU's fixed point (mean 0, variance 1) is kept
    z = F.alpha_dropout(paddle.randn([400, 400]), p=0.2).numpy()
    assert abs(z.mean()) < 0.02 and abs(z.std() - 1) < 0.02


def test_feature_alpha_dropout_drops_whole_channels():
    x = randn(2, 8, 16, 5)
    p = 0.5
    out = F.feature_alpha_dropout(paddle.to_tensor(x), p=p).numpy()
    a, b = affine(p)
    dropped = np.isclose(out, a * ALPHA_P + b, rtol=1e-5).all(axis=-1)
    kept = np.isclose(out, a * x + b, rtol=1e-5, atol=1e-6).all(axis=-1)
    assert (dropped | kept).all() and 0 < dropped.mean() < 1


def test_dropout1d_zeroes_channels_and_scales_the_rest():
    x = np.ones((6, 10, 7), "float32")
    out = F.dropout1d(paddle.to_tensor(x), p=0.4).numpy()
    per_channel = out[..., 0]
    assert (np.isclose(per_channel, 0.0) | np.isclose(per_channel, 1 / 0.6)).all()
    assert (out == per_channel[..., None]).all() and 0 < (per_channel == 0).mean() < 1
    assert F.dropout1d(paddle.ones([3, 5]), p=0.5).shape == [3, 5]
    np.testing.assert_array_equal(F.dropout1d(paddle.to_tensor(x), p=0.4, training=False).numpy(), x)
    with pytest.raises(ValueError, match="rank 2"):
        F.dropout1d(paddle.ones([2, 3, 4, 5]))


@pytest.mark.parametrize("fn", [F.alpha_dropout, F.feature_alpha_dropout])
def test_eval_mode_and_edge_probabilities(fn):
    x = randn(3, 4, 5)
    np.testing.assert_array_equal(fn(paddle.to_tensor(x), p=0.5, training=False).numpy(), x)
    np.testing.assert_array_equal(fn(paddle.to_tensor(x), p=0.0).numpy(), x)
    np.testing.assert_array_equal(fn(paddle.to_tensor(x), p=1.0).numpy(), np.zeros_like(x))
    with pytest.raises(ValueError, match="p must be"):
        fn(paddle.to_tensor(x), p=1.5)


def test_alpha_dropout_in_a_static_program_with_unknown_batch():
    x = randn(4, 300, 20)
    out = run_static(lambda t: F.alpha_dropout(t, p=0.25), x, shapes=[[None, 20]])
    a, b = affine(0.25)
    dropped = np.isclose(out, a * ALPHA_P + b, rtol=1e-5)
    assert (dropped | np.isclose(out, a * x + b, rtol=1e-5, atol=1e-6)).all()
    assert abs(dropped.mean() - 0.25) < 0.03


def test_alpha_dropout_layers_follow_train_and_eval():
    x = paddle.to_tensor(randn(5, 6, 4, 3))
    for layer in (nn.AlphaDropout(0.5), nn.FeatureAlphaDropout(0.5)):
        assert not np.allclose(layer(x).numpy(), x.numpy())
        layer.eval()
        np.testing.assert_array_equal(layer(x).numpy(), x.numpy())
    with pytest.raises(ValueError, match="p must be"):
        nn.AlphaDropout(-0.1)


class SeluNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 6)
        self.drop = nn.AlphaDropout(0.2)
        self.fdrop = nn.FeatureAlphaDropout(0.2)

    def forward(self, x):
        return self.fdrop(self.drop(F.selu(self.fc(x))).unsqueeze(-1))


def test_alpha_dropout_model_converts_and_round_trips(tmp_path):
    model = SeluNet()
    x = randn(6, 3, 6)
    out = check_layer_converts(model, [x], tmp_path)      # eval mode: dropout is the identity
    s = x @ model.fc.weight.numpy() + model.fc.bias.numpy()
    selu = 1.0507009873554805 * np.where(s > 0, s, 1.6732632423543772 * np.expm1(s))
    np.testing.assert_allclose(out, selu[..., None], rtol=1e-5, atol=1e-6)
