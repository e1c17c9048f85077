"""Ranking, embedding and likelihood losses (margin ranking, cosine / hinge embedding, triplet
margin, Poisson and Gaussian NLL) against numpy written by hand, their float64 gradients against
central finite differences, to_static against eager, and the Layer forms against the functional."""
import numpy as np
import pytest

import dy2st as paddle
import dy2st.nn.functional as F
from tests.support import check_grad, randn, run_static

N, M = 5, 3
SIGNS = np.array([1.0, -1.0, 1.0, -1.0, -1.0])


def _reduce(loss, reduction):
    return {"none": loss, "mean": loss.mean(), "sum": loss.sum()}[reduction]


def _t(a):
    return paddle.to_tensor(a)


# ----------------------------------------------------------------------------- numpy references
def _margin_ranking_ref(x, y, label, margin):
    return np.maximum(0.0, -label * (x - y) + margin)


def _cosine_embedding_ref(a, b, label, margin):
    cos = (a * b).sum(-1) / np.sqrt(((a * a).sum(-1) + 1e-11) * ((b * b).sum(-1) + 1e-11))
    return np.where(label == 1, 1 - cos, np.where(label == -1, np.maximum(0.0, cos - margin), 0.0))


def _hinge_embedding_ref(x, label, margin):
    return np.where(label == 1, x, 0.0) + np.where(label == -1, np.maximum(0.0, margin - x), 0.0)


def _triplet_ref(a, pos, neg, margin, p, eps, swap):
    def dist(u, v):
        return (np.abs(u - v + eps) ** p).sum(-1) ** (1.0 / p)
    d_neg = dist(a, neg)
    if swap:
        d_neg = np.minimum(d_neg, dist(pos, neg))
    return np.maximum(dist(a, pos) - d_neg + margin, 0.0)


def _poisson_ref(x, y, log_input, full, eps):
    loss = np.exp(x) - y * x if log_input else x - y * np.log(x + eps)
    if full:
        with np.errstate(divide="ignore", invalid="ignore"):
            stirling = y * np.log(y) - y + 0.5 * np.log(2 * np.pi * y)
        loss = loss + np.where(y > 1, stirling, 0.0)
    return loss


def _gaussian_ref(x, y, var, full, eps):
    if var.ndim == x.ndim - 1:
        var = var[..., None]
    var = np.maximum(var, eps)
    loss = 0.5 * (np.log(var) + (x - y) ** 2 / var)
    return loss + 0.5 * np.log(2 * np.pi) if full else loss


# ----------------------------------------------------------------------------- data
X = randn(0, N, M, dtype="float64")
Y = randn(1, N, M, dtype="float64")
Z = randn(2, N, M, dtype="float64")
VEC = randn(3, N, dtype="float64")
VEC2 = randn(4, N, dtype="float64")
RATES = np.random.default_rng(5).uniform(0.2, 3.0, (N, M))
COUNTS = np.random.default_rng(6).integers(0, 6, (N, M)).astype("float64")
VAR = np.random.default_rng(7).uniform(0.3, 2.0, (N, M))
VAR_ROW = np.random.default_rng(8).uniform(0.3, 2.0, (N,))

# name -> (function of float tensors, float arrays, numpy reference of the unreduced loss);
# labels, margins and options are fixed inside
CASES = {
    "margin_ranking": (
        lambda x, y, reduction="none": F.margin_ranking_loss(x, y, _t(SIGNS), 0.3, reduction),
        [VEC, VEC2], lambda x, y: _margin_ranking_ref(x, y, SIGNS, 0.3)),
    "cosine_embedding": (
        lambda a, b, reduction="none": F.cosine_embedding_loss(a, b, _t(SIGNS), 0.1, reduction),
        [X, Y], lambda a, b: _cosine_embedding_ref(a, b, SIGNS, 0.1)),
    "hinge_embedding": (
        lambda x, reduction="none": F.hinge_embedding_loss(x, _t(np.sign(Y)), 0.5, reduction),
        [X], lambda x: _hinge_embedding_ref(x, np.sign(Y), 0.5)),
    "triplet": (
        lambda a, p, n, reduction="none": F.triplet_margin_loss(a, p, n, margin=0.5,
                                                                reduction=reduction),
        [X, Y, Z], lambda a, p, n: _triplet_ref(a, p, n, 0.5, 2, 1e-6, False)),
    "triplet_p1_swap": (
        lambda a, p, n, reduction="none": F.triplet_margin_loss(a, p, n, margin=3.0, p=1,
                                                                swap=True, reduction=reduction),
        [X, Y, Z], lambda a, p, n: _triplet_ref(a, p, n, 3.0, 1, 1e-6, True)),
    "triplet_p3": (
        lambda a, p, n, reduction="none": F.triplet_margin_loss(a, p, n, margin=2.0, p=3,
                                                                epsilon=1e-3, reduction=reduction),
        [X, Y, Z], lambda a, p, n: _triplet_ref(a, p, n, 2.0, 3, 1e-3, False)),
    "poisson_log": (
        lambda x, reduction="none": F.poisson_nll_loss(x, _t(COUNTS), reduction=reduction),
        [X], lambda x: _poisson_ref(x, COUNTS, True, False, 1e-8)),
    "poisson_rate_full": (
        lambda x, reduction="none": F.poisson_nll_loss(x, _t(COUNTS), log_input=False, full=True,
                                                       reduction=reduction),
        [RATES], lambda x: _poisson_ref(x, COUNTS, False, True, 1e-8)),
    "gaussian": (
        lambda x, v, reduction="none": F.gaussian_nll_loss(x, _t(Y), v, reduction=reduction),
        [X, VAR], lambda x, v: _gaussian_ref(x, Y, v, False, 1e-6)),
    "gaussian_full_row_variance": (
        lambda x, v, reduction="none": F.gaussian_nll_loss(x, _t(Y), v, full=True,
                                                           reduction=reduction),
        [X, VAR_ROW], lambda x, v: _gaussian_ref(x, Y, v, True, 1e-6)),
}


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_numpy(case, reduction):
    fn, arrays, ref = CASES[case]
    out = fn(*[_t(a) for a in arrays], reduction=reduction).numpy()
    expected = _reduce(ref(*arrays), reduction)
    assert out.shape == np.shape(expected)
    np.testing.assert_allclose(out, expected, rtol=1e-10, atol=1e-12)


def test_references_are_not_trivial():
    # the hinges are active for some samples and inactive for others, so both sides are tested
    for case in ("margin_ranking", "cosine_embedding", "hinge_embedding", "triplet"):
        _, arrays, ref = CASES[case]
        loss = ref(*arrays)
        assert (loss > 0).any() and (loss == 0).any(), case
    assert (COUNTS > 1).any() and (COUNTS <= 1).any()


@pytest.mark.parametrize("case", sorted(CASES))
def test_gradient_matches_finite_differences(case):
    fn, arrays, _ = CASES[case]
    check_grad(fn, *arrays)


@pytest.mark.parametrize("reduction", ["none", "mean"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_to_static_matches_eager(case, reduction):
    fn, arrays, _ = CASES[case]

    def model(*xs):
        return fn(*xs, reduction=reduction)

    eager = model(*[_t(a) for a in arrays]).numpy()
    static = paddle.jit.to_static(model, full_graph=True)(*[_t(a) for a in arrays]).numpy()
    np.testing.assert_allclose(static, eager, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("case", sorted(CASES))
def test_static_program_matches_eager(case):
    fn, arrays, ref = CASES[case]
    out = run_static(lambda *xs: fn(*xs, reduction="sum"), *arrays)
    np.testing.assert_allclose(out, ref(*arrays).sum(), rtol=1e-10)


def test_layers_match_functional():
    nn = paddle.nn
    x, y, z = _t(X), _t(Y), _t(Z)
    pairs = [
        (nn.MarginRankingLoss(0.2, "sum")(_t(VEC), _t(VEC2), _t(SIGNS)),
         F.margin_ranking_loss(_t(VEC), _t(VEC2), _t(SIGNS), margin=0.2, reduction="sum")),
        (nn.CosineEmbeddingLoss(margin=0.5)(x, y, _t(SIGNS)),
         F.cosine_embedding_loss(x, y, _t(SIGNS), margin=0.5)),
        (nn.HingeEmbeddingLoss(reduction="none")(x, _t(np.sign(Y))),
         F.hinge_embedding_loss(x, _t(np.sign(Y)), reduction="none")),
        (nn.TripletMarginLoss(margin=1.5, p=1.0, swap=True)(x, y, z),
         F.triplet_margin_loss(x, y, z, margin=1.5, p=1.0, swap=True)),
        (nn.PoissonNLLLoss(log_input=False, full=True)(_t(RATES), _t(COUNTS)),
         F.poisson_nll_loss(_t(RATES), _t(COUNTS), log_input=False, full=True)),
        (nn.GaussianNLLLoss(full=True, reduction="sum")(x, y, _t(VAR)),
         F.gaussian_nll_loss(x, y, _t(VAR), full=True, reduction="sum")),
    ]
    for layer_out, functional_out in pairs:
        np.testing.assert_allclose(layer_out.numpy(), functional_out.numpy(), rtol=0, atol=0)


def test_gaussian_variance_is_floored_at_epsilon():
    var = np.array([[0.0, 1e-9, 2.0]])
    out = F.gaussian_nll_loss(_t(np.zeros((1, 3))), _t(np.ones((1, 3))), _t(var), epsilon=1e-3,
                              reduction="none").numpy()
    np.testing.assert_allclose(out, _gaussian_ref(np.zeros((1, 3)), np.ones((1, 3)), var, False, 1e-3))
    assert np.isfinite(out).all()


def test_bad_arguments_are_refused():
    x = _t(X)
    with pytest.raises(ValueError, match="reduction"):
        F.margin_ranking_loss(_t(VEC), _t(VEC2), _t(SIGNS), reduction="avg")
    with pytest.raises(ValueError, match="reduction"):
        paddle.nn.TripletMarginLoss(reduction="max")(x, x, x)
    with pytest.raises(ValueError, match="variance"):
        F.gaussian_nll_loss(x, x, _t(np.ones((N, 2))))
    with pytest.raises(ValueError, match="rank"):
        F.cosine_embedding_loss(_t(np.ones((2, 2, 2))), _t(np.ones((2, 2, 2))), _t(np.ones(2)))
    with pytest.raises(ValueError, match="margin"):
        F.cosine_embedding_loss(x, x, _t(SIGNS), margin=2.0)
    with pytest.raises(ValueError, match="p must be positive"):
        F.triplet_margin_loss(x, x, x, p=0)
    with pytest.raises(TypeError, match="float"):
        F.hinge_embedding_loss(_t(np.ones(3, dtype="int64")), _t(np.ones(3)))


# ----------------------------------------------------------------------------- CTC
T, B, K = 5, 3, 3          # time steps, batch, classes (blank included)
CTC_SCORES = randn(9, T, B, K, dtype="float64")
CTC_LABELS = np.array([[1, 1], [2, 0], [1, 2]], dtype="int32")   # a repeat, a short label
CTC_LABEL_LEN = np.array([2, 1, 2], dtype="int64")
CTC_INPUT_LEN = np.array([5, 3, 4], dtype="int64")


def _ctc_brute_force(scores, labels, input_len, label_len, blank=0):
    """-log of the summed probability of every alignment (enumerated) that collapses to the label."""
    import itertools
    losses = []
    for b in range(scores.shape[1]):
        x = scores[: input_len[b], b]
        logp = x - np.log(np.exp(x).sum(-1, keepdims=True))
        target = list(labels[b, : label_len[b]])
        total = 0.0
        for path in itertools.product(range(scores.shape[2]), repeat=int(input_len[b])):
            collapsed = [c for i, c in enumerate(path) if c != blank and (i == 0 or c != path[i - 1])]
            if collapsed == target:
                total += np.exp(sum(logp[i, c] for i, c in enumerate(path)))
        losses.append(-np.log(total))
    return np.array(losses)


def _ctc(scores, reduction="none", blank=0, labels=CTC_LABELS, norm_by_times=False):
    return F.ctc_loss(scores, _t(labels), _t(CTC_INPUT_LEN), _t(CTC_LABEL_LEN), blank=blank,
                      reduction=reduction, norm_by_times=norm_by_times)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_ctc_matches_brute_force(reduction):
    ref = _ctc_brute_force(CTC_SCORES, CTC_LABELS, CTC_INPUT_LEN, CTC_LABEL_LEN)
    expected = {"none": ref, "mean": (ref / CTC_LABEL_LEN).mean(), "sum": ref.sum()}[reduction]
    out = _ctc(_t(CTC_SCORES), reduction).numpy()
    assert out.shape == np.shape(expected)
    np.testing.assert_allclose(out, expected, rtol=1e-10)


def test_ctc_with_another_blank_index():
    labels = np.array([[0, 0], [1, 2], [0, 1]], dtype="int32")      # blank is 2 here
    ref = _ctc_brute_force(CTC_SCORES, labels, CTC_INPUT_LEN, CTC_LABEL_LEN, blank=2)
    np.testing.assert_allclose(_ctc(_t(CTC_SCORES), blank=2, labels=labels).numpy(), ref,
                               rtol=1e-10)


def test_ctc_gradient_matches_finite_differences():
    check_grad(_ctc, CTC_SCORES)


def test_ctc_norm_by_times_scales_the_gradient_only():
    x = _t(CTC_SCORES)
    np.testing.assert_allclose(_ctc(x, norm_by_times=True).numpy(), _ctc(x).numpy(), rtol=1e-12)
    grads = []
    for norm in (False, True):
        xs = paddle.to_tensor(CTC_SCORES, stop_gradient=False)
        grads.append(paddle.grad(_ctc(xs, "sum", norm_by_times=norm), [xs])[0].numpy())
    np.testing.assert_allclose(grads[1], grads[0] / CTC_INPUT_LEN[None, :, None], rtol=1e-12)


@pytest.mark.parametrize("reduction", ["none", "mean"])
def test_ctc_to_static_and_layer_match_eager(reduction):
    eager = _ctc(_t(CTC_SCORES), reduction).numpy()
    static = paddle.jit.to_static(lambda s: _ctc(s, reduction), full_graph=True)(_t(CTC_SCORES))
    np.testing.assert_allclose(static.numpy(), eager, rtol=1e-12)
    program = run_static(lambda s: _ctc(s, reduction), CTC_SCORES)
    np.testing.assert_allclose(program, eager, rtol=1e-12)
    layer = paddle.nn.CTCLoss(reduction=reduction)(_t(CTC_SCORES), _t(CTC_LABELS),
                                                  _t(CTC_INPUT_LEN), _t(CTC_LABEL_LEN))
    np.testing.assert_allclose(layer.numpy(), eager, rtol=0, atol=0)


def test_ctc_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="log_probs"):
        F.ctc_loss(_t(CTC_SCORES[0]), _t(CTC_LABELS), _t(CTC_INPUT_LEN), _t(CTC_LABEL_LEN))
    with pytest.raises(ValueError, match="blank"):
        _ctc(_t(CTC_SCORES), blank=K)
    with pytest.raises(ValueError, match="reduction"):
        _ctc(_t(CTC_SCORES), reduction="batchmean")


# ----------------------------------------------------------------------------- ONNX
def test_onnx_export_matches_eager(tmp_path):
    from dy2st.static import InputSpec
    from tests.support import onnx_outputs

    signs = SIGNS.astype("float32")

    class AllLosses(paddle.nn.Layer):
        def forward(self, x, y, z, scores):
            rates = paddle.exp(x)
            return (F.margin_ranking_loss(x[:, 0], y[:, 0], paddle.to_tensor(signs), 0.3, "none"),
                    F.cosine_embedding_loss(x, y, paddle.to_tensor(signs), 0.1, "none"),
                    F.hinge_embedding_loss(x, paddle.sign(y), 0.5, "none"),
                    F.triplet_margin_loss(x, y, z, margin=0.5, swap=True, reduction="none"),
                    F.poisson_nll_loss(rates, paddle.abs(y), log_input=False, full=True,
                                       reduction="sum"),
                    F.gaussian_nll_loss(x, y, rates, reduction="mean"),
                    F.ctc_loss(scores, paddle.to_tensor(CTC_LABELS), paddle.to_tensor(CTC_INPUT_LEN),
                               paddle.to_tensor(CTC_LABEL_LEN), reduction="none"))

    model = AllLosses()
    path = str(tmp_path / "losses")
    arrays = [X.astype("float32"), Y.astype("float32"), Z.astype("float32"),
              CTC_SCORES.astype("float32")]
    paddle.onnx.export(model, path, input_spec=[InputSpec(list(a.shape), "float32") for a in arrays])
    got = onnx_outputs(path + ".onnx", *arrays)
    want = model(*[_t(a) for a in arrays])
    assert len(got) == len(want) == 7
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w.numpy(), rtol=1e-5, atol=1e-5)
