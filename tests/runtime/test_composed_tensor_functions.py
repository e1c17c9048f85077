"""The compositions added for API coverage (more_math, rearrange_extra, random_extra and the
framework helpers) against numpy written by hand, eagerly and in a static Program."""
import numpy as np
import pytest

import dy2st as paddle
from tests.support import check_grad, run_static

R = np.random.default_rng(5)
X = np.array([-2.5, -0.3, 0.0, 0.4, 3.0])
P = np.array([0.1, 0.35, 0.5, 0.8, 0.95])
A = R.standard_normal((3, 4, 5))
M = R.standard_normal((3, 4))

CASES = [
    ("acosh", paddle.acosh, [X + 4.0], np.arccosh),
    ("asinh", paddle.asinh, [X], np.arcsinh),
    ("atanh", paddle.atanh, [P - 0.5], np.arctanh),
    ("expm1", paddle.expm1, [X], np.expm1),
    ("deg2rad", paddle.deg2rad, [X], np.deg2rad),
    ("rad2deg", paddle.rad2deg, [X], np.rad2deg),
    ("trunc", paddle.trunc, [X], np.trunc),
    ("frac", paddle.frac, [X], lambda a: a - np.trunc(a)),
    ("logit", paddle.logit, [P], lambda p: np.log(p / (1 - p))),
    ("sinc", paddle.sinc, [X], np.sinc),
    ("logaddexp", paddle.logaddexp, [X, X[::-1] * 100], np.logaddexp),
    ("heaviside", paddle.heaviside, [X, np.full(5, 0.5)], np.heaviside),
    ("fmax", paddle.fmax, [np.array([1.0, np.nan, 3.0]), np.array([np.nan, 2.0, 4.0])], np.fmax),
    ("fmin", paddle.fmin, [np.array([1.0, np.nan, 3.0]), np.array([np.nan, 2.0, 4.0])], np.fmin),
    ("copysign", paddle.copysign, [X, np.array([-1.0, 1.0, -2.0, 0.0, -0.5])], np.copysign),
    ("nan_to_num", lambda a: paddle.nan_to_num(a, nan=1.5, posinf=9.0),
     [np.array([np.nan, np.inf, -np.inf, 2.0])],
     lambda a: np.nan_to_num(a, nan=1.5, posinf=9.0)),
    ("stanh", paddle.stanh, [X], lambda a: 1.7159 * np.tanh(0.67 * a)),
    ("ldexp", paddle.ldexp, [X, np.array([1, 2, 0, -1, 3])], np.ldexp),
    ("isposinf", paddle.isposinf, [np.array([np.inf, -np.inf, 1.0])], np.isposinf),
    ("tensor_split", lambda a: paddle.tensor_split(a, 3, axis=2), [A],
     lambda a: np.array_split(a, 3, axis=2)),
    ("tensor_split_indices", lambda a: paddle.tensor_split(a, [1, 3], axis=1), [A],
     lambda a: np.split(a, [1, 3], axis=1)),
    ("hsplit", lambda a: paddle.hsplit(a, 2), [A], lambda a: np.hsplit(a, 2)),
    ("rot90", lambda a: paddle.rot90(a, 1, [1, 2]), [A], lambda a: np.rot90(a, 1, (1, 2))),
    ("rot90_back", lambda a: paddle.rot90(a, -1, [0, 2]), [A], lambda a: np.rot90(a, -1, (0, 2))),
    ("take", lambda a, i: paddle.take(a, i), [A, np.array([[0, -1], [7, 59]])], np.take),
    ("tensordot", lambda a, b: paddle.tensordot(a, b, [[1, 2], [0, 1]]),
     [A, R.standard_normal((4, 5, 2))], lambda a, b: np.tensordot(a, b, [[1, 2], [0, 1]])),
    ("inner", paddle.inner, [M, M[:2]], np.inner),
    ("trace", lambda a: paddle.trace(a, 1), [M], lambda a: np.trace(a, 1)),
    ("diag_embed", paddle.diag_embed, [M], lambda a: np.stack([np.diag(r) for r in a])),
    ("diagflat", lambda a: paddle.diagflat(a, -1), [M[:2, :2]], lambda a: np.diagflat(a, -1)),
    ("vander", paddle.vander, [X[:3]], np.vander),
    ("unflatten", lambda a: paddle.unflatten(a, 2, [5, 1]), [A],
     lambda a: a.reshape(3, 4, 5, 1)),
    ("kthvalue", lambda a: paddle.kthvalue(a, 2, axis=1), [M],
     lambda a: [np.sort(a, 1)[:, 1], np.argsort(a, 1, kind="stable")[:, 1]]),
    ("trapezoid", paddle.trapezoid, [A],
     lambda a: ((a[..., 1:] + a[..., :-1]) / 2).sum(-1)),
    ("cumulative_trapezoid", lambda y, x: paddle.cumulative_trapezoid(y, x), [M, M[0] * 2],
     lambda y, x: np.cumsum((y[:, 1:] + y[:, :-1]) / 2 * np.diff(x), axis=1)),
]


def _list(out):
    return [np.asarray(o) for o in out] if isinstance(out, (list, tuple)) else [np.asarray(out)]


@pytest.mark.parametrize("name,fn,inputs,ref", CASES, ids=[c[0] for c in CASES])
def test_eager_and_static_match_numpy(name, fn, inputs, ref):
    want = _list(ref(*inputs))
    eager = fn(*map(paddle.to_tensor, inputs))
    eager = _list([t.numpy() for t in eager] if isinstance(eager, (list, tuple)) else eager.numpy())
    static = _list(run_static(fn, *[np.asarray(a) for a in inputs]))
    for got in (eager, static):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("fn,inputs", [
    (paddle.asinh, [X]), (paddle.logaddexp, [X, X[::-1]]), (paddle.sinc, [X + 0.1]),
    (lambda a: paddle.rot90(a, 1, [1, 2]), [A]), (lambda a, b: paddle.tensordot(a, b, 1),
                                                   [M, M.T]),
    (lambda a: paddle.trace(a), [M]), (paddle.diag_embed, [M]),
], ids=["asinh", "logaddexp", "sinc", "rot90", "tensordot", "trace", "diag_embed"])
def test_gradients(fn, inputs):
    check_grad(fn, *inputs)


def test_aliases_are_the_same_functions():
    assert paddle.absolute is paddle.abs and paddle.arctan2 is paddle.atan2
    assert paddle.true_divide is paddle.divide and paddle.reverse is paddle.flip


def test_random_sampling():
    paddle.seed(11)
    perm = paddle.randperm(8).numpy()
    assert sorted(perm.tolist()) == list(range(8)) and perm.dtype == np.int64
    picks = paddle.multinomial(paddle.to_tensor([[0.0, 1.0, 0.0], [0.5, 0.0, 0.5]]), 2).numpy()
    assert picks[0, 0] == 1 and sorted(picks[1].tolist()) == [0, 2]
    draws = paddle.multinomial(paddle.to_tensor([0.25, 0.75]), 4000, replacement=True).numpy()
    assert abs(draws.mean() - 0.75) < 0.03
    coin = paddle.bernoulli(paddle.to_tensor([0.0, 1.0, 0.0, 1.0])).numpy()
    np.testing.assert_array_equal(coin, [0, 1, 0, 1])
    ints = paddle.randint_like(paddle.zeros([1000], "int64"), 2, 5).numpy()
    assert ints.min() == 2 and ints.max() == 4
    x = paddle.zeros([2000])
    x.uniform_(0.0, 2.0)
    assert 0.0 <= x.numpy().min() and x.numpy().max() <= 2.0 and abs(x.numpy().mean() - 1) < 0.05
    x.exponential_(2.0)
    assert abs(x.numpy().mean() - 0.5) < 0.05


def test_rng_state_round_trip():
    state = paddle.get_rng_state()
    a = paddle.randn([3]).numpy()
    paddle.set_rng_state(state)
    np.testing.assert_array_equal(paddle.randn([3]).numpy(), a)


def test_framework_helpers():
    assert paddle.iinfo("int8").max == 127 and paddle.finfo("float32").eps == np.finfo("float32").eps
    assert paddle.get_device() == "cpu" and paddle.set_device("cpu") == paddle.CPUPlace()
    with pytest.raises(ValueError, match="CPU only"):
        paddle.set_device("gpu:0")
    assert paddle.in_dynamic_mode()
    t = paddle.ones([2, 0])
    assert bool(paddle.is_empty(t)) and paddle.is_floating_point(t) and not paddle.is_integer(t)
    w = paddle.create_parameter([2, 3], "float32")
    assert w.shape == [2, 3] and not w.stop_gradient
    reader = paddle.batch(lambda: iter(range(5)), 2)
    assert list(reader()) == [[0, 1], [2, 3], [4]]


def test_top_level_inplace_functions():
    x = paddle.to_tensor([1.0, 4.0])
    assert paddle.sqrt_(x) is x
    np.testing.assert_allclose(x.numpy(), [1.0, 2.0])
