"""Changes of Python state made inside a called helper (issue 23, item 3): a global function,
a helper given an object, a method of the instance, a sublayer's forward and a helper of a
helper are found before tracing, so they happen on every call and a later read sees the new
value, with full_graph True and False, with and without a graph break."""
import numpy as np
import pytest

import dy2st as paddle
from tests.support import BREAK_MODES, graph_break

X = np.arange(6, dtype="float32").reshape(2, 3) - 2.0
class Holder:
    def __init__(self):
        self.calls = 0


HOLD = Holder()
LOG = []


def _bump():
    HOLD.calls += 1


def _log(v):
    LOG.append(v)


def _bump_obj(o):
    o.calls += 1


def _outer_helper():
    _bump()


def _scale_in_place(t, v):
    t[0] += v           # a tensor argument changed in place: no Python state


def global_helper(x, brk):
    if brk:
        graph_break(x)
    _bump()
    return x * HOLD.calls


def list_helper(x, brk):
    if brk:
        graph_break(x)
    _log(1)
    return x * len(LOG)


def object_helper(x, brk, o=HOLD):
    if brk:
        graph_break(x)
    _bump_obj(o)
    return x * o.calls


def helper_of_a_helper(x, brk):
    if brk:
        graph_break(x)
    _outer_helper()
    return x + HOLD.calls


class Bumper:
    """A callable object whose `__call__` changes its own state and another object's."""

    def __init__(self):
        self.calls = 0

    def __call__(self, t):
        self.calls += 1
        HOLD.calls += 1
        return t * float(self.calls)


BUMP = Bumper()


def callable_object(x, brk):
    if brk:
        graph_break(x)
    return BUMP(x) + BUMP(x) + HOLD.calls


class _Owner:
    def __init__(self):
        self.bump = BUMP


OWNER = _Owner()


def callable_object_attribute(x, brk):
    if brk:
        graph_break(x)
    return OWNER.bump(x) * 2.0


class Counting:
    """A context manager counting its exits in a global object (made by the `with` itself)."""

    def __enter__(self):
        LOG.append("enter")
        return self

    def __exit__(self, *exc):
        HOLD.calls += 1
        return False


class Made:
    def __init__(self):
        HOLD.calls += 1         # the class's __init__ changes a global object


MANAGER = Counting()


def with_user_manager(x, brk):
    with Counting():
        if brk:
            graph_break(x)
        y = x * 2.0
        if y.sum() > 0:
            y = y + 1.0
    return y * HOLD.calls + len(LOG)


def with_manager_instance(x, brk):
    if brk:
        graph_break(x)
    with MANAGER:
        y = x - 1.0
    return y * HOLD.calls


def _rows_logged(t):
    try:
        for r in t:
            yield r * 2.0
    finally:
        LOG.append("done")      # a generator of the user's runs as Python: its change counts


def generator_helper(x, brk):
    if brk:
        graph_break(x)
    s = x[0] * 0.0
    for v in _rows_logged(x):
        s = s + v
    return s * len(LOG)


def nested_function(x, brk):
    def step(t):
        LOG.append(1)
        return t * float(len(LOG))
    if brk:
        graph_break(x)
    return step(x) + step(x)


def nested_function_in_tensor_loop(x, brk):
    def step(r):
        with Counting():
            return r * float(HOLD.calls + 1)
    if brk:
        graph_break(x)
    s = x[0] * 0.0
    for r in x:
        if r.mean() < 0:
            continue
        s = s + step(r)
    return s, HOLD.calls


def class_init(x, brk):
    if brk:
        graph_break(x)
    Made()
    return x * HOLD.calls


def _state():
    return HOLD.calls, list(LOG), BUMP.calls


def _set_state(s):
    HOLD.calls, LOG[:], BUMP.calls = s[0], list(s[1]), s[2]


@pytest.fixture(autouse=True)
def fresh_state():
    _set_state((0, [], 0))
    yield
    _set_state((0, [], 0))


@pytest.mark.parametrize("full_graph,brk", BREAK_MODES)
@pytest.mark.parametrize("fn", [global_helper, list_helper, object_helper, helper_of_a_helper,
                                callable_object, callable_object_attribute],
                         ids=lambda f: f.__name__)
def test_helper_changes_happen_on_every_call(fn, full_graph, brk):
    static = paddle.jit.to_static(fn, full_graph=full_graph)
    for i in range(5):
        before = _state()
        got = static(paddle.to_tensor(X), brk).numpy()
        after_static = _state()
        _set_state(before)
        expected = fn(paddle.to_tensor(X), brk).numpy()
        np.testing.assert_allclose(got, expected, err_msg=f"call {i + 1}")
        assert after_static == _state(), f"call {i + 1}"


def _outputs(out):
    return [np.asarray(v.numpy() if isinstance(v, paddle.Tensor) else v)
            for v in (out if isinstance(out, tuple) else (out,))]


@pytest.mark.parametrize("full_graph,brk", BREAK_MODES)
@pytest.mark.parametrize("fn", [with_user_manager, with_manager_instance, generator_helper,
                                nested_function, nested_function_in_tensor_loop, class_init],
                         ids=lambda f: f.__name__)
def test_changes_made_by_managers_generators_and_nested_functions(fn, full_graph, brk):
    # audit round 6: a `with` statement's __enter__/__exit__, a user generator's body, a
    # function defined in the converted one and a class's __init__ changed global state in the
    # trace only: the next calls reused the program and the state stopped moving
    static = paddle.jit.to_static(fn, full_graph=full_graph)
    xs = [X, -X, X[:1], X * 0.5]
    for i, x in enumerate(xs):
        before = _state()
        got = _outputs(static(paddle.to_tensor(x), brk))
        after_static = _state()
        _set_state(before)
        expected = _outputs(fn(paddle.to_tensor(x), brk))
        for g, e in zip(got, expected):
            np.testing.assert_allclose(g, e, err_msg=f"call {i + 1}")
        assert after_static == _state(), f"call {i + 1}"


def tensor_helper(x):
    h = x * 1.0
    _scale_in_place(h, 2.0)
    return h


def test_a_helper_changing_only_a_tensor_keeps_one_program():
    static = paddle.jit.to_static(tensor_helper)
    for _ in range(3):
        np.testing.assert_allclose(static(paddle.to_tensor(X)).numpy(),
                                   tensor_helper(paddle.to_tensor(X)).numpy())
    assert static.num_programs == 1 and static.graph_breaks == []


class Inner(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.seen = 0

    def forward(self, x):
        self.seen += 1
        return x * 2.0


class Net(paddle.nn.Layer):
    def __init__(self, brk):
        super().__init__()
        self.brk = brk
        self.calls = 0
        self.history = []
        self.inner = Inner()

    def count(self, x):
        self.calls += 1
        self.history.append(self.calls)

    def forward(self, x):
        if self.brk:
            graph_break(x)
        self.count(x)
        h = self.inner(x)
        return h * self.calls + self.inner.seen + len(self.history)


@pytest.mark.parametrize("full_graph,brk", BREAK_MODES)
def test_layer_methods_and_sublayers_change_state_on_every_call(full_graph, brk):
    eager, net = Net(brk), Net(brk)
    static = paddle.jit.to_static(net, full_graph=full_graph)
    for i in range(4):
        expected = eager(paddle.to_tensor(X)).numpy()
        got = static(paddle.to_tensor(X)).numpy()
        np.testing.assert_allclose(got, expected, err_msg=f"call {i + 1}")
        assert (net.calls, net.history, net.inner.seen) == \
            (eager.calls, eager.history, eager.inner.seen)


def test_the_break_names_the_helper():
    static = paddle.jit.to_static(global_helper)
    static(paddle.to_tensor(X), False)
    reasons = [b.reason for b in static.graph_breaks if b.kind == "side-effect"]
    assert reasons and "`_bump(...)`" in reasons[0] and "test_helper_side_effects.py" in reasons[0]
