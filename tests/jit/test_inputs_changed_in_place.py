"""A function traced whole that changes an input tensor in place (`x.add_(...)`, `x[0] = v`,
`y.clip_()`, under a tensor `if` too): the caller's tensor takes the new value, as in eager code,
with its gradient; a saved model, as Paddle's, computes the same outputs and writes nothing back."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec


def add_one(x):
    x.add_(paddle.ones_like(x))
    return x * 2.0


def set_first(x):
    x[0] = 5.0
    return x.sum()


def clip_second(x, y):
    y.clip_(-0.5, 0.5)
    return x + y


def scale_on_one_path(x):
    if x.sum() > 0:
        x.scale_(2.0)
    return x + 1.0


def add_in_a_tensor_loop(x):
    k = paddle.zeros([], "int64")
    while k < (x > 0).astype("int64").sum():       # 1 or 2 turns
        x.add_(paddle.ones_like(x))
        k += 1
    return x.sum()


def rebound_in_a_tensor_loop(x):
    # the loop renames x's object (a new value each turn) but changes no input in place
    k = paddle.zeros([], "int64")
    while k < 2:
        k += 1
        x = x + 1.0
    return x


CASES = [(add_one, 1), (set_first, 1), (clip_second, 2), (scale_on_one_path, 1),
         (add_in_a_tensor_loop, 1), (rebound_in_a_tensor_loop, 1)]
VALUES = [np.array([0.25, -1.0, 2.0], "float32"), np.array([-3.0, 0.5, 1.0], "float32")]


def _args(n, v):
    return [paddle.to_tensor(v * (k + 1)) for k in range(n)]


@pytest.mark.parametrize("full_graph", [True, False])
@pytest.mark.parametrize("fn, n", CASES, ids=[f.__name__ for f, _ in CASES])
def test_the_callers_tensor_sees_the_change(fn, n, full_graph):
    static = paddle.jit.to_static(fn, full_graph=full_graph)
    for v in VALUES + VALUES:           # both paths, and each entry reused
        eager_args, static_args = _args(n, v), _args(n, v)
        want = fn(*eager_args)
        got = static(*static_args)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
        for e, s in zip(eager_args, static_args):
            np.testing.assert_allclose(s.numpy(), e.numpy(), rtol=1e-6)


@pytest.mark.parametrize("full_graph", [True, False])
def test_gradients_flow_through_the_changed_input_as_in_eager(full_graph):
    def f(x):
        x.multiply_(x)
        return x.sum()
    static = paddle.jit.to_static(f, full_graph=full_graph)
    for v in VALUES:
        grads = []
        for fn in (f, static):
            w = paddle.to_tensor(v, stop_gradient=False)
            h = w * 1.0
            out = fn(h)
            (out + h.sum()).backward()       # h read after the call: its new value's gradient
            grads.append((out.numpy(), h.numpy(), w.grad.numpy()))
        for a, b in zip(*grads):
            np.testing.assert_allclose(b, a, rtol=1e-6)
        np.testing.assert_allclose(grads[1][2], 4.0 * v, rtol=1e-5)   # d(2 sum w^2)/dw


def test_a_layer_changing_its_input_writes_it_back():
    class Normalise(paddle.nn.Layer):
        def forward(self, x):
            x.subtract_(x.mean())
            return x.abs().sum()
    layer = paddle.jit.to_static(Normalise())
    x, want = paddle.to_tensor(VALUES[0]), VALUES[0] - VALUES[0].mean()
    layer(x)
    np.testing.assert_allclose(x.numpy(), want, rtol=1e-6)


def test_a_saved_model_gives_the_outputs_and_leaves_its_input(tmp_path):
    static = paddle.jit.to_static(add_one, input_spec=[InputSpec([None], "float32")])
    paddle.jit.save(static, str(tmp_path / "m"))
    loaded = paddle.jit.load(str(tmp_path / "m"))
    x = paddle.to_tensor(VALUES[1])
    np.testing.assert_allclose(loaded(x).numpy(), (VALUES[1] + 1.0) * 2.0, rtol=1e-6)
    np.testing.assert_allclose(x.numpy(), VALUES[1])


@pytest.mark.parametrize("fn", [lambda x: x * 2.0, rebound_in_a_tensor_loop])
def test_a_function_that_changes_no_input_keeps_a_plain_entry(fn):
    static = paddle.jit.to_static(fn, full_graph=True)
    x = paddle.to_tensor(VALUES[0], stop_gradient=False)
    static(x)
    assert static._last.identity is None and x.is_leaf
