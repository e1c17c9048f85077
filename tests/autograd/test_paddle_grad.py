"""Eager `paddle.grad` as Paddle 3.3.1 runs it: the graph is never freed (whatever
`retain_graph` says), `no_grad_vars` stops gradients, an unused input is a ValueError; and
`static.gradients(no_grad_set=...)`."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.autograd import GradientError
from tests.support import numeric_gradient


def leaf(values):
    return paddle.to_tensor(np.asarray(values, "float64"), stop_gradient=False)


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("retain_graph", [None, False, True])
def test_grad_frees_nothing_so_a_second_grad_and_backward_work(retain_graph, create_graph):
    x = leaf([0.5, -1.0, 2.0])
    h = paddle.tanh(x)
    (g1,) = paddle.grad((h * 2.0).sum(), x, retain_graph=retain_graph, create_graph=create_graph)
    (g2,) = paddle.grad((h * 3.0).sum(), x, retain_graph=retain_graph)
    (h * h).sum().backward()
    d = 1.0 - np.tanh(x.numpy()) ** 2
    np.testing.assert_allclose(g1.numpy(), 2.0 * d)
    np.testing.assert_allclose(g2.numpy(), 3.0 * d)
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * np.tanh(x.numpy()) * d)
    assert g1.stop_gradient is not create_graph


def test_grad_after_a_backward_that_freed_the_graph_fails():
    x = leaf([0.5, -1.0])
    h = paddle.tanh(x)
    (h * 2.0).sum().backward()
    with pytest.raises(GradientError, match="a second time"):
        paddle.grad(h.sum(), x)


def test_no_grad_vars_stop_the_gradient_there():
    x, w = leaf([1.0, 2.0, 3.0]), leaf([0.5, -1.0, 2.0])
    h = paddle.sin(x * w)
    y = (h * x).sum()
    gx, gw = paddle.grad(y, [x, w], no_grad_vars=[h], allow_unused=True)
    np.testing.assert_allclose(gx.numpy(), np.sin(x.numpy() * w.numpy()))
    assert gw is None                               # w reaches y only through h
    (full,) = paddle.grad(y, x)
    want = numeric_gradient(lambda a: float((np.sin(a * w.numpy()) * a).sum()), x.numpy())
    np.testing.assert_allclose(full.numpy(), want, rtol=1e-6)
    (leaf_blocked,) = paddle.grad((x * w).sum(), [w], no_grad_vars=x)  # a leaf blocked
    np.testing.assert_allclose(leaf_blocked.numpy(), x.numpy())
    with pytest.raises(TypeError, match="no_grad_vars must be Tensors"):
        paddle.grad(y, x, no_grad_vars=["h"])


def test_an_unused_input_is_a_value_error_as_in_paddle():
    x, z = leaf([1.0]), leaf([2.0])
    with pytest.raises(ValueError, match="input 1 .* not used") as info:
        paddle.grad((x * 2.0).sum(), [x, z])
    assert isinstance(info.value, GradientError)


def test_static_gradients_no_grad_set():
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main):
            x = paddle.static.data("x", [3], "float32")
            x.stop_gradient = False
            h = paddle.sin(x)
            y = (h * x).sum()
            (blocked,) = paddle.static.gradients([y], [x], no_grad_set=[h])
            (full,) = paddle.static.gradients([y], [x])
        exe = paddle.static.Executor()
        a = np.array([0.5, 1.0, -2.0], "float32")
        got_blocked, got_full = exe.run(main, feed={"x": a}, fetch_list=[blocked, full])
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(got_blocked, np.sin(a), rtol=1e-6)
    np.testing.assert_allclose(got_full, np.sin(a) + a * np.cos(a), rtol=1e-6)
