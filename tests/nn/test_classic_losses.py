"""square_error_cost, log_loss, dice_loss, sigmoid_focal_loss and F.logsigmoid against numpy."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st import nn
from dy2st.nn import functional as F
from tests.support import check_grad, check_layer_converts, randn


def np_sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


def test_square_error_cost(check):
    check(F.square_error_cost, lambda x, y: (x - y) ** 2, randn(1, 4, 3), randn(2, 4, 3))


def test_log_loss(check):
    prob = np_sigmoid(randn(3, 5, 1))
    label = (randn(4, 5, 1) > 0).astype("float32")
    ref = lambda p, y: (-y * np.log(p + 1e-4) - (1 - y) * np.log(1 - p + 1e-4)).astype("float32")
    check(F.log_loss, ref, prob, label, rtol=1e-5)
    got = F.log_loss(paddle.to_tensor(prob), paddle.to_tensor(label), epsilon=0.1).numpy()
    np.testing.assert_allclose(got, -label * np.log(prob + 0.1) - (1 - label) * np.log(1 - prob + 0.1), rtol=1e-5)


def np_dice(x, lab, eps=1e-5):
    n, c = x.shape[0], x.shape[-1]
    out = []
    for k in range(n):
        onehot = np.eye(c)[lab[k, ..., 0]]
        inter = (x[k] * onehot).sum()
        out.append(1 - 2 * inter / (x[k].sum() + onehot.sum() + eps))
    return np.asarray(np.mean(out), "float32")


def test_dice_loss(check):
    logits = randn(5, 3, 4, 4, 3)
    prob = (np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)).astype("float32")
    label = np.random.default_rng(0).integers(0, 3, size=(3, 4, 4, 1)).astype("int64")
    check(F.dice_loss, np_dice, prob, label, rtol=1e-5)
    with pytest.raises(ValueError, match="last dim of 1"):
        F.dice_loss(paddle.to_tensor(prob), paddle.to_tensor(label[..., 0]))


@pytest.mark.parametrize("reduction", ["sum", "mean", "none"])
def test_sigmoid_focal_loss(check, reduction):
    logit = randn(6, 4, 3, scale=2.0)
    label = (randn(7, 4, 3) > 0).astype("float32")

    def ref(x, y, alpha=0.25, gamma=2.0, norm=2.0):
        p = np_sigmoid(x.astype(np.float64))
        bce = -(y * np.log(p) + (1 - y) * np.log(1 - p))
        p_t = p * y + (1 - p) * (1 - y)
        a_t = alpha * y + (1 - alpha) * (1 - y)
        loss = a_t * (1 - p_t) ** gamma * bce / norm
        return np.asarray({"sum": np.sum, "mean": np.mean, "none": lambda v: v}[reduction](loss), "float32")

    check(lambda x, y: F.sigmoid_focal_loss(x, y, normalizer=paddle.to_tensor([2.0]), reduction=reduction),
          ref, logit, label, rtol=1e-5, atol=1e-7)


def test_logsigmoid_is_log_sigmoid():
    assert F.logsigmoid is F.log_sigmoid


def test_classic_loss_gradients_match_finite_differences():
    x = randn(8, 3, 4, dtype="float64")
    y = (randn(9, 3, 4) > 0).astype("float64")
    check_grad(lambda t: F.sigmoid_focal_loss(t, paddle.to_tensor(y), reduction="none"), x)
    check_grad(lambda t: F.log_loss(F.sigmoid(t), paddle.to_tensor(y)), x)
    lab = paddle.to_tensor(np.array([[[1], [0], [3]], [[2], [2], [0]], [[3], [1], [1]]]))
    check_grad(lambda t: F.dice_loss(F.softmax(t, -1), lab), randn(10, 3, 3, 4, dtype="float64"))


class Segmenter(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        prob = F.softmax(self.fc(x), -1)                        # [N, L, 3]
        label = paddle.argmax(x[:, :, :3], axis=-1, keepdim=True)
        return (F.dice_loss(prob, label) + F.square_error_cost(prob, prob * 0.5).mean()
                + F.sigmoid_focal_loss(self.fc(x), (x[:, :, :3] > 0).astype("float32")))


def test_classic_losses_in_a_model_convert_and_round_trip(tmp_path):
    model = Segmenter()
    x = randn(12, 2, 5, 4)
    out = check_layer_converts(model, [x], tmp_path)
    logits = x @ model.fc.weight.numpy() + model.fc.bias.numpy()
    prob = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    y = (x[:, :, :3] > 0).astype("float64")
    p = np_sigmoid(logits)
    bce = -(y * np.log(p) + (1 - y) * np.log(1 - p))
    focal = ((0.25 * y + 0.75 * (1 - y)) * (1 - (p * y + (1 - p) * (1 - y))) ** 2 * bce).sum()
    want = np_dice(prob, np.argmax(x[:, :, :3], -1)[..., None]) + ((prob * 0.5) ** 2).mean() + focal
    np.testing.assert_allclose(out, want, rtol=1e-4)
