"""An output's need of a gradient that depends on the path taken (no_grad, set_grad_enabled(False),
a no_grad helper, .detach(), .detach_(), stop_gradient = True on some paths only): nested tensor
ifs, ifs in tensor loops, trip counts, and values computed after them agree with eager code on
the outputs' stop_gradient, the gradients of inputs and parameters (None where eager gives
None) and whether backward raises, in both full_graph settings."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.jit.path_grads import path_flags
from dy2st.runtime.passes.roll import roll_loops

X = [np.array(v, "float32") for v in ([0.5, 1.0, 1.5], [-1.0, 2.0, 0.25], [-2.0, -3.0, 1.5],
                                      [1.0, -3.0, 1.0])]
W = np.array([1.0, 2.0, 3.0], "float32")


def _nested_ifs(x):
    if x.sum() > 0:
        if x[0] > 0:
            with paddle.no_grad():
                y = x * x
        else:
            y = x * 2.0
    else:
        y = x * 3.0
    return y + 1.0, x * 0.5          # y + 1.0: a value computed after the `if` from its output


def _block0_if_then_used(x):
    with paddle.no_grad():
        if x.sum() > 0:
            y = x * x
        else:
            y = x
    return y * 2.0


def _if_in_loop(x, n):
    y = x * 1.0
    i = paddle.zeros([], "int64")
    while i < n:
        if (x * (i + 1).astype("float32")).sum() > 2:
            with paddle.no_grad():
                y = x * 2.0
        else:
            y = y * 3.0
        i += 1
    return y


def _trip_count(x, n):
    y = x
    for _ in range(n):
        with paddle.no_grad():
            y = y * 2.0
    return y


def _nested_loops(x, n):
    y = x * 1.0
    i = paddle.zeros([], "int64")
    while i < n:
        j = paddle.zeros([], "int64")
        while j < i:
            with paddle.set_grad_enabled(False):
                y = y * 1.5
            j += 1
        i += 1
    return y, y * x


def _break_out(x, n):
    y = x * 1.0
    i = paddle.zeros([], "int64")
    while i < n:
        if y.sum() > 4:
            break
        with paddle.no_grad():
            y = y * 2.0
        i += 1
    return y


def _sum_over_no_turn(x, n):
    y = paddle.zeros([3])           # no turn: a constant, which needs no gradient
    i = paddle.zeros([], "int64")
    while i < n:
        y = y + x
        i += 1
    return y


@paddle.no_grad()
def _scaled(t):
    return t * 5.0


def _helper_in_nested_ifs(x, w):
    if x.sum() > 0:
        if x[1] > 1:
            y = _scaled(x) + w      # x's gradient stops here: x.grad is None, w's is not
        else:
            y = x * w
    else:
        y = w * 1.0
    return y


def _reaches_on_one_path(x, w):
    if x.sum() > 0:
        with paddle.no_grad():
            z = x * 2.0
    else:
        z = x * 3.0
    return w * 2.0 + z


def _stop_gradient_set_on_one_path(x):
    y = x * 2.0
    if x.sum() > 0:
        y.stop_gradient = True
    return y * 1.0


def _stop_gradient_set_on_a_new_value(x):
    if x.sum() > 0:
        y = x * 2.0
        y.stop_gradient = True
    else:
        y = x * 3.0
    return y


def _detach_in_place_on_one_path(x):
    y = x * 2.0
    if x.sum() > 0:
        y.detach_()
    return y * 1.0


def _stop_gradient_set_on_one_turn(x, n):
    y = x * 1.0
    i = paddle.zeros([], "int64")
    while i < n:
        y = y + x
        if i == 1:
            y.stop_gradient = True
        i += 1
    return y


def _stop_gradient_set(x):
    y = x * 2.0
    y.stop_gradient = True
    return y + x


def _run(fn, args):
    tensors = [paddle.to_tensor(a, stop_gradient=a.dtype != np.float32) for a in args]
    out = fn(*tensors)
    out = out if isinstance(out, tuple) else (out,)
    raised = False
    try:
        paddle.add_n([(o * o).sum() for o in out]).backward()
    except Exception:  # noqa: BLE001 - eager raises when nothing needs a gradient
        raised = True
    grads = [None if t.grad is None else t.grad.numpy() for t in tensors
             if t.dtype == paddle.float32]
    return [o.stop_gradient for o in out], raised, grads, [o.numpy() for o in out]


def _agree(fn, calls, full_graph):
    static = paddle.jit.to_static(fn, full_graph=full_graph)
    flags = set()
    for args in calls:
        want, got = _run(fn, args), _run(static, args)
        assert got[0] == want[0], args
        assert got[1] == want[1], args
        for g, w in zip(got[2], want[2]):
            assert (g is None) == (w is None), args
            if w is not None:
                np.testing.assert_allclose(g, w, rtol=1e-5)
        for g, w in zip(got[3], want[3]):
            np.testing.assert_allclose(g, w, rtol=1e-6)
        flags.add((tuple(want[0]), tuple(w is None for w in want[2])))
    return flags


def _counts(*ns):
    return [np.array(n, "int64") for n in ns]


@pytest.mark.parametrize("full_graph", [False, True])
@pytest.mark.parametrize("fn, calls", [
    (_nested_ifs, [(x,) for x in X]),
    (_block0_if_then_used, [(x,) for x in X[1:3]]),
    (_if_in_loop, [(x, n) for x in X[:2] for n in _counts(0, 1, 2)]),
    (_trip_count, [(X[0], n) for n in _counts(0, 1, 2)]),
    (_nested_loops, [(X[0], n) for n in _counts(0, 1, 2, 3)]),
    (_break_out, [(x, n) for x in X[1:3] for n in _counts(0, 1, 3)]),
    (_sum_over_no_turn, [(X[0], n) for n in _counts(0, 2)]),
    (_helper_in_nested_ifs, [(x, W) for x in X]),
    (_reaches_on_one_path, [(x, W) for x in X[:3]]),
    (_stop_gradient_set_on_one_path, [(x,) for x in X[:3]]),
    (_stop_gradient_set_on_a_new_value, [(x,) for x in X[:3]]),
    (_detach_in_place_on_one_path, [(x,) for x in X[:3]]),
    (_stop_gradient_set_on_one_turn, [(X[0], n) for n in _counts(0, 1, 2, 3)]),
], ids=lambda v: v.__name__ if callable(v) else "")
def test_each_path_needs_the_gradients_eager_code_does(fn, calls, full_graph):
    # the inputs take paths that differ in the outputs' flags or in which tensors get gradients
    assert len(_agree(fn, calls, full_graph)) > 1


@pytest.mark.parametrize("full_graph", [False, True])
def test_stop_gradient_set_outside_control_flow_stops_it(full_graph):
    assert _agree(_stop_gradient_set, [(X[0],)], full_graph) == {((False,), (False,))}


class _Cells(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.a = paddle.nn.Linear(3, 3)
        self.b = paddle.nn.Linear(3, 3)

    def forward(self, x, n):
        h = x * 1.0
        i = paddle.zeros([], "int64")
        while i < n:
            if h.sum() > 0:
                with paddle.no_grad():
                    h = self.a(h)
            else:
                h = self.b(h)
            i += 1
        return h


def _net():
    net = _Cells()
    for k, p in enumerate(net.parameters()):
        p.set_value(np.linspace(-1, 1, p.size).reshape(p.shape).astype("float32") * (k + 1))
    return net


def _layer_grads(net, run, x, n):
    net.clear_gradients()
    t = paddle.to_tensor(x, stop_gradient=False)
    out = run(t, paddle.to_tensor(np.array(n, "int64")))
    raised = False
    try:
        (out * out).sum().backward()
    except Exception:  # noqa: BLE001 - eager raises when nothing needs a gradient
        raised = True
    return out.stop_gradient, raised, [None if p.grad is None else p.grad.numpy()
                                       for p in [t] + list(net.parameters())]


@pytest.mark.parametrize("full_graph", [False, True])
def test_parameters_of_a_layer_used_on_some_turns_under_no_grad(full_graph):
    eager, net = _net(), _net()
    static = paddle.jit.to_static(net, full_graph=full_graph)
    for x in X[:3]:
        for n in (0, 1, 2):
            want, got = _layer_grads(eager, eager, x, n), _layer_grads(net, static, x, n)
            assert got[:2] == want[:2], (x, n)
            for g, w in zip(got[2], want[2]):
                assert (g is None) == (w is None), (x, n)
                if w is not None:
                    np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-6)


def _rnn(x, h, n):
    i = paddle.zeros([], "int64")
    while i < n:
        h = paddle.tanh(h * x)
        i += 1
    return h


def _program(fn, *args):
    static = paddle.jit.to_static(fn)
    program = static.get_concrete_program(*args).main_program
    return program, list(program.fetch_names)


def _loop_ops(program):
    return [(op.attrs["n_loop_vars"], len(op.inputs), len(op.outputs))
            for b in program.blocks for op in b.ops if op.type == "while"]


def test_an_rnn_loop_gets_its_flags_outside_the_loop():
    # an RNN whose state needs a gradient: the weights and inputs reach its output only when a
    # turn runs, which the loop's condition on its initial values tells; the loop is unchanged
    x, h = paddle.to_tensor(X[0]), paddle.to_tensor(W)
    program, outputs = _program(_rnn, x, h, paddle.to_tensor(np.array(2)))
    loops = _loop_ops(program)
    body = [str(b) for b in program.blocks[1:]]
    found = path_flags(program, outputs, list(program.feed_names[:2]))
    assert found is not None and list(found.words) == [0]
    assert _loop_ops(program) == loops and [str(b) for b in program.blocks[1:]] == body
    program, outputs = _program(_trip_count, x, paddle.to_tensor(np.array(2)))
    found = path_flags(program, outputs, [program.feed_names[0]])
    assert found is not None and list(found.words) == [0]


def _rnn_constant_turns(x, h):
    for _ in range(20):
        h = paddle.tanh(h * x + 1.0)
    return h


def test_a_loop_over_a_constant_range_gets_no_flags():
    # rolled into a tensor loop, it surely runs a turn: x reaches the output on every call
    x, h = paddle.to_tensor(X[0]), paddle.to_tensor(W)
    program, outputs = _program(_rnn_constant_turns, x, h)
    roll_loops(program)
    assert [op.type for op in program.global_block().ops].count("while") == 1
    before = str(program)
    assert path_flags(program, outputs, list(program.feed_names[:2])) is None
    assert str(program) == before


def test_programs_without_such_paths_get_no_flags():
    # the state alone needs a gradient: the output depends on it on every path
    x, h = paddle.to_tensor(X[0]), paddle.to_tensor(W)
    program, outputs = _program(_rnn, x, h, paddle.to_tensor(np.array(2)))
    before = str(program)
    assert path_flags(program, outputs, [None, program.feed_names[1]]) is None
    assert str(program) == before


class _Branches(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.a = paddle.nn.Linear(3, 3)
        self.b = paddle.nn.Linear(3, 3)

    def forward(self, x):
        if x.sum() > 0:
            if x[0, 0] > 0:
                with paddle.no_grad():
                    h = self.a(x)
            else:
                h = self.a(x) * 2.0
        else:
            h = self.b(x)
        return h


def _fine_tune(model, x):
    for p in model.parameters():
        p.clear_grad(set_to_zero=False)
    out = model(paddle.to_tensor(np.array([x], "float32")))
    raised = False
    try:
        (out * out).sum().backward()
    except Exception:  # noqa: BLE001 - eager raises when nothing needs a gradient
        raised = True
    return out.stop_gradient, raised, [None if p.grad is None else p.grad.numpy()
                                       for p in model.parameters()]


def test_a_loaded_model_fine_tuned_through_a_nested_no_grad(tmp_path):
    # the saved program keeps no_grad's `detach`: the loaded model's training forward flags its
    # output by the path taken, as the eager Layer's
    net = _Branches()
    paddle.jit.save(net, str(tmp_path / "m"),
                    input_spec=[paddle.static.InputSpec([None, 3], "float32")])
    loaded = paddle.jit.load(str(tmp_path / "m"))
    loaded.train()
    for x in ([0.5, 1.0, 1.0], [-0.5, 1.0, 1.0], [-1.0, -1.0, -1.0]):
        want, got = _fine_tune(net, x), _fine_tune(loaded, x)
        assert got[:2] == want[:2], x
        for g, w in zip(got[2], want[2]):
            assert (g is None) == (w is None), x
            if w is not None:
                np.testing.assert_allclose(g, w, rtol=1e-5)
