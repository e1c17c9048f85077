"""pairwise_distance, dropout2d/3d, soft_margin_loss and their Layers, CosineSimilarity and
Unflatten: numpy references, gradients against finite differences, to_static and save/load."""
import numpy as np
import pytest

import dy2st as paddle
import dy2st.nn.functional as F
from dy2st.static import InputSpec
from tests.autograd.gradcheck import check

RNG = np.random.default_rng(4)
X = RNG.standard_normal((5, 4))
Y = RNG.standard_normal((5, 4))


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, float("inf")])
def test_pairwise_distance_matches_numpy_and_differentiates(p):
    d = np.abs(X - Y + 1e-6)
    expected = d.max(axis=-1) if p == float("inf") else (d ** p).sum(axis=-1) ** (1 / p)
    out = F.pairwise_distance(paddle.to_tensor(X), paddle.to_tensor(Y), p=p)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-10)
    layer = paddle.nn.PairwiseDistance(p=p, keepdim=True)
    assert layer(paddle.to_tensor(X), paddle.to_tensor(Y)).shape == [5, 1]
    check(lambda a, b: F.pairwise_distance(a, b, p=p), [X, Y])


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_soft_margin_loss_matches_numpy(reduction):
    label = np.where(RNG.random((5, 4)) > 0.5, 1.0, -1.0)
    loss = np.log1p(np.exp(-label * X * 30))
    expected = {"none": loss, "mean": loss.mean(), "sum": loss.sum()}[reduction]
    out = paddle.nn.SoftMarginLoss(reduction)(paddle.to_tensor(X * 30), paddle.to_tensor(label))
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-10)
    check(lambda a: F.soft_margin_loss(a, paddle.to_tensor(label), reduction), [X])
    with pytest.raises(ValueError, match="reduction"):
        F.soft_margin_loss(paddle.to_tensor(X), paddle.to_tensor(label), "avg")


@pytest.mark.parametrize("layer, shape, fmt", [
    (paddle.nn.Dropout2D, (3, 6, 4, 5), "NCHW"), (paddle.nn.Dropout2D, (3, 4, 5, 6), "NHWC"),
    (paddle.nn.Dropout3D, (2, 6, 3, 4, 5), "NCDHW")])
def test_channel_dropout_zeroes_whole_channels_in_training_only(layer, shape, fmt):
    paddle.seed(1)
    m = layer(p=0.5, data_format=fmt)
    x = paddle.ones(list(shape))
    out = m(x).numpy()
    channel = -1 if fmt.endswith("C") else 1
    per_channel = np.moveaxis(out, channel, 1).reshape(shape[0], shape[channel], -1)
    assert np.all((per_channel == 0).all(axis=-1) | (per_channel == 2.0).all(axis=-1))
    assert 0 < (per_channel == 0).mean() < 1
    m.eval()
    np.testing.assert_array_equal(m(x).numpy(), np.ones(shape, "float32"))
    with pytest.raises(ValueError, match="rank"):
        m(paddle.ones([2, 3]))


class Head(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 6)
        self.unflatten = paddle.nn.Unflatten(1, [2, 3])
        self.cos = paddle.nn.CosineSimilarity(axis=-1)

    def forward(self, x, y):
        h = self.unflatten(self.fc(x))              # [N, 2, 3]
        return self.cos(h, paddle.unsqueeze(y, 1)) + F.pairwise_distance(x, x * 0.5, keepdim=True)


def test_layers_convert_and_round_trip_with_a_none_batch_dim(tmp_path):
    paddle.seed(2)
    model = Head()
    x = RNG.standard_normal((3, 4)).astype("float32")
    y = RNG.standard_normal((3, 3)).astype("float32")
    eager = model(paddle.to_tensor(x), paddle.to_tensor(y)).numpy()
    assert eager.shape == (3, 2)
    static = paddle.jit.to_static(model, full_graph=True)
    np.testing.assert_allclose(static(paddle.to_tensor(x), paddle.to_tensor(y)).numpy(), eager,
                               rtol=1e-5, atol=1e-6)
    paddle.jit.save(static, str(tmp_path / "m"), input_spec=[InputSpec([None, 4], "float32"),
                                                           InputSpec([None, 3], "float32")])
    loaded = paddle.jit.load(str(tmp_path / "m"))
    np.testing.assert_allclose(loaded(paddle.to_tensor(x), paddle.to_tensor(y)).numpy(), eager,
                               rtol=1e-5, atol=1e-6)
