"""no_grad / set_grad_enabled(False) / @no_grad() inside converted code stop gradients where
eager ones stop, in both full_graph settings, inside tensor control flow, for in-place changes and
parameter updates; values stay eager's, through jit.save / jit.load too."""
import numpy as np
import pytest

import dy2st as paddle


def _no_grad_block(x):
    y = x * 2
    with paddle.no_grad():
        z = x * 3
    return (y * z).sum()


def _set_grad_disabled(x):
    y = x * 2
    with paddle.set_grad_enabled(False):
        z = paddle.exp(x)
    return (y + z * y).sum()


@paddle.no_grad()
def _helper(x):
    return paddle.tanh(x) * 4


def _decorated_helper(x):
    return (x * _helper(x)).sum()


def _enable_inside(x):
    with paddle.no_grad():
        a = x * 3
        with paddle.enable_grad():
            b = x * a
    return (a + b).sum()


def _tensor_if_inside(x):
    with paddle.no_grad():
        if x.sum() > 0:
            s = x * x
        else:
            s = -x
    return (s * x).sum()


def _tensor_loop_inside(x):
    acc = x
    with paddle.no_grad():
        i = paddle.to_tensor(0)
        while i < 3:
            acc = acc * x
            i += 1
    return (acc + x).sum()


def _inplace_setitem(x):
    h = x * 2
    with paddle.no_grad():
        h[0] = 5.0
    return (h * x).sum()


def _inplace_method(x):
    h = x * 2
    with paddle.no_grad():
        h.scale_(3.0)
    return (h * x).sum()


def _alias_on_one_path(x):
    """h is g on one path (fuzz seed 139): the change under no_grad reaches g there, and the
    gradients of both pass through it unchanged."""
    g = x * 0.5
    h = g if x.sum() > 0.3 else x * 1.0
    with paddle.no_grad():
        h[1] = g[0] * 2.0
    return (h * x + g).sum()


CASES = [_alias_on_one_path, _no_grad_block, _set_grad_disabled, _decorated_helper, _enable_inside,
         _tensor_if_inside, _tensor_loop_inside, _inplace_setitem, _inplace_method]


def _grad(fn, x):
    t = paddle.to_tensor(x, stop_gradient=False)
    out = fn(t)
    out.backward()
    return out.numpy(), t.grad.numpy()


@pytest.mark.parametrize("full_graph", [False, True])
@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_gradients_stop_as_in_eager(fn, full_graph, sign):
    x = sign * np.array([0.5, 1.0, 1.5], "float32")
    want_out, want_grad = _grad(fn, x)
    got_out, got_grad = _grad(paddle.jit.to_static(fn, full_graph=full_graph), x)
    np.testing.assert_allclose(got_out, want_out, rtol=1e-5)
    np.testing.assert_allclose(got_grad, want_grad, rtol=1e-5)


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_saved_values(fn, tmp_path):
    spec = [paddle.static.InputSpec([3], "float32")]
    sf = paddle.jit.to_static(fn, input_spec=spec, full_graph=True)
    paddle.jit.save(sf, str(tmp_path / "m"))
    loaded = paddle.jit.load(str(tmp_path / "m"))
    for x in ([0.5, 1.0, 1.5], [-1.0, -2.0, 0.25]):
        x = np.array(x, "float32")
        np.testing.assert_allclose(loaded(paddle.to_tensor(x)).numpy(),
                                   fn(paddle.to_tensor(x)).numpy(), rtol=1e-5)


class _Clipped(paddle.nn.Layer):
    """A weight clipped in place under no_grad before use: its gradient is the plain one."""

    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 2)

    def forward(self, x):
        with paddle.no_grad():
            self.fc.weight.clip_(-0.2, 0.2)
            target = self.fc(x) * 2
        return ((self.fc(x) - target) ** 2).mean()


@pytest.mark.parametrize("full_graph", [False, True])
def test_parameter_changed_under_no_grad(full_graph):
    x = paddle.to_tensor(np.linspace(-1, 1, 6).reshape(2, 3).astype("float32"))
    grads = []
    for convert in (False, True):
        paddle.seed(3)
        m = _Clipped()
        run = paddle.jit.to_static(m, full_graph=full_graph) if convert else m
        run(x).backward()
        grads.append((m.fc.weight.grad.numpy(), m.fc.bias.grad.numpy(), m.fc.weight.numpy()))
    for want, got in zip(*grads):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


def test_trace_under_no_grad_then_train():
    """A first call under no_grad (evaluation) does not change what a later training call
    differentiates."""
    sf = paddle.jit.to_static(_no_grad_block)
    x = np.array([0.5, 1.0, 1.5], "float32")
    with paddle.no_grad():
        sf(paddle.to_tensor(x))
    _, got = _grad(sf, x)
    _, want = _grad(_no_grad_block, x)
    np.testing.assert_allclose(got, want, rtol=1e-5)


# Each output's stop_gradient flag is the one of the path taken, as in eager code: a tensor `if`
# whose paths compute an output with and without gradients fetches its predicate and flags the
# output by it (it merged the two flags into False before); a value a path passes through
# unchanged under no_grad (`y = x`) keeps its gradient (it was detached).
def _returns_under_no_grad(x):
    with paddle.no_grad():
        if x.sum() > 0:
            return x * x
    return x * 2.0


def _passes_through_under_no_grad(x):
    with paddle.no_grad():
        if x.sum() > 0:
            y = x * x
        else:
            y = x
    return y, x * 3.0


def _flags_and_grad(run, x):
    t = paddle.to_tensor(x, stop_gradient=False)
    out = run(t)
    out = out if isinstance(out, tuple) else (out,)
    loss = [(o * o).sum() for o in out if not o.stop_gradient]
    if loss:
        paddle.add_n(loss).backward()
    return ([o.stop_gradient for o in out], [o.numpy() for o in out],
            None if t.grad is None else t.grad.numpy())


@pytest.mark.parametrize("full_graph", [False, True])
@pytest.mark.parametrize("fn", [_returns_under_no_grad, _passes_through_under_no_grad],
                         ids=lambda f: f.__name__)
def test_stop_gradient_of_each_output_is_the_path_takens(fn, full_graph):
    static = paddle.jit.to_static(fn, full_graph=full_graph)
    flags = set()
    for x in ([0.5, 1.0, 1.5], [-1.0, -2.0, 0.25], [2.0, 3.0, 1.5], [0.1, 0.2, -0.1]):
        x = np.array(x, "float32")
        want, got = _flags_and_grad(fn, x), _flags_and_grad(static, x)
        assert got[0] == want[0]
        flags.update(want[0])
        for g, w in zip(got[1], want[1]):
            np.testing.assert_allclose(g, w, rtol=1e-6)
        assert (got[2] is None) == (want[2] is None)
        if want[2] is not None:
            np.testing.assert_allclose(got[2], want[2], rtol=1e-5)
    assert flags == {True, False}
