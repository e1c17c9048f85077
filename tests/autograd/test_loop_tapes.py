"""What a training forward of a tensor loop pushes each turn for its gradient loop: only values a
gradient rule reads (runtime/passes/loop_tapes.py), a holder of the shape for values read for
their shape alone, nothing for values that are the same every turn (autograd/loop_values.py),
and one tape for a loop variable's input and output of a turn. Gradients are exactly those of
the program that pushes everything, and agree with eager autograd, on zero, one and several
turns, known and unknown batch dims."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.autograd import control_flow_grad, static_backward
from dy2st.runtime.program import Program
from dy2st.static import InputSpec


def rnn(xs, w, u, b):
    h = paddle.zeros([xs.shape[1], u.shape[0]], xs.dtype)
    for t in range(paddle.shape(xs)[0]):
        h = paddle.tanh(paddle.matmul(xs[t], w) + paddle.matmul(h, u) + b)
    return h


def lstm(xs, w, u, b):
    n = u.shape[0]
    h = paddle.zeros([xs.shape[1], n], xs.dtype)
    c = paddle.zeros([xs.shape[1], n], xs.dtype)
    for t in range(paddle.shape(xs)[0]):
        gates = paddle.matmul(xs[t], w) + paddle.matmul(h, paddle.tile(u, [1, 4])) + b
        i, f, g, o = paddle.split(gates, 4, axis=1)
        c = paddle.nn.functional.sigmoid(f) * c + paddle.nn.functional.sigmoid(i) * paddle.tanh(g)
        h = paddle.nn.functional.sigmoid(o) * paddle.tanh(c)
    return h + c


def gru_transposed(xs, w, u, b):
    # a weight transposed inside the body and a constant `1 - z`: the same every turn
    h = paddle.zeros([xs.shape[1], u.shape[0]], xs.dtype)
    for t in range(paddle.shape(xs)[0]):
        ut = paddle.transpose(u, [1, 0])
        z = paddle.nn.functional.sigmoid(paddle.matmul(xs[t], w) + b)
        hh = paddle.tanh(paddle.matmul(h, ut) + paddle.matmul(xs[t], w))
        h = z * h + (1.0 - z) * hh
    return h


def with_if_and_broadcast(xs, w, u, b):
    # a per-turn [batch, 1] value broadcast into [batch, n]: its gradient reads its shape only
    h = paddle.zeros([xs.shape[1], u.shape[0]], xs.dtype)
    for t in range(paddle.shape(xs)[0]):
        s = h.mean(axis=1, keepdim=True)
        a = paddle.matmul(xs[t], w) + paddle.matmul(h, u) + s
        if a.sum() > 0:
            h = paddle.tanh(a) + b
        else:
            h = a * 0.5
    return h


def nested(xs, w, u, b):
    h = paddle.zeros([xs.shape[1], u.shape[0]], xs.dtype)
    for t in range(paddle.shape(xs)[0]):
        k = paddle.zeros([], "int64")
        while k < t + 1:
            h = paddle.tanh(paddle.matmul(h, u) + b)
            k += 1
        h = h + paddle.matmul(xs[t], w)
    return h


CELLS = [rnn, lstm, gru_transposed, with_if_and_broadcast, nested]


def arrays(turns, batch=2, n_in=3, n=3, seed=0, cell=None):
    rng = np.random.default_rng(seed)
    width = 4 * n if cell is lstm else n
    return [rng.standard_normal((turns, batch, n_in)) * 0.5,
            rng.standard_normal((n_in, width)) * 0.5,
            rng.standard_normal((n, n)) * 0.5,
            rng.standard_normal((width,)) * 0.1]


def grads(fn, values):
    xs = [paddle.to_tensor(a, stop_gradient=False) for a in values]
    # (the weights' own term keeps a zero-turn loop's output differentiable)
    out = paddle.sum(fn(*xs) ** 2) + paddle.sum(xs[1]) * 0.1
    found = paddle.grad(out, xs, allow_unused=True)
    return float(out.numpy()), [np.zeros_like(a) if g is None else g.numpy()
                                for g, a in zip(found, values)]


@pytest.fixture
def push_everything(monkeypatch):
    """The tapes before this change: every value a rule is handed, pushed each turn."""
    def switch():
        monkeypatch.setattr(static_backward, "minimize_tapes", lambda program, first: set())
        monkeypatch.setattr(control_flow_grad, "invariant_op", lambda *a: None)
        monkeypatch.setattr(control_flow_grad, "carried_position", lambda *a: None)
    return switch


@pytest.mark.parametrize("cell", CELLS, ids=lambda c: c.__name__)
def test_gradients_exactly_as_when_everything_is_pushed(cell, push_everything):
    spec = [InputSpec([None, None, 3], "float64"), InputSpec([3, None], "float64"),
            InputSpec([3, 3], "float64"), InputSpec([None], "float64")]
    minimal = paddle.jit.to_static(cell, input_spec=spec, full_graph=True)
    runs = [(turns, grads(minimal, arrays(turns, cell=cell))) for turns in (0, 1, 3)]
    push_everything()
    full = paddle.jit.to_static(cell, input_spec=spec, full_graph=True)
    for turns, (value, found) in runs:
        values = arrays(turns, cell=cell)
        ref_value, ref = grads(full, values)
        assert value == ref_value
        for a, b in zip(found, ref):
            np.testing.assert_array_equal(a, b)
        eager_value, eager = grads(cell, values)
        np.testing.assert_allclose(value, eager_value, rtol=1e-10)
        for a, b in zip(found, eager):
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("cell", [rnn, with_if_and_broadcast], ids=lambda c: c.__name__)
def test_second_order_gradients_through_the_loop(cell):
    # create_graph replays the forward (shape holders and the tape of a turn's input and
    # output included) eagerly
    spec = [InputSpec([None, None, 3], "float64"), InputSpec([3, None], "float64"),
            InputSpec([3, 3], "float64"), InputSpec([None], "float64")]
    found = []
    for fn in (paddle.jit.to_static(cell, input_spec=spec, full_graph=True), cell):
        xs = [paddle.to_tensor(a, stop_gradient=False) for a in arrays(3, cell=cell)]
        (g,) = paddle.grad((fn(*xs) ** 2).sum(), [xs[2]], create_graph=True)
        (gg,) = paddle.grad((g * g).sum(), [xs[1]])
        found.append(gg.numpy())
    np.testing.assert_allclose(found[0], found[1], rtol=1e-8, atol=1e-10)


# ----------------------------------------------------------------------------- what is pushed
class Cell(paddle.nn.Layer):
    def __init__(self, fn, cell_inputs=3, n=3):
        super().__init__()
        width = 4 * n if fn is lstm else n
        self.fn = fn
        self.w = self.create_parameter([cell_inputs, width], "float64")
        self.u = self.create_parameter([n, n], "float64")
        self.b = self.create_parameter([width], "float64", is_bias=True)

    def forward(self, xs):
        return self.fn(xs, self.w, self.u, self.b)


def train_program(fn, batch=None):
    """The program of a whole train step (forward, backward, SGD) of fn's cell."""
    paddle.seed(0)
    model = Cell(fn)
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())

    def step(xs):
        loss = (model(xs) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss

    spec = [InputSpec([None, batch, 3], "float64")]
    sf = paddle.jit.to_static(step, input_spec=spec, full_graph=True)
    xs = arrays(4, cell=fn)[0]
    losses = [float(sf(paddle.to_tensor(xs)).numpy()) for _ in range(2)]
    return sf.program, losses


def pushed(program: Program, loop: int = 0):
    """Per forward loop (in program order), the values its body pushes: (op making it, meta)."""
    found = []
    for block in program.blocks:
        for op in block.ops:
            if op.type != "while":
                continue
            body = program.blocks[op.attrs["body_block"]]
            made = {o: p for p in body.ops for o in p.outputs}
            items = []
            for p in body.ops:
                if p.type == "tape_push":
                    v = program.find_var(p.inputs[1])
                    maker = made.get(v.name)
                    items.append((maker.type if maker else "param", tuple(v._shape)))
            if any(p.type == "tape_read" for p in body.ops):
                continue        # a gradient loop
            found.append(items)
    return found[loop]


def test_rnn_pushes_its_hidden_state_once_a_turn():
    program, _ = train_program(rnn, batch=2)
    items = pushed(program)
    # the hidden state (one tape for a turn's input and output) and the turn's input slice
    assert sorted(t for t, _ in items) == ["getitem", "tanh"]


def test_invariant_values_are_not_pushed():
    program, _ = train_program(gru_transposed, batch=2)
    items = pushed(program)
    # the transposed weight and the constant 1.0 are not pushed; `1 - z` is (its gradient rule
    # reads it as a multiplication's other operand)
    assert all(t not in ("transpose", "full") for t, _ in items), items
    assert sorted(t for t, _ in items) == ["add", "getitem", "getitem", "sigmoid", "subtract",
                                           "tanh"], items


def test_values_read_for_their_shape_push_a_holder_when_the_batch_is_unknown():
    program, losses = train_program(with_if_and_broadcast, batch=None)
    items = pushed(program)
    assert ("shape_holder", (-1, 1)) in items, items
    assert not any(t == "mean" for t, _ in items), items
    # the else branch's constant 0.5 is made again by the gradient, not a cond output pushed
    assert ("cond", ()) not in items, items
    assert losses[0] != losses[1]           # the step trained


def test_values_read_for_their_shape_push_nothing_when_it_is_known():
    program, _ = train_program(with_if_and_broadcast, batch=2)
    items = pushed(program)
    assert not any(t in ("shape_holder", "mean") for t, _ in items), items


def test_an_inner_loop_pushes_what_its_gradient_reads_through_the_outer_tape():
    program, _ = train_program(nested, batch=None)
    # the inner loop's matmul output is read for its shape through a tape of tapes
    assert sorted(pushed(program, 1)) == [("shape_holder", (-1, 3)), ("tanh", (-1, 3))]


def test_lstm_pushes_its_gates_and_states_once():
    program, _ = train_program(lstm, batch=None)
    values = sorted(t for t, _ in pushed(program) if t != "shape_holder")
    # three sigmoid gates, tanh of the candidate and of the cell, h and c (one tape each for
    # a turn's input and output) and the turn's input slice
    assert values == ["add", "getitem", "multiply", "sigmoid", "sigmoid", "sigmoid", "tanh",
                      "tanh"], values


def test_a_shape_holder_keeps_one_element():
    from dy2st.runtime.registry import OPS
    held = OPS["shape_holder"].kernel(np.ones((500, 64), np.float32))
    assert held.shape == (500, 64) and held.dtype == np.float32
    assert held.strides == (0, 0) and not held.flags.writeable and held.base.size == 1


def test_a_second_gradient_of_the_same_program_pushes_anew():
    # the first gradient (to a) reads sin(hx) for its shape alone, the second (to b) for its
    # values: the tape made to hold shapes is not the one the second gradient reads
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main):
            a = paddle.static.data("a", [None, 3], "float64")
            b = paddle.static.data("b", [None, 3], "float64")
            a.stop_gradient = b.stop_gradient = False
            n = paddle.static.data("n", [], "int64")

            def body(i, hx, hy, acc):
                x, y = paddle.sin(hx), paddle.cos(hy)
                return i + 1, x * 0.5, y * 0.5, acc + x * y

            out = paddle.static.nn.while_loop(
                lambda i, hx, hy, acc: i < n, body,
                [paddle.zeros([], "int64"), a, b, paddle.zeros_like(a)])[3]
            (ga,) = paddle.static.gradients([out.sum()], [a])
            (gb,) = paddle.static.gradients([out.sum()], [b])
        rng = np.random.default_rng(0)
        av, bv = rng.standard_normal((2, 3)), rng.standard_normal((2, 3))
        found = paddle.static.Executor().run(main, feed={"a": av, "b": bv, "n": np.array(3)},
                                             fetch_list=[ga, gb])
    finally:
        paddle.disable_static()
    ta, tb = (paddle.to_tensor(v, stop_gradient=False) for v in (av, bv))
    hx, hy, acc = ta, tb, paddle.zeros_like(ta)
    for _ in range(3):
        x, y = paddle.sin(hx), paddle.cos(hy)
        hx, hy, acc = x * 0.5, y * 0.5, acc + x * y
    eager = paddle.grad(acc.sum(), [ta, tb])
    for got, want in zip(found, eager):
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-10)
