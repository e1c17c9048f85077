"""Automatic dynamic numbers (issue 23, item 5): a Python number that changes on every call (a
float lr passed in, a step counter in `self.step`, a global) becomes a program input after it
changed twice, so at most two programs are traced, and every call still equals eager, with
full_graph True and False, with and without a graph break, with and without gradients."""
import warnings

import numpy as np
import pytest

import dy2st as paddle
from dy2st.jit import auto_numbers
from tests.support import BREAK_MODES, graph_break

X = np.arange(6, dtype="float32").reshape(2, 3) - 2.0
LR = 0.5


def scaled(x, lr, brk):
    if brk:
        graph_break(x)
    return x * lr + lr / 2


def stepped(x, step):
    if step > 10:
        return x * step - 1
    return x + step


def global_lr(x):
    return x * LR


def ranged(x, n):
    for _ in range(n):          # a tensor loop once n is an input
        x = x + 1.0
    return x


def repeated(x, n):
    return paddle.stack([x] * (n + 1)).sum(axis=0)      # a list's length needs the number


def returns_it(x, k):
    return x * k, k


@pytest.mark.parametrize("full_graph,brk", BREAK_MODES)
def test_a_float_argument_that_changes_every_call(full_graph, brk):
    static = paddle.jit.to_static(scaled, full_graph=full_graph)
    for i in range(12):
        lr = 0.1 * (i + 1)
        np.testing.assert_allclose(static(paddle.to_tensor(X), lr, brk).numpy(),
                                   scaled(paddle.to_tensor(X), lr, brk).numpy(), rtol=1e-6)
    programs = [r.num_programs for r in static._gb.regions] if brk else [static.num_programs]
    assert max(programs) <= 2, programs


@pytest.mark.parametrize("full_graph", [True, False])
def test_an_int_step_taking_both_sides_of_a_tensor_if(full_graph):
    static = paddle.jit.to_static(stepped, full_graph=full_graph)
    for step in range(20):
        x = paddle.to_tensor(X)
        x.stop_gradient = False
        got = static(x, step)
        got.sum().backward()
        xe = paddle.to_tensor(X)
        xe.stop_gradient = False
        want = stepped(xe, step)
        want.sum().backward()
        np.testing.assert_allclose(got.numpy(), want.numpy(), err_msg=f"step {step}")
        np.testing.assert_allclose(x.grad.numpy(), xe.grad.numpy(), err_msg=f"step {step}")
    assert static.num_programs <= 2


def test_a_global_number_changed_between_calls():
    global LR
    static = paddle.jit.to_static(global_lr)
    try:
        for i in range(10):
            LR = 0.25 * i
            np.testing.assert_allclose(static(paddle.to_tensor(X)).numpy(), X * LR)
    finally:
        LR = 0.5
    assert static.num_programs <= 2


class Counter(paddle.nn.Layer):
    def __init__(self, brk):
        super().__init__()
        self.brk = brk
        self.step = 0
        self.fc = paddle.nn.Linear(3, 3)

    def forward(self, x):
        self.step += 1
        if self.brk:
            graph_break(x)
        return self.fc(x) * self.step


@pytest.mark.parametrize("brk", [False, True])
def test_a_layer_step_counter_in_the_default_mode(brk):
    paddle.seed(0)
    eager, net = Counter(brk), Counter(brk)
    net.set_state_dict(eager.state_dict())
    static = paddle.jit.to_static(net)
    for i in range(12):
        np.testing.assert_allclose(static(paddle.to_tensor(X)).numpy(),
                                   eager(paddle.to_tensor(X)).numpy(), rtol=1e-6,
                                   err_msg=f"call {i + 1}")
    assert net.step == eager.step == 12
    regions = static.forward._gb.regions
    assert max(r.num_programs for r in regions) <= 2


class Scheduled(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.scale = 1.0
        self.fc = paddle.nn.Linear(3, 3)

    def forward(self, x):
        return self.fc(x) * self.scale


@pytest.mark.parametrize("full_graph", [True, False])
@pytest.mark.parametrize("grad", [False, True])
def test_an_attribute_set_between_calls(full_graph, grad):
    paddle.seed(0)
    eager, net = Scheduled(), Scheduled()
    net.set_state_dict(eager.state_dict())
    static = paddle.jit.to_static(net, full_graph=full_graph)
    for i in range(8):
        eager.scale = net.scale = 0.5 * i
        xe, xs = paddle.to_tensor(X), paddle.to_tensor(X)
        xe.stop_gradient = xs.stop_gradient = not grad
        want, got = eager(xe), static(xs)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
        if grad:
            want.sum().backward()
            got.sum().backward()
            np.testing.assert_allclose(xs.grad.numpy(), xe.grad.numpy(), rtol=1e-6)
    assert static.forward.num_programs <= 2


def test_a_loop_bound_becomes_an_input():
    static = paddle.jit.to_static(ranged, full_graph=True)
    for n in range(6):
        np.testing.assert_allclose(static(paddle.to_tensor(X), n).numpy(), X + n)
    assert static.num_programs <= 2


def test_a_number_python_needs_is_kept_by_value():
    static = paddle.jit.to_static(repeated, full_graph=True)
    for n in range(6):
        np.testing.assert_allclose(static(paddle.to_tensor(X), n).numpy(), X * (n + 1))
    assert static._numbers.off


def test_a_returned_number_stays_a_python_number():
    static = paddle.jit.to_static(returns_it, full_graph=True)
    for k in range(5):
        out, back = static(paddle.to_tensor(X), k)
        assert back == k and type(back) is int
        np.testing.assert_allclose(out.numpy(), X * k)


def test_switched_off_keys_numbers_by_value(monkeypatch):
    monkeypatch.setattr(auto_numbers, "ENABLED", False)
    static = paddle.jit.to_static(scaled, full_graph=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(5):
            static(paddle.to_tensor(X), float(i), False)
    assert static.num_programs == 5


def test_save_after_a_number_became_an_input(tmp_path):
    net = Scheduled()
    static = paddle.jit.to_static(net)
    for i in range(5):
        net.scale = 0.5 * i
        static(paddle.to_tensor(X))
    assert static.forward._last.numbers is not None
    paddle.jit.save(static, str(tmp_path / "m"))       # the call's own inputs: x only
    loaded = paddle.jit.load(str(tmp_path / "m"))
    np.testing.assert_allclose(loaded(paddle.to_tensor(X)).numpy(),
                               static(paddle.to_tensor(X)).numpy(), rtol=1e-6)
