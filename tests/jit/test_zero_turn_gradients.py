"""Tensors an output reaches only when a tensor loop runs a turn (an RNN's weights and inputs,
read in the body only) or only through the branch taken, while the output also depends on a
tensor that needs a gradient on every path: after a loop that ran no turn (or the other branch)
they get no gradient (`.grad` None, as eager code), not zeros, in a to_static call (both full_graph
settings), a jit.load'ed model, `paddle.grad(..., allow_unused=True)` and a whole train step traced
with its optimizer (which then skips them, as eager's: no weight decay, no momentum)."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.autograd.engine import UnusedInputError

H = np.array([0.5, -1.0, 0.25], "float32")
XS = np.array([0.1, 0.2, -0.3], "float32")
WS = (np.eye(3, dtype="float32") * 0.5 + 0.1).astype("float32")


def _rnn_for(x, w, h, n):
    for _ in range(n):
        h = paddle.tanh(paddle.matmul(h, w) + x)
    return h


def _rnn_while(x, w, h, n):
    i = paddle.zeros([], "int64")
    while i < n:
        h = paddle.tanh(paddle.matmul(h, w) + x)
        i += 1
    return h * 2.0


def _data_condition(x, w, h, n):
    # a condition on the state: false at once when h starts small
    while h.abs().sum() > n.astype("float32"):
        h = h * 0.5 + paddle.matmul(x, w) * 0.0
    return h


def _sum_before_update(x, w, h, n):
    # acc reads the state of the turn before: w and x reach it from the second turn on only
    acc = h * 1.0
    for _ in range(n):
        acc = acc + h
        h = paddle.tanh(paddle.matmul(h, w) + x)
    return acc


def _swap(x, w, h, n):
    a, b = h * 1.0, x * w[0]
    for _ in range(n):
        a, b = b, a
    return a


def _branch(x, w, h, n):
    if n > 0:
        y = x * w[0] + h
    else:
        y = h * 2.0
    return y


def _grads(fn, n, full_graph=None):
    run = fn if full_graph is None else paddle.jit.to_static(fn, full_graph=full_graph)
    ts = [paddle.to_tensor(a, stop_gradient=False) for a in (XS, WS, H)]
    out = run(*ts, paddle.to_tensor(np.array(n, "int64")))
    (out * out).sum().backward()
    return out.numpy(), [None if t.grad is None else t.grad.numpy() for t in ts]


def _same(got, want):
    np.testing.assert_allclose(got[0], want[0], rtol=1e-6)
    for g, w in zip(got[1], want[1]):
        assert (g is None) == (w is None)
        if w is not None:
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("full_graph", [True, False])
@pytest.mark.parametrize("fn, counts", [
    (_rnn_for, (0, 1, 2)),
    (_rnn_while, (0, 2)),
    (_data_condition, (5, 0)),
    (_sum_before_update, (0, 1, 2, 3)),
    (_swap, (0, 1, 2)),
    (_branch, (1, 0)),
], ids=lambda v: v.__name__ if callable(v) else "")
def test_gradients_of_tensors_no_turn_reached(fn, counts, full_graph):
    nones = set()
    for n in counts:
        want = _grads(fn, n)
        _same(_grads(fn, n, full_graph), want)
        nones.add(tuple(g is None for g in want[1]))
    assert len(nones) > 1       # some calls leave a gradient None, others do not


def test_paddle_grad_allow_unused_after_no_turn():
    static = paddle.jit.to_static(_rnn_for)
    for n, unused in ((0, True), (2, False)):
        ts = [paddle.to_tensor(a, stop_gradient=False) for a in (XS, WS, H)]
        out = static(*ts, paddle.to_tensor(np.array(n, "int64")))
        gx, gw, gh = paddle.grad([out.sum()], ts, allow_unused=True)
        assert (gx is None, gw is None) == (unused, unused)
        np.testing.assert_allclose(gh.numpy(), paddle.grad(
            [_rnn_for(*ts, paddle.to_tensor(np.array(n))).sum()], [ts[2]])[0].numpy(), rtol=1e-6)


class _Cell(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.w = self.create_parameter([3, 3])
        self.b = self.create_parameter([3])
        self.h0 = self.create_parameter([3])
        self.w.set_value(WS)
        self.b.set_value(XS)
        self.h0.set_value(H)

    def forward(self, x, n):
        h = self.h0 * 1.0
        for _ in range(n):
            h = paddle.tanh(paddle.matmul(h, self.w) + x + self.b)
        return h


def _step(net, opt, x, n):
    out = net(x, n)
    loss = (out * out).sum()
    loss.backward()
    opt.step()
    opt.clear_grad(set_to_zero=False)
    return loss


@pytest.mark.parametrize("full_graph", [True, False])
@pytest.mark.parametrize("make_opt", [
    lambda ps: paddle.optimizer.Momentum(0.1, momentum=0.9, parameters=ps, weight_decay=0.01),
    lambda ps: paddle.optimizer.AdamW(0.1, parameters=ps, weight_decay=0.1),
], ids=["momentum", "adamw"])
def test_a_train_step_skips_parameters_no_turn_reached(full_graph, make_opt):
    eager, net = _Cell(), _Cell()
    eager_opt, opt = make_opt(eager.parameters()), make_opt(net.parameters())
    step = paddle.jit.to_static(_step, full_graph=full_graph)
    x = paddle.to_tensor(XS)
    for n in (0, 2, 0, 2):
        count = paddle.to_tensor(np.array(n, "int64"))
        want, got = _step(eager, eager_opt, x, count), step(net, opt, x, count)
        np.testing.assert_allclose(float(got), float(want), rtol=1e-6)
        for p, q in zip(net.parameters(), eager.parameters()):
            np.testing.assert_allclose(p.numpy(), q.numpy(), rtol=1e-6, atol=1e-7)
            assert p.grad is None and q.grad is None


def _backward_only(net, x, n):
    out = net(x, n)
    (out * out).sum().backward()
    return out


def test_a_train_step_keeps_grad_none_where_no_turn_ran():
    net = _Cell()
    step = paddle.jit.to_static(_backward_only)
    x = paddle.to_tensor(XS)
    step(net, x, paddle.to_tensor(np.array(0, "int64")))
    assert [p.grad is None for p in net.parameters()] == [True, True, False]
    step(net, x, paddle.to_tensor(np.array(1, "int64")))
    assert all(p.grad is not None for p in net.parameters())


def _reads_grad(net, x, n):
    out = net(x, n)
    (out * out).sum().backward()
    if net.w.grad is None:          # converted code sees None where no turn ran, as eager
        found = paddle.zeros([]) - 1.0
    else:
        found = net.w.grad.sum()
    net.clear_gradients(set_to_zero=False)
    return found


@pytest.mark.parametrize("full_graph", [True, False])
def test_converted_code_sees_grad_none_where_no_turn_ran(full_graph):
    eager, net = _Cell(), _Cell()
    step = paddle.jit.to_static(_reads_grad, full_graph=full_graph)
    for n in (0, 2, 0):
        count = paddle.to_tensor(np.array(n, "int64"))
        want = float(_reads_grad(eager, paddle.to_tensor(XS), count))
        assert (want == -1.0) == (n == 0)
        np.testing.assert_allclose(float(step(net, paddle.to_tensor(XS), count)), want, rtol=1e-5)


def test_a_loaded_model_after_no_turn(tmp_path):
    net = _Cell()
    spec = [paddle.static.InputSpec([3], "float32"), paddle.static.InputSpec([], "int64")]
    paddle.jit.save(net, str(tmp_path / "m"), input_spec=spec)
    loaded = paddle.jit.load(str(tmp_path / "m"))
    loaded.train()
    for n in (0, 2):
        grads = []
        for model in (net, loaded):
            model.clear_gradients(set_to_zero=False)
            out = model(paddle.to_tensor(XS), paddle.to_tensor(np.array(n, "int64")))
            (out * out).sum().backward()
            # (the loaded model lists its parameters by their saved names: w_0, w_1, w_2)
            params = sorted(model.named_parameters(), key=lambda kv: kv[1].name)
            grads.append([None if p.grad is None else p.grad.numpy() for _, p in params])
        assert [g is None for g in grads[1]] == [g is None for g in grads[0]] == [n == 0] * 2 + [False]
        for g, w in zip(*grads):
            if w is not None:
                np.testing.assert_allclose(g, w, rtol=1e-5)


def _grad_inside(x, w, h, n):
    for _ in range(n):
        h = paddle.tanh(paddle.matmul(h, w) + x)
    gx, gw, gh = paddle.grad([(h * h).sum()], [x, w, h], allow_unused=True)
    if gw is None:                  # None where no turn ran, as eager
        gw = paddle.zeros([3, 3]) - 1.0
    return h, gx, gw, gh


def _grad_inside_branch(x, w, h, n):
    y = x * w[0] + h if n > 0 else h * 2.0
    return tuple(paddle.grad([y.sum()], [x, w, h], allow_unused=True))


@pytest.mark.parametrize("full_graph", [True, False])
@pytest.mark.parametrize("fn", [_grad_inside, _grad_inside_branch], ids=lambda f: f.__name__)
def test_paddle_grad_inside_gives_none_where_no_turn_ran(fn, full_graph):
    # the gradients were zeros where eager's paddle.grad gives None
    static = paddle.jit.to_static(fn, full_graph=full_graph)
    for n in (0, 2, 0):
        got, want = [[None if t is None else t.numpy() for t in run(
            *[paddle.to_tensor(a, stop_gradient=False) for a in (XS, WS, H)],
            paddle.to_tensor(np.array(n, "int64")))] for run in (static, fn)]
        assert [g is None for g in got] == [w is None for w in want]
        assert (want[1] is None) == (n == 0)
        for g, w in zip(got, want):
            if w is not None:
                np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-7)


def _grad_inside_strict(x, w, h, n):
    for _ in range(n):
        h = paddle.tanh(paddle.matmul(h, w) + x)
    return paddle.grad([(h * h).sum()], [h, w])[1]


@pytest.mark.parametrize("full_graph", [True, False])
def test_paddle_grad_inside_raises_eagers_error_where_no_turn_ran(full_graph):
    static = paddle.jit.to_static(_grad_inside_strict, full_graph=full_graph)
    ts = [paddle.to_tensor(a, stop_gradient=False) for a in (XS, WS, H)]
    np.testing.assert_allclose(
        static(*ts, paddle.to_tensor(np.array(1, "int64"))).numpy(),
        _grad_inside_strict(*ts, paddle.to_tensor(np.array(1, "int64"))).numpy(), rtol=1e-5)
    for run in (_grad_inside_strict, static):
        # eager's UnusedInputError (a ValueError) for input 1; it gave zeros
        with pytest.raises(UnusedInputError, match=r"input 1 \(shape \[3, 3\]\) is not us") as err:
            run(*ts, paddle.to_tensor(np.array(0, "int64")))
    assert "test_zero_turn_gradients.py\", line" in str(err.value)


def _backward_only_through_the_loop(x, w, n):
    h = w * 1.0                     # w needs no gradient: x is read only when a turn runs
    for _ in range(n):
        h = h * x
    h.sum().backward()
    return h


@pytest.mark.parametrize("full_graph", [True, False])
def test_a_traced_backward_that_reaches_nothing_on_this_path_raises(full_graph):
    # eager's backward() raises where the loop ran no turn; the traced one did nothing
    static = paddle.jit.to_static(_backward_only_through_the_loop, full_graph=full_graph)
    for run in (_backward_only_through_the_loop, static):
        x = paddle.to_tensor(XS, stop_gradient=False)
        run(x, paddle.to_tensor(H), paddle.to_tensor(np.array(2, "int64")))
        np.testing.assert_allclose(x.grad.numpy(), 2 * XS * H, rtol=1e-5)
        with pytest.raises(paddle.autograd.GradientError, match="does not depend on any tensor"):
            run(x, paddle.to_tensor(H), paddle.to_tensor(np.array(0, "int64")))


def _grad_in_a_tensor_if_after_the_loop(x, w, h, n):
    for _ in range(n):
        h = paddle.tanh(paddle.matmul(h, w) + x)
    if x.sum() > -100.0:
        gx, gw = paddle.grad([(h * h).sum()], [x, w], allow_unused=True)
        out = x * 5.0 if gw is None else gw.sum() + gx      # None where no turn ran
    else:
        out = x * 2.0
    return h, out


def _grad_in_a_tensor_if_reading_w_itself(x, w, h, n):
    for _ in range(n):
        h = h * x
    if x.sum() > -100.0:
        gw = paddle.grad([(h * w[0]).sum()], [w], allow_unused=True)[0]
        out = x * 5.0 if gw is None else gw[0] + x
    else:
        out = x * 2.0
    return out


def _strict_grad_in_a_tensor_if(x, w, h, n):
    for _ in range(n):
        h = paddle.tanh(paddle.matmul(h, w) + x)
    if x.sum() > -100.0:
        out = paddle.grad([(h * h).sum()], [h, w])[1]
    else:
        out = w * 2.0
    return out


@pytest.mark.parametrize("full_graph", [True, False])
def test_paddle_grad_in_a_tensor_if_after_a_loop_that_ran_no_turn(full_graph):
    """Inside a tensor `if`, paddle.grad of an input reached only through a loop before it gave
    zeros where no turn ran (so `gw is None` was false: x * 5 silently became gw's path)."""
    for fn in (_grad_in_a_tensor_if_after_the_loop, _grad_in_a_tensor_if_reading_w_itself):
        static = paddle.jit.to_static(fn, full_graph=full_graph)
        for n in (0, 2, 0, 1):
            args = [paddle.to_tensor(a, stop_gradient=False) for a in (XS, WS, H)]
            count = paddle.to_tensor(np.array(n, "int64"))
            want, got = fn(*args, count), static(*args, count)
            for a, b in zip(want if isinstance(want, tuple) else [want],
                            got if isinstance(got, tuple) else [got]):
                np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-5, atol=1e-7)
    static = paddle.jit.to_static(_strict_grad_in_a_tensor_if, full_graph=full_graph)
    args = [paddle.to_tensor(a, stop_gradient=False) for a in (XS, WS, H)]
    for run in (_strict_grad_in_a_tensor_if, static):
        with pytest.raises(UnusedInputError, match=r"input 1 \(shape \[3, 3\]\) is not us"):
            run(*args, paddle.to_tensor(np.array(0, "int64")))
        np.testing.assert_allclose(
            run(*args, paddle.to_tensor(np.array(2, "int64"))).numpy(),
            _strict_grad_in_a_tensor_if(*args, paddle.to_tensor(np.array(2, "int64"))).numpy(),
            rtol=1e-5)
