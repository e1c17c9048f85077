"""Backward from the outputs of one to_static call in turn: the call is one tape node, but it
frees its saved values as eager's separate ops do, so outputs computed apart can each be
backwarded without retain_graph, and outputs sharing a computed value are refused as eagerly."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.autograd.engine import GradientError

X = np.array([0.3, -0.5, 1.2], "float32")


def apart(x, w):
    return (x * x).sin(), (x * w).exp() + w


def shared(x, w):
    h = x * w
    return (h * 2.0).sin(), (h * 3.0).cos()


def _loop(x, w):
    h = x * w
    k = paddle.zeros([], "int64")
    while k < (x > 0.0).astype("int64").sum():
        h = h * 0.5 + x
        k = k + 1
    return h


def looped_apart(x, w):
    return _loop(x, w).sin(), (x * x).cos()


def looped_shared(x, w):
    h = _loop(x, w)
    return h.sin(), h.cos()


def _leaves(x=X):
    w = np.array([0.7, 1.1, -0.4], "float32")[:len(x)]
    return paddle.to_tensor(x, stop_gradient=False), paddle.to_tensor(w, stop_gradient=False)


@pytest.mark.parametrize("full_graph", [True, False])
def test_outputs_computed_apart_are_backwarded_in_turn_without_retain_graph(full_graph):
    static = paddle.jit.to_static(apart, full_graph=full_graph)
    for x in (X, X * -2.0, X[:2]):      # several calls, a new shape among them
        for fn in (apart, static):
            xt, wt = _leaves(x)
            a, b = fn(xt, wt)
            a.sum().backward()
            np.testing.assert_allclose(xt.grad.numpy(), np.cos(x * x) * 2 * x, rtol=1e-5)
            assert wt.grad is None      # a never reached w
            b.sum().backward()          # no retain_graph: b's ops were never freed
            w = wt.numpy()
            np.testing.assert_allclose(xt.grad.numpy(), np.cos(x * x) * 2 * x + np.exp(x * w) * w,
                                       rtol=1e-5)
            np.testing.assert_allclose(wt.grad.numpy(), np.exp(x * w) * x + 1.0, rtol=1e-5)


@pytest.mark.parametrize("fn", [shared, looped_shared])
@pytest.mark.parametrize("full_graph", [True, False])
def test_outputs_sharing_a_computed_value_refuse_a_second_backward_as_eager(fn, full_graph):
    static = paddle.jit.to_static(fn, full_graph=full_graph)
    for x in (X, -X):       # the loop runs 2 and 1 times
        results = []
        for f in (fn, static):
            xt, wt = _leaves(x)
            a, b = f(xt, wt)
            a.sum().backward()
            first = xt.grad.numpy().copy()
            with pytest.raises(GradientError, match="a second time") as info:
                b.sum().backward()
            results.append(first)
        np.testing.assert_allclose(results[0], results[1], rtol=1e-5)
        # the static error names the user's call
        assert "to_static" in str(info.value) and "f(xt, wt)" in str(info.value)


@pytest.mark.parametrize("full_graph", [True, False])
def test_a_loop_feeding_one_output_leaves_the_other_backwardable(full_graph):
    static = paddle.jit.to_static(looped_apart, full_graph=full_graph)
    for x in (X, -X, X * 0.0):      # the loop runs 2, 1 and 0 times
        got = []
        for f in (looped_apart, static):
            xt, wt = _leaves(x)
            a, b = f(xt, wt)
            b.sum().backward()
            first = xt.grad.numpy().copy()
            a.sum().backward()
            got.append((first, xt.grad.numpy(), wt.grad.numpy()))
        np.testing.assert_allclose(got[0][0], -np.sin(x * x) * 2 * x, rtol=1e-5)
        for u, v in zip(*got):
            np.testing.assert_allclose(u, v, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("full_graph", [True, False])
def test_retain_graph_keeps_a_shared_value_for_the_other_output(full_graph):
    static = paddle.jit.to_static(shared, full_graph=full_graph)
    grads = []
    for f in (shared, static):
        xt, wt = _leaves()
        a, b = f(xt, wt)
        a.sum().backward(retain_graph=True)
        b.sum().backward()
        grads.append(xt.grad.numpy())
        with pytest.raises(GradientError, match="a second time"):
            a.sum().backward()      # the second backward freed everything
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-5)
    w = _leaves()[1].numpy()
    h = X * w
    np.testing.assert_allclose(grads[1], (np.cos(2 * h) * 2 - np.sin(3 * h) * 3) * w, rtol=1e-5)


@pytest.mark.parametrize("fn", [apart, shared])
def test_paddle_grad_on_each_output_in_turn(fn):
    static = paddle.jit.to_static(fn)
    got = []
    for f in (fn, static):
        xt, wt = _leaves()
        a, b = f(xt, wt)
        (ga,) = paddle.grad(a.sum(), xt)
        (gb,) = paddle.grad(b.sum(), [xt], retain_graph=False)
        a.sum().backward()      # paddle.grad freed nothing
        got.append((ga.numpy(), gb.numpy(), xt.grad.numpy()))
    for u, v in zip(*got):
        np.testing.assert_allclose(u, v, rtol=1e-5)


def test_the_same_output_twice_is_refused_and_names_the_call():
    static = paddle.jit.to_static(apart)
    xt, wt = _leaves()
    a, _ = static(xt, wt)
    a.sum().backward()
    with pytest.raises(GradientError, match=r"to_static \(File .*line \d+: a, _ = static"):
        a.sum().backward()


def test_a_returned_input_stays_backwardable_after_the_others():
    def f(x):
        return x, (x * x).sum()

    static = paddle.jit.to_static(f)
    for fn in (f, static):
        xt = paddle.to_tensor(X, stop_gradient=False)
        a, b = fn(xt)
        b.backward()
        (a * 3.0).sum().backward()
        np.testing.assert_allclose(xt.grad.numpy(), 2 * X + 3.0, rtol=1e-6)


def test_the_saved_values_go_once_no_output_can_backward():
    static = paddle.jit.to_static(apart)
    xt, wt = _leaves()
    a, b = static(xt, wt)
    node = a._node
    a.sum().backward()
    assert node.backward_fn is not None and not node.freed     # b still needs them
    b.sum().backward()
    assert node.freed and node.backward_fn is None              # residuals released
    loss = static(xt, wt)[0].sum() + 0.0
    first = loss._node.edges[0][0]      # the call's node, through the eager add
    loss.backward()
    assert first.freed and first.backward_fn is None


@pytest.mark.parametrize("full_graph", [True, False])
def test_an_output_no_gradient_reached_runs_no_gradient_op(full_graph):
    # sqrt's gradient at 0 is inf: seeding b with zeros gave 0 * inf = NaN in x.grad, where
    # eager never visits b's ops
    def f(x, w):
        return (x * w).sin(), x.sqrt() + w.log()

    static = paddle.jit.to_static(f, full_graph=full_graph)
    for x in ([0.0, 1.0, 4.0], [2.0, 0.0, 0.5]):
        x = np.asarray(x, "float32")
        got = []
        for fn in (f, static):
            xt, wt = _leaves(x)
            wt = paddle.to_tensor(np.abs(wt.numpy()), stop_gradient=False)
            a, b = fn(xt, wt)
            a.sum().backward()
            got.append((xt.grad.numpy(), wt.grad.numpy()))
            with np.errstate(divide="ignore"):
                b.sum().backward()  # then b alone: its gradient is inf at 0, as eagerly
            got.append((xt.grad.numpy(), wt.grad.numpy()))
        w = np.abs(_leaves(x)[1].numpy())
        np.testing.assert_allclose(got[2][0], np.cos(x * w) * w, rtol=1e-5)     # no NaN
        assert np.isinf(got[3][0]).sum() == 1
        for u, v in zip(got[:2], got[2:]):
            np.testing.assert_allclose(u[0], v[0], rtol=1e-5)
            np.testing.assert_allclose(u[1], v[1], rtol=1e-5)


def test_outputs_of_a_tensor_if_given_a_gradient_in_turn():
    # a program holding a tensor `if` keeps the full gradient program (zero seeds), values agree
    def f(x, w):
        if x.sum() > 0:
            h = x * w
        else:
            h = x - w
        return h.tanh(), (x * 3.0).sin()

    static = paddle.jit.to_static(f)
    for x in (X, -X):
        got = []
        for fn in (f, static):
            xt, wt = _leaves(x)
            a, b = fn(xt, wt)
            b.sum().backward()
            got.append(xt.grad.numpy().copy())
            a.sum().backward()
            got.append(wt.grad.numpy())
        for u, v in zip(got[:2], got[2:]):
            np.testing.assert_allclose(u, v, rtol=1e-5)


@pytest.mark.parametrize("full_graph", [True, False])
def test_an_input_only_a_detach_joins_to_the_output_differentiated_gets_none(full_graph):
    # fuzz_backward 31001394: the loss reads h through a detach, the other output reads h; the
    # call's node gives h no gradient, and x.grad (behind h) was zeros where eager has None
    w = paddle.create_parameter([3], "float32")

    def f(h, s):
        h[-2] = s
        return (h.detach() * w).sum(), h * 1.0
    static = paddle.jit.to_static(f, full_graph=full_graph)
    for fn in (f, static):
        x = paddle.to_tensor(np.ones((3, 3), "float32"), stop_gradient=False)
        loss, _ = fn(x.mean(axis=0), x.sum())
        loss.backward()
        assert x.grad is None
        assert w.grad is not None
        w.clear_grad()
