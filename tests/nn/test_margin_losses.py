"""multi_margin_loss, multi_label_margin_loss, multi_label_soft_margin_loss,
triplet_margin_with_distance_loss and npair_loss (and their layers) against numpy loops."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st import nn
from dy2st.nn import functional as F
from tests.support import check_grad, check_layer_converts, randn

REDUCE = {"none": lambda v: v, "mean": np.mean, "sum": np.sum}


def np_multi_margin(x, y, p=1, margin=1.0, weight=None):
    n, c = x.shape
    out = np.zeros(n, x.dtype)
    for k in range(n):
        for i in range(c):
            if i != y[k]:
                out[k] += max(0.0, margin - x[k, y[k]] + x[k, i]) ** p
        out[k] = out[k] / c * (1.0 if weight is None else weight[y[k]])
    return out


def np_multi_label_margin(x, y):
    n, c = x.shape
    out = np.zeros(n, x.dtype)
    for k in range(n):
        targets = []
        for j in y[k]:
            if j < 0:
                break
            targets.append(j)
        for j in targets:
            for i in range(c):
                if i not in targets:
                    out[k] += max(0.0, 1.0 - (x[k, j] - x[k, i]))
        out[k] /= c
    return out


def np_multi_label_soft_margin(x, y, weight=None):
    log_sig = lambda v: -np.log1p(np.exp(-v))
    loss = -(y * log_sig(x) + (1 - y) * log_sig(-x))
    if weight is not None:
        loss = loss * weight
    return loss.mean(-1)


LABELS = np.array([0, 3, 1, 3, 2], "int64")
MULTI = np.array([[3, 0, -1, 1], [1, 2, 3, 0], [-1, 0, 0, 0], [2, -1, 3, 3], [0, 1, 2, 3]], "int64")


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("p, margin, weighted", [(1, 1.0, False), (2, 0.5, True), (1, 2.0, True)])
def test_multi_margin_loss_matches_numpy(check, reduction, p, margin, weighted):
    x = randn(1, 5, 4)
    w = np.array([0.5, 1.0, 2.0, 1.5], "float32") if weighted else None
    fn = lambda t, lab: F.multi_margin_loss(t, lab, p=p, margin=margin, reduction=reduction,
                                            weight=None if w is None else paddle.to_tensor(w))
    ref = lambda t, lab: np.asarray(REDUCE[reduction](np_multi_margin(t, lab, p, margin, w)), "float32")
    check(fn, ref, x, LABELS, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_multi_label_margin_loss_matches_numpy(check, reduction):
    x = randn(2, 5, 4)
    check(lambda t, lab: F.multi_label_margin_loss(t, lab, reduction=reduction),
          lambda t, lab: np.asarray(REDUCE[reduction](np_multi_label_margin(t, lab)), "float32"),
          x, MULTI, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_multi_label_soft_margin_loss_matches_numpy(check, reduction):
    x = randn(3, 5, 4)
    y = (randn(4, 5, 4) > 0).astype("float32")
    w = np.array([1.0, 0.5, 2.0, 1.0], "float32")
    check(lambda t, lab: F.multi_label_soft_margin_loss(t, lab, weight=paddle.to_tensor(w), reduction=reduction),
          lambda t, lab: np.asarray(REDUCE[reduction](np_multi_label_soft_margin(t, lab, w)), "float32"),
          x, y, rtol=1e-5, atol=1e-6)


def test_triplet_margin_with_distance_loss_default_and_custom_distance(check):
    a, p, n = randn(5, 4, 3), randn(6, 4, 3), randn(7, 4, 3)

    def dist(u, v):
        return np.sqrt(((u - v + 1e-6) ** 2).sum(-1))

    ref = lambda u, v, w: np.asarray(np.mean(np.maximum(dist(u, v) - np.minimum(dist(u, w), dist(v, w)) + 1.0, 0)),
                                     "float32")
    check(lambda u, v, w: F.triplet_margin_with_distance_loss(u, v, w, swap=True), ref, a, p, n,
          rtol=1e-5, atol=1e-6)
    l1 = lambda u, v: paddle.abs(u - v).sum(-1)
    got = F.triplet_margin_with_distance_loss(*[paddle.to_tensor(v) for v in (a, p, n)], distance_function=l1,
                                              margin=0.5, reduction="none").numpy()
    np.testing.assert_allclose(got, np.maximum(np.abs(a - p).sum(-1) - np.abs(a - n).sum(-1) + 0.5, 0), rtol=1e-5)


def test_npair_loss_matches_numpy(check):
    a, p = randn(8, 5, 3), randn(9, 5, 3)
    labels = np.array([1.0, 2.0, 1.0, 3.0, 2.0], "float32")

    def ref(a, p, lab):
        same = (lab[:, None] == lab[None, :]).astype(np.float64)
        target = same / same.sum(1, keepdims=True)
        sim = a.astype(np.float64) @ p.T
        log_p = sim - np.log(np.exp(sim).sum(1, keepdims=True))
        ce = -(target * log_p).sum(1).mean()
        l2 = ((a ** 2).sum(1).mean() + (p ** 2).sum(1).mean()) * 0.25 * 0.01
        return np.asarray(ce + l2, "float32")

    check(lambda u, v, lab: F.npair_loss(u, v, lab, l2_reg=0.01), ref, a, p, labels, rtol=1e-5, atol=1e-6)


def test_margin_loss_gradients_match_finite_differences():
    x = randn(10, 4, 5, dtype="float64")
    lab = paddle.to_tensor(np.array([[3, 0, -1, 1, 2], [1, 2, 4, 0, -1], [-1, 0, 0, 0, 0], [2, 4, 3, 0, 1]]))
    check_grad(lambda t: F.multi_margin_loss(t, paddle.to_tensor(LABELS[:4] % 5), p=2, reduction="none"), x)
    check_grad(lambda t: F.multi_label_margin_loss(t, lab, reduction="none"), x)
    check_grad(lambda t: F.npair_loss(t, t * 0.5, paddle.to_tensor([1.0, 2.0, 1.0, 2.0])), x)


def test_bad_inputs_are_refused():
    with pytest.raises(ValueError, match="p must be 1 or 2"):
        F.multi_margin_loss(paddle.ones([2, 3]), paddle.to_tensor([0, 1]), p=3)
    with pytest.raises(ValueError, match=r"\[N, C\]"):
        F.multi_margin_loss(paddle.ones([3]), paddle.to_tensor([0]))
    with pytest.raises(ValueError, match="label must have shape"):
        F.multi_label_margin_loss(paddle.ones([2, 3]), paddle.to_tensor([[0, 1]]))
    with pytest.raises(ValueError, match="same shape"):
        F.multi_label_soft_margin_loss(paddle.ones([2, 3]), paddle.ones([2, 2]))


class Scorer(nn.Layer):
    """A classifier head scored by the margin losses (labels fixed inside the model)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 4)
        self.mm = nn.MultiMarginLoss(p=1, margin=0.5, reduction="none")
        self.mlm = nn.MultiLabelMarginLoss(reduction="none")
        self.mlsm = nn.MultiLabelSoftMarginLoss(reduction="none")
        self.trip = nn.TripletMarginWithDistanceLoss(margin=0.3, reduction="none")

    def forward(self, x):
        s = self.fc(x)
        lab = paddle.zeros_like(s[:, 0]).astype("int64") + 2
        multi = paddle.concat([paddle.zeros_like(s[:, :1]), paddle.full_like(s[:, :3], -1.0)], 1).astype("int64")
        soft = (s > 0).astype("float32")
        return self.mm(s, lab) + self.mlm(s, multi) + self.mlsm(s, soft) + self.trip(s, s * 0.5, s[:, ::-1])


def test_margin_loss_layers_convert_and_round_trip(tmp_path):
    model = Scorer()
    x = randn(11, 3, 6)
    out = check_layer_converts(model, [x], tmp_path)
    s = x @ model.fc.weight.numpy() + model.fc.bias.numpy()
    want = (np_multi_margin(s, np.full(3, 2), 1, 0.5) + np_multi_label_margin(s, np.array([[0, -1, -1, -1]] * 3))
            + np_multi_label_soft_margin(s, (s > 0).astype("float32"))
            + np.maximum(np.sqrt(((s - s * 0.5 + 1e-6) ** 2).sum(-1)) - np.sqrt(((s - s[:, ::-1] + 1e-6) ** 2).sum(-1))
                         + 0.3, 0))
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)
