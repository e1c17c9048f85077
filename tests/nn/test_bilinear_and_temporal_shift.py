"""F.bilinear / nn.Bilinear and F.temporal_shift against numpy loops, eager and static, with
gradients against finite differences and a model that converts and round-trips."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st import nn
from dy2st.nn import functional as F
from tests.support import check_grad, check_layer_converts, randn


def np_bilinear(x1, x2, w, b=None):
    n, out = x1.shape[0], w.shape[0]
    res = np.zeros((n, out), x1.dtype)
    for k in range(n):
        for o in range(out):
            res[k, o] = x1[k] @ w[o] @ x2[k] + (0 if b is None else b[0, o])
    return res


def test_bilinear_matches_numpy(check):
    x1, x2, w, b = randn(1, 4, 3), randn(2, 4, 5), randn(3, 2, 3, 5), randn(4, 1, 2)
    check(F.bilinear, np_bilinear, x1, x2, w, b, rtol=1e-5, atol=1e-6)
    got = F.bilinear(paddle.to_tensor(x1), paddle.to_tensor(x2), paddle.to_tensor(w)).numpy()
    np.testing.assert_allclose(got, np_bilinear(x1, x2, w), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="x2.shape"):
        F.bilinear(paddle.to_tensor(x1), paddle.ones([4, 4]), paddle.to_tensor(w))


def test_bilinear_gradients():
    args = [randn(5, 3, 2, dtype="float64"), randn(6, 3, 4, dtype="float64"),
            randn(7, 2, 2, 4, dtype="float64"), randn(8, 1, 2, dtype="float64")]
    check_grad(F.bilinear, *args)


def np_temporal_shift(x, seg, ratio):
    nt, c, h, w = x.shape
    v = x.reshape(-1, seg, c, h, w)
    out = np.zeros_like(v)
    c1, c2 = int(c * ratio), int(c * 2 * ratio)
    for t in range(seg):
        if t > 0:
            out[:, t, :c1] = v[:, t - 1, :c1]
        if t < seg - 1:
            out[:, t, c1:c2] = v[:, t + 1, c1:c2]
        out[:, t, c2:] = v[:, t, c2:]
    return out.reshape(x.shape)


@pytest.mark.parametrize("seg, ratio", [(3, 0.25), (2, 0.2), (4, 0.5)])
def test_temporal_shift_matches_numpy(seg, ratio):
    x = randn(9, seg * 2, 8, 3, 2)
    got = F.temporal_shift(paddle.to_tensor(x), seg, ratio).numpy()
    np.testing.assert_array_equal(got, np_temporal_shift(x, seg, ratio))
    from tests.support import run_static
    np.testing.assert_array_equal(run_static(lambda t: F.temporal_shift(t, seg, ratio), x,
                                             shapes=[[None, 8, 3, 2]]), got)
    nhwc = F.temporal_shift(paddle.to_tensor(x.transpose(0, 2, 3, 1)), seg, ratio, data_format="NHWC").numpy()
    np.testing.assert_array_equal(nhwc, got.transpose(0, 2, 3, 1))


def test_temporal_shift_gradient_and_bad_arguments():
    check_grad(lambda t: F.temporal_shift(t, 2), randn(10, 4, 4, 2, 2, dtype="float64"))
    with pytest.raises(ValueError, match="data_format"):
        F.temporal_shift(paddle.ones([2, 4, 1, 1]), 2, data_format="NCL")
    with pytest.raises(ValueError, match="4-D"):
        F.temporal_shift(paddle.ones([2, 4, 1]), 2)


class PairNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.bil = nn.Bilinear(3, 4, 2)

    def forward(self, x1, x2):
        shifted = F.temporal_shift(x2.reshape([-1, 4, 1, 1]), seg_num=1).reshape([-1, 4])
        return self.bil(x1, shifted)


def test_bilinear_layer_model_converts_and_round_trips(tmp_path):
    model = PairNet()
    assert model.bil.weight.shape == [2, 3, 4] and model.bil.bias.shape == [1, 2]
    x1, x2 = randn(11, 5, 3), randn(12, 5, 4)
    out = check_layer_converts(model, [x1, x2], tmp_path)
    # one segment: channel 0 (t-1) and channel 1 (t+1) are zero, the rest pass through
    shifted = x2.copy()
    shifted[:, :2] = 0
    np.testing.assert_allclose(out, np_bilinear(x1, shifted, model.bil.weight.numpy(), model.bil.bias.numpy()),
                               rtol=1e-5, atol=1e-6)
