"""Paddle's in-place `name_` tensor methods: eager values, gradients recorded on the tape like the
out-of-place op, refusal on a leaf that needs a gradient, and the same result under to_static."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.autograd.rules import GradientError

X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])


@pytest.mark.parametrize("method,args,ref", [
    ("fill_", (7.0,), lambda a: np.full_like(a, 7.0)),
    ("zero_", (), np.zeros_like),
    ("exp_", (), np.exp),
    ("abs_", (), np.abs),
    ("clamp_", (-0.5, 0.5), lambda a: np.clip(a, -0.5, 0.5)),
    ("masked_fill_", (paddle.to_tensor(X > 1), 0.0), lambda a: np.where(a > 1, 0.0, a)),
    ("divide_", (paddle.to_tensor(2.0, "float64"),), lambda a: a / 2),
    ("tril_", (), np.tril),
])
def test_inplace_changes_the_tensor_and_returns_it(method, args, ref):
    x = paddle.to_tensor(X)
    out = getattr(x, method)(*args)
    assert out is x
    np.testing.assert_allclose(x.numpy(), ref(X))


def test_inplace_on_an_intermediate_is_differentiated():
    w = paddle.to_tensor(X, stop_gradient=False)
    y = w * 3.0
    y.exp_()
    y.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), 3 * np.exp(3 * X))


def test_fill_cuts_the_gradient_of_the_old_value():
    w = paddle.to_tensor(X, stop_gradient=False)
    y = w * 2.0
    y.fill_(1.0)
    (y * w).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), np.ones_like(X))


def test_inplace_on_a_leaf_needing_grad_is_refused():
    w = paddle.to_tensor(X, stop_gradient=False)
    with pytest.raises(GradientError, match="exp_"):
        w.exp_()


def _scaled_then_zeroed(x):
    y = x * 2.0
    y.clamp_(max=1.0)
    z = x + 0.0
    z.zero_()
    return y + z


def test_inplace_methods_under_to_static_match_eager():
    x = paddle.to_tensor(X.astype("float32"))
    eager = _scaled_then_zeroed(x).numpy()
    static = paddle.jit.to_static(
        _scaled_then_zeroed, input_spec=[paddle.static.InputSpec([None, 3], "float32")])(x)
    np.testing.assert_allclose(static.numpy(), eager)
    np.testing.assert_allclose(eager, np.minimum(2 * X, 1.0), rtol=1e-6)
