"""Guards: a compiled program is reused only while every Python value its trace read is unchanged
(issue 23, items 1-3 and 5). Each test changes Python state between calls and compares every call
with eager, without a graph break (full_graph True and False) and with one."""
import logging
import types

import numpy as np
import pytest

import dy2st as paddle
from dy2st.jit import auto_numbers, cache_limit
from dy2st.jit.signature import describe_change, value_key
from tests.support import BREAK_MODES, graph_break

X = np.arange(6, dtype="float32").reshape(2, 3) - 2.0

K = 1.0
N = 2
FLAG = True
L = [1, 2]
D = {"a": 1.0}
ARR = np.ones([3], "float32")
T = paddle.to_tensor(np.ones([3], "float32"))
ACT = paddle.nn.functional.relu


def _reset():
    g = globals()
    g.update(K=1.0, N=2, FLAG=True, L=[1, 2], D={"a": 1.0}, ARR=np.ones([3], "float32"),
             T=paddle.to_tensor(np.ones([3], "float32")), ACT=paddle.nn.functional.relu)


@pytest.fixture(autouse=True)
def fresh_globals():
    _reset()
    yield
    _reset()


def _compare(fn, static, changes, args=lambda: (paddle.to_tensor(X),)):
    """Call eager and static after each change of state; every call must agree."""
    for i, change in enumerate([lambda: None] + list(changes)):
        change()
        expected = fn(*args())
        got = static(*args())
        np.testing.assert_allclose(np.asarray(got), np.asarray(expected), rtol=1e-6,
                                   err_msg=f"call {i + 1}")


def _g(name, value):
    return lambda: globals().__setitem__(name, value)


# -- item 1 (and 2 with a break): globals -----------------------------------------------------

def f_float(x, brk):
    if brk:
        graph_break(x)
    return x * K


def f_range(x, brk):
    if brk:
        graph_break(x)
    for _ in range(N):
        x = x + 1
    return x


def f_flag(x, brk):
    if brk:
        graph_break(x)
    if FLAG:
        return x + 1
    return x - 1


def f_len(x, brk):
    if brk:
        graph_break(x)
    return x * len(L)


def f_dict(x, brk):
    if brk:
        graph_break(x)
    return x * D["a"]


def f_ndarray(x, brk):
    if brk:
        graph_break(x)
    return x + paddle.to_tensor(ARR)


def f_tensor(x, brk):
    if brk:
        graph_break(x)
    return x + T


def f_callable(x, brk):
    if brk:
        graph_break(x)
    return ACT(x)


GLOBAL_CASES = [
    (f_float, [_g("K", 2.0), _g("K", -0.5), _g("K", -0.5)]),
    (f_range, [_g("N", 3), _g("N", 0), _g("N", 2)]),
    (f_flag, [_g("FLAG", False), _g("FLAG", True)]),
    (f_len, [lambda: L.append(3), lambda: L.clear(), lambda: L.extend([1, 1, 1, 1])]),
    (f_dict, [lambda: D.__setitem__("a", 3.0), lambda: D.__setitem__("a", -1.0)]),
    (f_ndarray, [lambda: ARR.__iadd__(1), lambda: ARR.__imul__(3)]),
    (f_tensor, [_g("T", paddle.to_tensor(np.full([3], 5.0, "float32"))),
                _g("T", paddle.to_tensor(np.full([3], -2.0, "float32")))]),
    (f_callable, [_g("ACT", paddle.nn.functional.sigmoid), _g("ACT", paddle.tanh)]),
]


@pytest.mark.parametrize("full_graph,brk", BREAK_MODES)
@pytest.mark.parametrize("fn,changes", GLOBAL_CASES, ids=[c[0].__name__ for c in GLOBAL_CASES])
def test_changed_global_is_seen(fn, changes, full_graph, brk):
    if full_graph and brk:
        pytest.skip("a graph break needs full_graph=False")
    static = paddle.jit.to_static(fn, full_graph=full_graph)
    x = lambda: (paddle.to_tensor(X), brk)  # noqa: E731
    _compare(fn, static, changes, args=x)


def _helper_reads_k(x):
    return x * K + len(L)


def f_helper(x, brk):
    if brk:
        graph_break(x)
    y = _helper_reads_k(x)
    return y + 1


def _nested_helper(x):
    return _helper_reads_k(x) * D["a"]


def f_nested_helper(x, brk):
    if brk:
        graph_break(x)
    return _nested_helper(x)


@pytest.mark.parametrize("full_graph,brk", BREAK_MODES)
@pytest.mark.parametrize("fn", [f_helper, f_nested_helper])
def test_global_read_by_a_helper_is_guarded(fn, full_graph, brk):
    static = paddle.jit.to_static(fn, full_graph=full_graph)
    changes = [_g("K", 3.0), lambda: L.append(0), lambda: D.__setitem__("a", 2.0), _g("K", 3.0)]
    _compare(fn, static, changes, args=lambda: (paddle.to_tensor(X), brk))


def test_closure_cell_is_guarded():
    scale = [2.0]

    def make():
        k = 2.0

        def f(x):
            return x * k

        def set_k(v):
            nonlocal k
            k = v
        return f, set_k
    f, set_k = make()
    static = paddle.jit.to_static(f)
    _compare(f, static, [lambda: set_k(5.0), lambda: set_k(-1.0), lambda: set_k(-1.0)])
    assert scale == [2.0]


# -- item 3: attributes of a Layer ------------------------------------------------------------

class Net(paddle.nn.Layer):
    def __init__(self, brk=False):
        super().__init__()
        self.brk = brk
        self.scale = 1.0
        self.steps = 2
        self.flag = True
        self.items = [1.0, 2.0]
        self.table = {"w": 1.0}
        self.bias = paddle.to_tensor(np.ones([3], "float32"))
        self.fc = paddle.nn.Linear(3, 3)

    def helper(self, x):
        return x * self.scale

    def forward(self, x):
        if self.brk:
            graph_break(x)
        h = self.helper(x)
        for _ in range(self.steps):
            h = h + 1
        if self.flag:
            h = h * 2
        h = h + sum(self.items) + self.table["w"]
        return self.fc(h + self.bias)


def _set(obj, name, value):
    return lambda: setattr(obj, name, value)


@pytest.mark.parametrize("full_graph,brk", BREAK_MODES)
def test_layer_attributes_are_guarded(full_graph, brk):
    paddle.seed(0)
    eager = Net(brk)
    static_net = Net(brk)
    static_net.set_state_dict(eager.state_dict())
    static = paddle.jit.to_static(static_net, full_graph=full_graph)
    both = lambda name, value: lambda: (setattr(eager, name, value),  # noqa: E731
                                        setattr(static_net, name, value))
    changes = [both("scale", 3.0), both("steps", 4), both("steps", 0), both("flag", False),
               lambda: (eager.items.append(5.0), static_net.items.append(5.0)),
               lambda: (eager.table.__setitem__("w", -2.0), static_net.table.__setitem__("w", -2.0)),
               both("bias", paddle.to_tensor(np.full([3], 7.0, "float32")))]
    _compare(eager, static, changes)


class Cfg:
    def __init__(self, k):
        self.k = k
        self.inner = types.SimpleNamespace(m=1.0)


def f_cfg(x, cfg, brk):
    if brk:
        graph_break(x)
    return x * cfg.k + cfg.inner.m


def _reads_cfg(x, c):
    return x * c.k


def f_cfg_helper(x, cfg, brk):
    if brk:
        graph_break(x)
    return _reads_cfg(x, cfg) + 1


# -- item 5: attributes of argument objects ---------------------------------------------------

@pytest.mark.parametrize("full_graph,brk", BREAK_MODES)
@pytest.mark.parametrize("fn", [f_cfg, f_cfg_helper])
def test_argument_object_attributes_are_guarded(fn, full_graph, brk):
    cfg = Cfg(1.0)
    static = paddle.jit.to_static(fn, full_graph=full_graph)
    changes = [_set(cfg, "k", 2.0), _set(cfg, "k", 5.0),
               lambda: setattr(cfg.inner, "m", 4.0), _set(cfg, "inner", types.SimpleNamespace(m=-1.0))]
    _compare(fn, static, changes, args=lambda: (paddle.to_tensor(X), cfg, brk))


# -- mode flags ---------------------------------------------------------------------------------

def f_grad_mode(x):
    if paddle.is_grad_enabled():
        return x + 1
    return x - 1


def test_grad_mode_is_guarded_when_read():
    static = paddle.jit.to_static(f_grad_mode)
    x = paddle.to_tensor(X)
    np.testing.assert_allclose(static(x).numpy(), X + 1)
    with paddle.no_grad():
        np.testing.assert_allclose(static(x).numpy(), X - 1)
    np.testing.assert_allclose(static(x).numpy(), X + 1)


def test_training_flag_is_guarded():
    layer = paddle.nn.Dropout(0.5)

    class M(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.drop = layer

        def forward(self, x):
            return x + 1 if self.training else x - 1
    m = paddle.jit.to_static(M())
    x = paddle.to_tensor(X)
    np.testing.assert_allclose(m(x).numpy(), X + 1)
    m.eval()
    np.testing.assert_allclose(m(x).numpy(), X - 1)


# -- what guards cost: unchanged state reuses the program -------------------------------------

def test_unchanged_state_reuses_one_program():
    static = paddle.jit.to_static(f_helper)
    for _ in range(5):
        static(paddle.to_tensor(X), False)
    assert static.num_programs == 1


def test_retrace_names_the_failed_guard(caplog):
    static = paddle.jit.to_static(f_float)
    static(paddle.to_tensor(X), False)
    globals()["K"] = 4.0
    with caplog.at_level(logging.INFO, logger="dy2st.jit"):
        static(paddle.to_tensor(X), False)
    assert "guard failed: global `K`: 1.0 -> 4.0" in caplog.text
    globals()["K"] = 1.0
    static(paddle.to_tensor(X), False)      # the first program again, not a third one
    assert static.num_programs == 2


# -- item 10: a bounded cache -----------------------------------------------------------------

def f_scale(x, s):
    return x * s


def test_cache_is_bounded_and_warns_once(monkeypatch):
    monkeypatch.setattr(cache_limit, "CACHE_LIMIT", 5)
    # (a number that keeps changing becomes an input instead: tests/jit/test_auto_numbers.py)
    monkeypatch.setattr(auto_numbers, "ENABLED", False)
    static = paddle.jit.to_static(f_scale, full_graph=True)
    x = paddle.to_tensor(X)
    with pytest.warns(cache_limit.CacheLimitWarning) as record:
        for s in range(12):
            np.testing.assert_allclose(static(x, float(s)).numpy(), X * s)
    assert len(record) == 1
    message = str(record[0].message)
    assert "f_scale" in message and "argument `s` value 4.0 -> 5.0" in message
    assert static.num_programs == 5
    np.testing.assert_allclose(static(x, 2.0).numpy(), X * 2)       # still compiled
    assert static.num_programs == 5


def test_cache_limit_names_a_failing_guard(monkeypatch):
    monkeypatch.setattr(cache_limit, "CACHE_LIMIT", 3)
    monkeypatch.setattr(auto_numbers, "ENABLED", False)
    static = paddle.jit.to_static(f_float, full_graph=True)
    with pytest.warns(cache_limit.CacheLimitWarning, match="guard failed: global `K`"):
        for k in range(6):
            globals()["K"] = float(k)
            np.testing.assert_allclose(static(paddle.to_tensor(X), False).numpy(), X * k)
    assert static.num_programs == 3


def test_default_cache_limit_is_documented_value():
    assert cache_limit.CACHE_LIMIT == 20


def test_a_changed_dtype_argument_reads_as_paddle_prints_it():
    x = paddle.to_tensor(X)
    old = ((value_key(x), value_key(paddle.float32)), (), None)
    new = ((value_key(x), value_key(paddle.float64)), (), None)
    assert describe_change(["x", "dt"], old, new) == \
        "argument `dt` changed (paddle.float32 -> paddle.float64)"
