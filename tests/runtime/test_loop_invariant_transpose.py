"""A matrix a while body multiplies by transposed (`matmul(h, w, transpose_y=True)`, as RNN cells
do) and that the loop does not change is transposed into a contiguous copy once, before the loop;
results equal eager, and matrices the loop changes or reads otherwise are left as they are."""
import numpy as np

import dy2st as paddle
from dy2st.runtime.executor import compile_program
from dy2st.runtime.loop_products import HeldWeight, RecurrentWeight, times_transposed


def static_source(sf) -> str:
    program = sf.concrete_program.main_program
    return compile_program(program, program.feed_names, program.fetch_names).source


def loop_lines(source: str) -> list:
    """The lines inside the first loop of the generated function."""
    lines = source.splitlines()
    start = next(i for i, l in enumerate(lines) if l.lstrip().startswith(("for ", "while ")))
    depth = len(lines[start]) - len(lines[start].lstrip())
    body = []
    for line in lines[start + 1:]:
        if len(line) - len(line.lstrip()) <= depth:
            break
        body.append(line)
    return body


def rnn(x, h, w, u, n):
    for t in range(n):
        h = paddle.tanh(paddle.matmul(x[:, t], w, transpose_y=True) +
                        paddle.matmul(h, u, transpose_y=True))
    return h


def rnn_until(x, h, w, u, n):
    """A loop that is not a counted one: it ends on a value."""
    t = paddle.zeros([], "int64")
    while paddle.logical_and(t < n, h.sum() < 1e9):
        h = paddle.tanh(paddle.matmul(x[:, t], w, transpose_y=True) +
                        paddle.matmul(h, u, transpose_y=True))
        t = t + 1
    return h


def weight_changed_in_the_loop(x, h, w, u, n):
    for t in range(n):
        h = paddle.tanh(paddle.matmul(h, u, transpose_y=True))
        u = u * 0.9
    return h


def data(steps=5):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, steps, 4)).astype("float32")
    h = rng.standard_normal((3, 6)).astype("float32")
    w = (rng.standard_normal((6, 4)) * 0.5).astype("float32")
    u = (rng.standard_normal((6, 6)) * 0.5).astype("float32")
    return [paddle.to_tensor(a) for a in (x, h, w, u)] + [paddle.to_tensor(np.array([steps]))]


def check_equal(fn, args):
    sf = paddle.jit.to_static(fn, full_graph=True)
    np.testing.assert_allclose(sf(*args).numpy(), fn(*args).numpy(), rtol=1e-5, atol=1e-6)
    return static_source(sf)


def global_names(sf, value) -> list:
    """The generated code's global names bound to value."""
    program = sf.concrete_program.main_program
    compiled = compile_program(program, program.feed_names, program.fetch_names)
    return [k for k, v in compiled._run.__globals__.items() if v is value]


def test_loop_invariant_weights_are_prepared_once_before_the_loop():
    for fn in (rnn, rnn_until):
        args = data()
        source = check_equal(fn, args)
        sf = paddle.jit.to_static(fn, full_graph=True)
        sf(*args)
        [prepare] = global_names(sf, RecurrentWeight)
        [times] = global_names(sf, times_transposed)
        body = loop_lines(source)
        assert not any("swapaxes" in line or prepare + "(" in line for line in body), source
        assert sum(line.count(times + "(") for line in body) == 2, source
        before = source.split("\n    for " if fn is rnn else "\n    while ")[0]
        assert before.count(prepare + "(") == 2, source


def test_zero_and_one_turns_give_eager_results():
    for steps in (0, 1):
        args = data(max(steps, 1))
        args[-1] = paddle.to_tensor(np.array([steps]))
        check_equal(rnn, args)


def test_a_weight_the_loop_changes_stays_transposed_in_the_loop():
    source = check_equal(weight_changed_in_the_loop, data())
    assert any("swapaxes" in line for line in loop_lines(source)), source


class Cell(paddle.nn.Layer):
    """An RNN over a tensor-bounded loop whose weights are parameters."""

    def __init__(self):
        super().__init__()
        self.w = self.create_parameter([4, 3])
        self.u = self.create_parameter([4, 4])

    def forward(self, x, n):
        h = paddle.zeros([x.shape[0], 4])
        for t in range(n):
            h = paddle.tanh(paddle.matmul(x[:, t], self.w, transpose_y=True) +
                            paddle.matmul(h, self.u, transpose_y=True))
        return h


def test_a_parameters_transposed_copy_is_kept_between_runs_and_renewed_by_an_update():
    eager = Cell()
    static = paddle.jit.to_static(Cell())
    static.set_state_dict(eager.state_dict())
    x = paddle.rand([2, 5, 3])
    n = paddle.to_tensor(4)
    np.testing.assert_allclose(static(x, n).numpy(), eager(x, n).numpy(), rtol=1e-5, atol=1e-6)
    program = static.forward.concrete_program.main_program
    compiled = compile_program(program, program.feed_names, program.fetch_names)
    copies = [v for v in compiled._run.__globals__.values() if isinstance(v, HeldWeight)]
    assert len(copies) == 2             # one per weight, kept by the compiled program
    first = static.w._value
    np.testing.assert_allclose(static(x, n).numpy(), eager(x, n).numpy(), rtol=1e-5, atol=1e-6)
    for layer in (eager, static):       # an update replaces the parameters' arrays
        opt = paddle.optimizer.SGD(0.5, parameters=layer.parameters())
        layer(x, n).sum().backward()
        opt.step()
        opt.clear_grad()
    assert static.w._value is not first
    np.testing.assert_allclose(static.w.numpy(), eager.w.numpy(), rtol=1e-5, atol=1e-6)
    with paddle.no_grad():
        np.testing.assert_allclose(static(x, n).numpy(), eager(x, n).numpy(), rtol=1e-5, atol=1e-6)
    static.w.set_value(np.ones([4, 3], "float32"))
    eager.w.set_value(np.ones([4, 3], "float32"))
    np.testing.assert_allclose(static(x, n).numpy(), eager(x, n).numpy(), rtol=1e-5, atol=1e-6)
