"""The added activations against numpy written by hand, eager and static (unknown batch),
layers against functional, and gradients against finite differences."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st import nn
from dy2st.nn import functional as F
from tests.support import check_grad, run_static

RNG = np.random.default_rng(8)


def away_from_kinks(*shape):
    """Values at least 0.05 away from 0, +-0.5 and +-1 (the kinks of the piecewise functions)."""
    x = RNG.uniform(-3, 3, shape)
    for k in (-1.0, -0.5, 0.0, 0.5, 1.0):
        near = np.abs(x - k) < 0.05
        x[near] = k + 0.1
    return x


def sig(x):
    return 1 / (1 + np.exp(-x))


SELU_SCALE, SELU_ALPHA = 1.0507009873554804934193349852946, 1.6732632423543772848170429916717

CASES = [
    ("softsign", F.softsign, lambda x: x / (1 + np.abs(x))),
    ("log_sigmoid", F.log_sigmoid, lambda x: np.log(sig(x))),
    ("hardshrink", F.hardshrink, lambda x: np.where(np.abs(x) > 0.5, x, 0)),
    ("hardshrink_t", lambda x: F.hardshrink(x, 1.0), lambda x: np.where(np.abs(x) > 1.0, x, 0)),
    ("softshrink", F.softshrink, lambda x: np.sign(x) * np.maximum(np.abs(x) - 0.5, 0)),
    ("tanhshrink", F.tanhshrink, lambda x: x - np.tanh(x)),
    ("thresholded_relu", F.thresholded_relu, lambda x: np.where(x > 1.0, x, 0)),
    ("thresholded_relu_v", lambda x: F.thresholded_relu(x, 0.5, 0.25), lambda x: np.where(x > 0.5, x, 0.25)),
    ("selu", F.selu, lambda x: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * (np.exp(x) - 1))),
    ("celu", lambda x: F.celu(x, 0.5), lambda x: np.maximum(x, 0) + np.minimum(0, 0.5 * (np.exp(x / 0.5) - 1))),
    ("glu", F.glu, lambda x: x[..., :2] * sig(x[..., 2:])),
    ("glu_axis1", lambda x: F.glu(x, axis=1), lambda x: x[:, :2] * sig(x[:, 2:])),
    ("prelu", lambda x: F.prelu(x, paddle.to_tensor(np.array([0.1, 0.2, 0.3, 0.4])), "NLC"),
     lambda x: np.where(x > 0, x, x * np.array([0.1, 0.2, 0.3, 0.4]))),
    ("rrelu_eval", lambda x: F.rrelu(x, 0.1, 0.3, training=False), lambda x: np.where(x > 0, x, 0.2 * x)),
    ("maxout", lambda x: F.maxout(x, 2, axis=-1), lambda x: x.reshape(x.shape[0], 3, 2, 2).max(-1)),
]


@pytest.mark.parametrize("name, fn, ref", CASES, ids=[c[0] for c in CASES])
def test_values_eager_and_static(name, fn, ref):
    x = away_from_kinks(3, 4).astype("float32")
    if name == "maxout":
        x = away_from_kinks(2, 3, 4).astype("float32")
    eager = fn(paddle.to_tensor(x)).numpy()
    assert eager.dtype == np.float32
    np.testing.assert_allclose(eager, ref(x.astype(np.float64)), rtol=1e-5, atol=1e-6)
    static = run_static(fn, x, shapes=[[None] + list(x.shape[1:])])
    np.testing.assert_allclose(static, eager, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name, fn, ref", CASES, ids=[c[0] for c in CASES])
def test_gradients_match_finite_differences(name, fn, ref):
    x = away_from_kinks(2, 3, 4) if name == "maxout" else away_from_kinks(3, 4)
    check_grad(fn, x)


def test_prelu_gradient_in_weight_and_channel_first():
    x, w = away_from_kinks(2, 3, 2), np.array([0.1, 0.2, 0.3])
    check_grad(lambda x, w: F.prelu(x, w), x, w)
    out = F.prelu(paddle.to_tensor(x), paddle.to_tensor(w)).numpy()
    np.testing.assert_allclose(out, np.where(x > 0, x, x * w.reshape(1, 3, 1)))


def test_rrelu_training_slopes_lie_between_bounds():
    x = -np.abs(away_from_kinks(50, 4)).astype("float32")
    slope = F.rrelu(paddle.to_tensor(x), 0.1, 0.3).numpy() / x
    assert slope.min() >= 0.1 and slope.max() <= 0.3 and slope.std() > 0.01


def test_gumbel_softmax_rows_are_distributions_and_hard_is_one_hot():
    x = paddle.to_tensor(RNG.standard_normal((5, 6)).astype("float32"))
    soft = F.gumbel_softmax(x, temperature=0.5).numpy()
    np.testing.assert_allclose(soft.sum(-1), np.ones(5), rtol=1e-5)
    hard = F.gumbel_softmax(x, hard=True).numpy()
    assert set(np.unique(hard)) <= {0.0, 1.0} and (hard.sum(-1) == 1).all()


def test_errors_name_the_problem():
    with pytest.raises(ValueError, match="even"):
        F.glu(paddle.zeros([2, 3]))
    with pytest.raises(ValueError, match="divisible"):
        F.maxout(paddle.zeros([1, 3, 2, 2]), 2)
    with pytest.raises(ValueError, match="lower"):
        F.rrelu(paddle.zeros([2]), 0.5, 0.2)
    with pytest.raises(ValueError, match="channels"):
        F.prelu(paddle.zeros([1, 3, 2]), paddle.zeros([4]))


@pytest.mark.parametrize("layer, fn", [
    (nn.CELU(0.7), lambda x: F.celu(x, 0.7)),
    (nn.GLU(1), lambda x: F.glu(x, 1)),
    (nn.Hardshrink(0.3), lambda x: F.hardshrink(x, 0.3)),
    (nn.Softshrink(0.3), lambda x: F.softshrink(x, 0.3)),
    (nn.Hardsigmoid(), F.hardsigmoid),
    (nn.Hardtanh(-0.5, 0.5), lambda x: F.hardtanh(x, -0.5, 0.5)),
    (nn.LogSigmoid(), F.log_sigmoid),
    (nn.Maxout(2), lambda x: F.maxout(x, 2)),
    (nn.SELU(), F.selu),
    (nn.Softsign(), F.softsign),
    (nn.Swish(), F.swish),
    (nn.SiLU(), F.silu),
    (nn.Tanhshrink(), F.tanhshrink),
    (nn.ThresholdedReLU(0.2, 0.1), lambda x: F.thresholded_relu(x, 0.2, 0.1)),
    (nn.Softmax2D(), lambda x: F.softmax(x, axis=-3)),
])
def test_layers_match_functional(layer, fn):
    x = paddle.to_tensor(away_from_kinks(2, 4, 3, 3).astype("float32"))
    np.testing.assert_array_equal(layer(x).numpy(), fn(x).numpy())


def test_prelu_and_rrelu_layers():
    layer = nn.PReLU(3, init=0.1)
    assert layer._weight.shape == [3] and np.allclose(layer._weight.numpy(), 0.1)
    assert list(layer.state_dict()) == ["_weight"]
    x = away_from_kinks(2, 3, 4).astype("float32")
    np.testing.assert_allclose(layer(paddle.to_tensor(x)).numpy(), np.where(x > 0, x, 0.1 * x), rtol=1e-6)
    rr = nn.RReLU(0.1, 0.3)
    rr.eval()
    np.testing.assert_allclose(rr(paddle.to_tensor(x)).numpy(), np.where(x > 0, x, 0.2 * x), rtol=1e-6)


@pytest.mark.parametrize("fn, ref", [
    (F.relu_, lambda x: np.maximum(x, 0)),
    (F.elu_, lambda x: np.where(x > 0, x, np.expm1(x))),
    (F.leaky_relu_, lambda x: np.where(x > 0, x, 0.01 * x)),
    (F.hardtanh_, lambda x: np.clip(x, -1, 1)),
    (F.softmax_, lambda x: np.exp(x) / np.exp(x).sum(-1, keepdims=True)),
    (F.tanh_, np.tanh),
    (F.thresholded_relu_, lambda x: np.where(x > 1, x, 0)),
])
def test_in_place_forms_change_the_tensor_eager_and_static(fn, ref):
    x = away_from_kinks(3, 4).astype("float32")

    def f(t):
        y = t * 1.0
        fn(y)
        return y

    t = paddle.to_tensor(x)
    assert fn(t) is t
    np.testing.assert_allclose(t.numpy(), ref(x), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(paddle.jit.to_static(f)(paddle.to_tensor(x)).numpy(), ref(x), rtol=1e-5, atol=1e-6)


def test_in_place_form_refuses_a_tensor_that_needs_a_gradient():
    t = paddle.to_tensor([1.0, -1.0])
    t.stop_gradient = False
    with pytest.raises(RuntimeError, match="in place"):
        F.relu_(t)
