"""A gradient that eager code leaves None (a loop that ran no turn, a branch not taken,
clear_grad(set_to_zero=False)) stays None on the XLA backend, as on numpy: a device array cannot
hold the host's None marker, so it came back as zeros, which an optimizer then updated (weight
decay, momentum) and converted code's `.grad is None` missed."""
import numpy as np
import pytest

pytest.importorskip("jax", reason="jax is not installed (pip install 'dy2st[xla]')")

import dy2st as paddle  # noqa: E402
from dy2st.backends.xla import FALLBACKS  # noqa: E402

H = np.array([0.5, -1.0, 0.25], "float32")
XS = np.array([0.1, 0.2, -0.3], "float32")
WS = (np.eye(3, dtype="float32") * 0.5 + 0.1).astype("float32")


class Cell(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.w = self.create_parameter([3, 3])
        self.h0 = self.create_parameter([3])
        self.w.set_value(WS)
        self.h0.set_value(H)

    def forward(self, x, n):
        h = self.h0 * 1.0
        for _ in range(n):
            h = paddle.tanh(paddle.matmul(h, self.w) + x)
        return h


def step(net, opt, x, n):
    out = net(x, n)
    loss = (out * out).sum()
    loss.backward()
    opt.step()
    opt.clear_grad(set_to_zero=False)
    return loss


def reads_grad(net, x, n):
    out = net(x, n)
    (out * out).sum().backward()
    found = paddle.zeros([]) - 1.0 if net.w.grad is None else net.w.grad.sum()
    net.clear_gradients(set_to_zero=False)
    return found


def branch_backward(net, x, n):
    out = net(x, 0)
    if n > 0:
        (out * out).sum().backward()    # h0 gets a gradient on this path only
    return out


def count(n):
    return paddle.to_tensor(np.array(n, "int64"))


@pytest.mark.parametrize("backend", ["numpy", "xla"])
def test_a_train_step_skips_parameters_no_turn_reached(backend):
    eager, net = Cell(), Cell()
    make = lambda ps: paddle.optimizer.Momentum(0.1, 0.9, parameters=ps, weight_decay=0.01)  # noqa: E731
    eager_opt, opt = make(eager.parameters()), make(net.parameters())
    static = paddle.jit.to_static(step, backend=backend)
    for n in (0, 2, 0):
        want, got = step(eager, eager_opt, paddle.to_tensor(XS), count(n)), \
            static(net, opt, paddle.to_tensor(XS), count(n))
        np.testing.assert_allclose(float(got), float(want), rtol=1e-5)
        for p, q in zip(net.parameters(), eager.parameters()):
            assert p.grad is None and q.grad is None
            np.testing.assert_allclose(p.numpy(), q.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("backend", ["numpy", "xla"])
def test_converted_code_sees_grad_none_where_no_turn_ran(backend):
    net = Cell()
    static = paddle.jit.to_static(reads_grad, backend=backend)
    for n in (0, 2, 0):
        want = float(reads_grad(Cell(), paddle.to_tensor(XS), count(n)))
        assert (want == -1.0) == (n == 0)
        np.testing.assert_allclose(float(static(net, paddle.to_tensor(XS), count(n))), want,
                                   rtol=1e-5)


@pytest.mark.parametrize("backend", ["numpy", "xla"])
def test_a_branch_not_taken_leaves_grad_none(backend):
    static = paddle.jit.to_static(branch_backward, backend=backend)
    for n in (0, 1):
        net = Cell()
        static(net, paddle.to_tensor(XS), count(n))
        assert (net.h0.grad is None) == (n == 0)


def plain_step(net, opt, x):
    loss = (net(x, 1) ** 2).sum()
    loss.backward()
    opt.step()
    opt.clear_grad(set_to_zero=False)
    return loss


def test_clear_grad_to_none_stays_compiled():
    # a step whose `.grad` is None only between calls: still one XLA computation, and the
    # gradients are None after each call, as eager's
    eager, net = Cell(), Cell()
    eager_opt = paddle.optimizer.SGD(0.1, parameters=eager.parameters())
    opt = paddle.optimizer.SGD(0.1, parameters=net.parameters())
    static = paddle.jit.to_static(plain_step, backend="xla")
    before = len(FALLBACKS)
    for _ in range(3):
        np.testing.assert_allclose(float(static(net, opt, paddle.to_tensor(XS))),
                                   float(plain_step(eager, eager_opt, paddle.to_tensor(XS))),
                                   rtol=1e-5)
        assert all(p.grad is None for p in net.parameters())
    assert len(FALLBACKS) == before
    for p, q in zip(net.parameters(), eager.parameters()):
        np.testing.assert_allclose(p.numpy(), q.numpy(), rtol=1e-5, atol=1e-6)


def grad_inside(x, w, h, n):
    for _ in range(n):
        h = paddle.tanh(paddle.matmul(h, w) + x)
    return tuple(paddle.grad([(h * h).sum()], [x, w, h], allow_unused=True))


@pytest.mark.parametrize("backend", ["numpy", "xla"])
def test_paddle_grad_inside_gives_none_where_no_turn_ran(backend):
    static = paddle.jit.to_static(grad_inside, backend=backend)
    for n in (0, 2):
        ts = [paddle.to_tensor(a, stop_gradient=False) for a in (XS, WS, H)]
        got, want = static(*ts, count(n)), grad_inside(*ts, count(n))
        assert [g is None for g in got] == [w is None for w in want] == [n == 0] * 2 + [False]
        for g, w in zip(got, want):
            if w is not None:
                np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("backend", ["numpy", "xla"])
def test_a_to_static_call_gives_none_where_no_turn_ran(backend):
    # a to_static call as one tape node: its training forward fetches which tensors this
    # call's path reached
    def rnn(x, w, h, n):
        for _ in range(n):
            h = paddle.tanh(paddle.matmul(h, w) + x)
        return h
    static = paddle.jit.to_static(rnn, backend=backend)
    for n in (0, 2):
        grads = []
        for run in (rnn, static):
            ts = [paddle.to_tensor(a, stop_gradient=False) for a in (XS, WS, H)]
            (run(*ts, count(n)) ** 2).sum().backward()
            grads.append([None if t.grad is None else t.grad.numpy() for t in ts])
        assert [g is None for g in grads[1]] == [g is None for g in grads[0]]
        for g, w in zip(*grads):
            if w is not None:
                np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
