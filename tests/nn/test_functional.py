"""nn.functional: eager results against numpy references, static programs against eager."""
import math

import numpy as np
import pytest

import dy2st as paddle
import dy2st.nn.functional as F

RNG = np.random.default_rng(7)
X = RNG.standard_normal((5, 6)).astype("float32") * 3
f32 = np.float32


def _erf(a):
    return np.vectorize(math.erf)(a.astype(np.float64))


# ----------------------------------------------------------------------------- activations
@pytest.mark.parametrize("fn, ref", [
    (F.relu, lambda x: np.maximum(x, 0)),
    (F.relu6, lambda x: np.clip(x, 0, 6)),
    (lambda x: F.leaky_relu(x, 0.2), lambda x: np.where(x >= 0, x, 0.2 * x)),
    (lambda x: F.elu(x, 0.5), lambda x: np.where(x > 0, x, 0.5 * (np.exp(x) - 1))),
    (F.gelu, lambda x: 0.5 * x * (1 + _erf(x / math.sqrt(2)))),
    (lambda x: F.gelu(x, approximate=True),
     lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x.astype(np.float64) ** 3)))),
    (F.silu, lambda x: x / (1 + np.exp(-x.astype(np.float64)))),
    (F.sigmoid, lambda x: 1 / (1 + np.exp(-x.astype(np.float64)))),
    (F.tanh, np.tanh),
    (F.softplus, lambda x: np.log1p(np.exp(x.astype(np.float64)))),
    (lambda x: F.softplus(x, beta=2.0, threshold=1.0),
     lambda x: np.where(2 * x > 1.0, x, np.log1p(np.exp(2.0 * x.astype(np.float64))) / 2)),
    (F.hardswish, lambda x: x * np.clip(x + 3, 0, 6) / 6),
    (F.mish, lambda x: x * np.tanh(np.log1p(np.exp(x.astype(np.float64))))),
])
def test_activation_matches_numpy_eager_and_static(check, fn, ref):
    check(fn, lambda x: ref(x).astype(f32), X, rtol=2e-6, atol=1e-6)


def test_gelu_exact_and_approximate_differ_but_are_close():
    x = paddle.to_tensor(X)
    exact, approx = F.gelu(x).numpy(), F.gelu(x, approximate=True).numpy()
    assert not np.array_equal(exact, approx)
    np.testing.assert_allclose(exact, approx, atol=2e-3)


def test_gelu_float64_is_exact_to_double_precision():
    x = np.linspace(-6, 6, 1001)
    out = F.gelu(paddle.to_tensor(x)).numpy()
    assert out.dtype == np.float64
    np.testing.assert_allclose(out, 0.5 * x * (1 + _erf(x / math.sqrt(2))), rtol=1e-13, atol=1e-15)


def _np_softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_softmax_and_log_softmax(check, axis):
    out = check(lambda x: F.softmax(x, axis=axis), lambda x: _np_softmax(x, axis).astype(f32), X)
    np.testing.assert_allclose(out.sum(axis=axis), 1.0, rtol=1e-6)
    check(lambda x: F.log_softmax(x, axis=axis),
          lambda x: np.log(_np_softmax(x.astype(np.float64), axis)).astype(f32), X, rtol=1e-5, atol=1e-6)


def test_softmax_is_stable_for_huge_logits():
    x = paddle.to_tensor(np.array([[1000.0, 1001.0, -1000.0]], dtype="float32"))
    out = F.softmax(x).numpy()
    assert np.isfinite(out).all()
    np.testing.assert_allclose(out, [[1 / (1 + math.e), math.e / (1 + math.e), 0.0]], rtol=1e-6)
    logp = F.log_softmax(x).numpy()
    assert np.isfinite(logp).all()
    np.testing.assert_allclose(logp[0, 1], -math.log1p(math.exp(-1)), rtol=1e-6)


def test_softmax_rejects_bad_axis():
    with pytest.raises(ValueError, match="axis 2"):
        F.softmax(paddle.to_tensor(X), axis=2)


def test_softmax_dtype_argument_casts_first():
    out = F.softmax(paddle.to_tensor(X), dtype="float64")
    assert out.dtype == paddle.float64


# ----------------------------------------------------------------------------- linear
def test_linear_with_and_without_bias(check):
    w = RNG.standard_normal((6, 3)).astype(f32)
    b = RNG.standard_normal(3).astype(f32)
    check(lambda x, w, b: F.linear(x, w, b), lambda x, w, b: x @ w + b, X, w, b, rtol=1e-5)
    check(lambda x, w: F.linear(x, w), lambda x, w: x @ w, X, w, rtol=1e-5)


def test_linear_batched_3d_input(check):
    x = RNG.standard_normal((2, 4, 6)).astype(f32)
    w = RNG.standard_normal((6, 3)).astype(f32)
    check(lambda x, w: F.linear(x, w), lambda x, w: x @ w, x, w, rtol=1e-5)


def test_linear_shape_mismatch_message(run_static):
    w = np.zeros((5, 3), f32)
    with pytest.raises(ValueError, match=r"last dim is 6 .*\[6, out_features\]"):
        run_static(lambda x, w: F.linear(x, w), X, w, shapes=[[None, 6], [5, 3]])


# ----------------------------------------------------------------------------- dropout
def test_dropout_eval_is_identity_and_downscale_in_infer_scales():
    x = paddle.to_tensor(X)
    np.testing.assert_array_equal(F.dropout(x, 0.5, training=False).numpy(), X)
    np.testing.assert_allclose(F.dropout(x, 0.25, training=False, mode="downscale_in_infer").numpy(),
                               X * 0.75, rtol=1e-6)


def test_dropout_training_zeroes_and_upscales():
    x = paddle.ones([200, 50])
    out = F.dropout(x, p=0.3).numpy()
    kept = out != 0
    np.testing.assert_allclose(out[kept], 1 / 0.7, rtol=1e-6)
    assert abs(1 - kept.mean() - 0.3) < 0.03
    assert np.array_equal(F.dropout(x, p=0.0).numpy(), x.numpy())
    assert not F.dropout(x, p=1.0).numpy().any()


def test_dropout_is_deterministic_under_seed():
    x = paddle.ones([10, 10])
    paddle.seed(3)
    a = F.dropout(x, 0.5).numpy()
    b = F.dropout(x, 0.5).numpy()
    paddle.seed(3)
    c = F.dropout(x, 0.5).numpy()
    assert np.array_equal(a, c)
    assert not np.array_equal(a, b)


def test_dropout_axis_drops_whole_rows():
    out = F.dropout(paddle.ones([40, 8]), p=0.5, axis=0).numpy()
    for row in out:
        assert len(set(row.tolist())) == 1     # a row is all zero or all 2.0
    assert {0.0, 2.0} == set(out[:, 0].tolist())


def test_dropout_static_draws_a_new_mask_each_run_and_follows_seed(run_static):
    x = np.ones((30, 30), f32)
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        v = paddle.static.data("x", [None, 30])
        out = F.dropout(v, 0.5)
    exe = paddle.static.Executor()
    paddle.seed(11)
    a, = exe.run(main, feed={"x": x}, fetch_list=[out])
    b, = exe.run(main, feed={"x": x}, fetch_list=[out])
    paddle.seed(11)
    c, = exe.run(main, feed={"x": x}, fetch_list=[out])
    assert set(np.unique(a).tolist()) == {0.0, 2.0}
    assert not np.array_equal(a, b)
    assert np.array_equal(a, c)


def test_dropout_rejects_bad_p():
    with pytest.raises(ValueError, match="p must be"):
        F.dropout(paddle.to_tensor(X), p=1.5)


# ----------------------------------------------------------------------------- embedding, one_hot
def test_embedding_lookup_and_padding_idx(check):
    w = RNG.standard_normal((10, 4)).astype(f32)
    ids = np.array([[1, 2, 0], [9, 0, 3]], dtype="int64")
    check(lambda i, w: F.embedding(i, w), lambda i, w: w[i], ids, w)

    def ref(i, w):
        out = w[i].copy()
        out[i == 0] = 0
        return out
    out = check(lambda i, w: F.embedding(i, w, padding_idx=0), ref, ids, w)
    assert not out[0, 2].any() and out[0, 0].any()
    # a negative padding_idx counts from the end
    out = F.embedding(paddle.to_tensor(ids), paddle.to_tensor(w), padding_idx=-1).numpy()
    assert not out[1, 0].any()


def test_embedding_out_of_range_id_raises():
    w = paddle.to_tensor(np.zeros((3, 2), f32))
    with pytest.raises(IndexError, match=r"\[0, 3\)"):
        F.embedding(paddle.to_tensor(np.array([0, 3])), w)


def test_one_hot(check):
    ids = np.array([0, 3, 1], dtype="int64")
    out = check(lambda i: F.one_hot(i, 4), lambda i: np.eye(4, dtype=f32)[i], ids)
    assert out.shape == (3, 4)
    with pytest.raises(IndexError):
        F.one_hot(paddle.to_tensor(np.array([4])), 4)


# ----------------------------------------------------------------------------- norms
def _np_layer_norm(x, n_axes, w=None, b=None, eps=1e-5):
    axes = tuple(range(x.ndim - n_axes, x.ndim))
    x64 = x.astype(np.float64)
    out = (x64 - x64.mean(axes, keepdims=True)) / np.sqrt(x64.var(axes, keepdims=True) + eps)
    tail = x.shape[x.ndim - n_axes:]
    if w is not None:
        out = out * w.reshape(tail)
    if b is not None:
        out = out + b.reshape(tail)
    return out.astype(x.dtype)


def test_layer_norm_plain_and_affine(check):
    check(lambda x: F.layer_norm(x, 6), lambda x: _np_layer_norm(x, 1), X, rtol=1e-5, atol=1e-6)
    w, b = RNG.standard_normal(6).astype(f32), RNG.standard_normal(6).astype(f32)
    check(lambda x, w, b: F.layer_norm(x, [6], w, b), lambda x, w, b: _np_layer_norm(x, 1, w, b),
          X, w, b, rtol=1e-5, atol=1e-6)


def test_layer_norm_over_two_dims_with_flat_weight(check):
    x = RNG.standard_normal((3, 2, 4)).astype(f32)
    w = RNG.standard_normal(8).astype(f32)
    check(lambda x: F.layer_norm(x, [2, 4], paddle.to_tensor(w)),
          lambda x: _np_layer_norm(x, 2, w), x, rtol=1e-5, atol=1e-6)


def test_layer_norm_shape_mismatch_message():
    with pytest.raises(ValueError, match=r"normalized_shape \[5\] does not match"):
        F.layer_norm(paddle.to_tensor(X), 5)


def test_normalize(check):
    check(lambda x: F.normalize(x), lambda x: x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12),
          X, rtol=1e-6)
    check(lambda x: F.normalize(x, p=1, axis=0),
          lambda x: x / np.maximum(np.abs(x).sum(axis=0, keepdims=True), 1e-12), X, rtol=1e-6)
    zero = F.normalize(paddle.zeros([2, 3])).numpy()
    assert np.array_equal(zero, np.zeros((2, 3)))      # epsilon keeps 0/0 out


def test_batch_norm_eval_uses_running_stats(check):
    mean, var = RNG.standard_normal(6).astype(f32), RNG.uniform(0.5, 2, 6).astype(f32)
    check(lambda x, m, v: F.batch_norm(x, m, v), lambda x, m, v: ((x - m) / np.sqrt(v + 1e-5)).astype(f32),
          X, mean, var, rtol=1e-5)


def test_batch_norm_training_uses_batch_stats_and_updates_running_stats():
    rm, rv = paddle.zeros([6]), paddle.ones([6])
    out = F.batch_norm(paddle.to_tensor(X), rm, rv, training=True, momentum=0.9).numpy()
    np.testing.assert_allclose(out, (X - X.mean(0)) / np.sqrt(X.var(0) + 1e-5), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(rm.numpy(), 0.1 * X.mean(0), rtol=1e-5)
    np.testing.assert_allclose(rv.numpy(), 0.9 + 0.1 * X.var(0), rtol=1e-5)


# ----------------------------------------------------------------------------- pad
@pytest.mark.parametrize("mode, np_mode", [("constant", "constant"), ("reflect", "reflect"),
                                           ("replicate", "edge"), ("circular", "wrap")])
def test_pad_spatial_modes_nchw(check, mode, np_mode):
    x = RNG.standard_normal((2, 3, 4, 5)).astype(f32)
    # Paddle's order: [left, right, top, bottom] pads W first, then H
    widths = ((0, 0), (0, 0), (2, 0), (1, 3))
    check(lambda x: F.pad(x, [1, 3, 2, 0], mode=mode),
          lambda x: np.pad(x, widths, mode=np_mode), x)


def test_pad_all_dims_constant_value(check):
    out = check(lambda x: F.pad(x, [1, 0, 0, 2], value=9.0),
                lambda x: np.pad(x, ((1, 0), (0, 2)), constant_values=9.0), X)
    assert out.shape == (6, 8) and out[0, 0] == 9.0


def test_pad_nhwc_pads_spatial_dims():
    x = paddle.ones([1, 2, 2, 3])
    out = F.pad(x, [1, 1, 0, 0], data_format="NHWC")
    assert out.shape == [1, 2, 4, 3]


def test_pad_rejects_odd_length():
    with pytest.raises(ValueError, match="even length"):
        F.pad(paddle.to_tensor(X), [1, 2, 3])


# ----------------------------------------------------------------------------- losses
LOGITS = RNG.standard_normal((4, 5)).astype(f32)
LABELS = np.array([0, 3, 4, 1], dtype="int64")


def _np_ce(logits, labels):
    logp = np.log(_np_softmax(logits.astype(np.float64), -1))
    return -logp[np.arange(len(labels)), labels.reshape(-1)]


@pytest.mark.parametrize("label_shape", [(4,), (4, 1)])
def test_cross_entropy_hard_labels(check, label_shape):
    labels = LABELS.reshape(label_shape)
    check(lambda x, y: F.cross_entropy(x, y), lambda x, y: np.float32(_np_ce(x, y).mean()),
          LOGITS, labels, rtol=1e-5)
    check(lambda x, y: F.cross_entropy(x, y, reduction="sum"), lambda x, y: np.float32(_np_ce(x, y).sum()),
          LOGITS, labels, rtol=1e-5)
    out = check(lambda x, y: F.cross_entropy(x, y, reduction="none"),
                lambda x, y: _np_ce(x, y).reshape(4, 1).astype(f32), LOGITS, labels, rtol=1e-5)
    assert out.shape == (4, 1)


def test_cross_entropy_weight_and_ignore_index():
    w = np.array([1.0, 2.0, 0.5, 1.0, 3.0], f32)
    labels = np.array([0, 3, -100, 4], dtype="int64")
    loss = F.cross_entropy(paddle.to_tensor(LOGITS), paddle.to_tensor(labels), weight=paddle.to_tensor(w)).numpy()
    keep = labels != -100
    per = _np_ce(LOGITS[keep], labels[keep]) * w[labels[keep]]
    np.testing.assert_allclose(loss, per.sum() / w[labels[keep]].sum(), rtol=1e-5)


def test_cross_entropy_soft_labels_and_no_softmax(check):
    soft = _np_softmax(RNG.standard_normal((4, 5)), -1).astype(f32)
    ref = lambda x, y: np.float32(-(y * np.log(_np_softmax(x.astype(np.float64), -1))).sum(-1).mean())
    check(lambda x, y: F.cross_entropy(x, y, soft_label=True), ref, LOGITS, soft, rtol=1e-5)
    probs = _np_softmax(LOGITS, -1).astype(f32)
    a = F.cross_entropy(paddle.to_tensor(probs), paddle.to_tensor(LABELS), use_softmax=False).numpy()
    np.testing.assert_allclose(a, _np_ce(LOGITS, LABELS).mean(), rtol=1e-5)


def test_cross_entropy_label_smoothing():
    eps = 0.1
    target = np.eye(5)[LABELS] * (1 - eps) + eps / 5
    logp = np.log(_np_softmax(LOGITS.astype(np.float64), -1))
    got = F.cross_entropy(paddle.to_tensor(LOGITS), paddle.to_tensor(LABELS), label_smoothing=eps).numpy()
    np.testing.assert_allclose(got, -(target * logp).sum(-1).mean(), rtol=1e-5)


def test_cross_entropy_errors():
    with pytest.raises(IndexError, match=r"\[0, 5\)"):
        F.cross_entropy(paddle.to_tensor(LOGITS), paddle.to_tensor(np.array([0, 5, 1, 1])))
    with pytest.raises(ValueError, match="reduction"):
        F.cross_entropy(paddle.to_tensor(LOGITS), paddle.to_tensor(LABELS), reduction="avg")


def test_nll_loss_matches_cross_entropy():
    logp = F.log_softmax(paddle.to_tensor(LOGITS))
    a = F.nll_loss(logp, paddle.to_tensor(LABELS)).numpy()
    np.testing.assert_allclose(a, _np_ce(LOGITS, LABELS).mean(), rtol=1e-5)
    assert F.nll_loss(logp, paddle.to_tensor(LABELS), reduction="none").shape == [4]


@pytest.mark.parametrize("reduction, red", [("mean", np.mean), ("sum", np.sum), ("none", lambda a: a)])
def test_mse_and_l1_loss(check, reduction, red):
    y = RNG.standard_normal(X.shape).astype(f32)
    check(lambda a, b: F.mse_loss(a, b, reduction), lambda a, b: np.asarray(red((a - b) ** 2), f32), X, y, rtol=1e-5)
    check(lambda a, b: F.l1_loss(a, b, reduction), lambda a, b: np.asarray(red(np.abs(a - b)), f32), X, y, rtol=1e-5)


def test_smooth_l1_loss():
    x, y = np.array([0.0, 0.5, 3.0], f32), np.zeros(3, f32)
    out = F.smooth_l1_loss(paddle.to_tensor(x), paddle.to_tensor(y), reduction="none").numpy()
    np.testing.assert_allclose(out, [0.0, 0.125, 2.5])


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int32"])
def test_softmax_keeps_the_formula_values_and_dtype_and_leaves_its_input(dtype):
    raw = np.random.default_rng(4).standard_normal([3, 5]) * 3
    x = raw.astype(dtype)
    before = x.copy()
    out = F.softmax(paddle.to_tensor(x), axis=1).numpy()
    shifted = x - np.max(x, axis=1, keepdims=True)
    e = np.exp(shifted)
    want = (e / np.sum(e, axis=1, keepdims=True)).astype(dtype if dtype.startswith("float") else f32)
    assert out.dtype == want.dtype
    if dtype in ("float32", "float64"):
        # exp(x) / sum exp(x) without the shift (no overflow possible here): within rounding
        np.testing.assert_allclose(out, want, rtol=8 * np.finfo(dtype).eps, atol=0)
    else:
        np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(x, before)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape, axis", [((3, 5), 1), ((4, 3, 6), 0), ((1, 1), -1), ((0, 4), -1),
                                         ((4, 1200), -1), ((6, 32, 24), -1), ((70, 64), 0),
                                         ((3, 50, 40), 1)])
def test_softmax_matches_float64_with_and_without_the_shift(dtype, shape, axis):
    # arrays of at least FAST_MIN_SIZE ordinary scores take exp(x) / sum exp(x) directly; large
    # ones (where exp would overflow), very negative ones (it would underflow), inf, NaN and
    # small arrays take the max-shifted formula
    rng = np.random.default_rng(5)
    for scale, shift in ((3.0, 0.0), (3.0, 500.0), (3.0, -500.0), (3.0, 85.0)):
        raw = rng.standard_normal(shape) * scale + shift
        x = raw.astype(dtype)
        y = x.astype(np.float64)
        e = np.exp(y - (y.max(axis=axis, keepdims=True) if y.size else 0))
        want = e / e.sum(axis=axis, keepdims=True)
        out = F.softmax(paddle.to_tensor(x), axis=axis).numpy()
        assert out.dtype == np.dtype(dtype) and out.shape == x.shape
        np.testing.assert_allclose(out, want, rtol=64 * np.finfo(dtype).eps, atol=1e-30)
    x = np.array([[0.0, np.inf, 1.0], [np.nan, 0.0, 1.0], [-np.inf, 0.0, 1.0]], dtype)
    out = F.softmax(paddle.to_tensor(x), axis=-1).numpy()
    with np.errstate(invalid="ignore"):
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        want = e / e.sum(axis=-1, keepdims=True)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_softmax_of_a_0d_tensor_is_one(dtype):
    out = F.softmax(paddle.to_tensor(np.array(1.5, dtype=dtype))).numpy()
    assert out.shape == () and out.dtype == np.dtype(dtype) and out == 1.0
