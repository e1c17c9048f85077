"""Side effects of a converted function on Python state happen on every call, with the real
values, and a value read back after the change sees it (issue 23, items 4, 8 and 9). Each case
runs a sequence of calls on two copies of the state, one eagerly and one through to_static, and
compares every result and the state after each call."""
import copy

import numpy as np
import pytest

import dy2st as paddle
from dy2st.jit.grown_state import GrownStateError

XS = [np.full([2, 3], v, "float32") for v in (1.0, -2.0, -0.5, 3.0, -1.0, 0.25, 2.0)]


def _run(fn, static, make_state, state_of=lambda s: s, calls=len(XS)):
    eager_state, static_state = make_state(), make_state()
    for i in range(calls):
        x = XS[i % len(XS)]
        expected = fn(paddle.to_tensor(x), eager_state)
        got = static(paddle.to_tensor(x), static_state)
        np.testing.assert_allclose(np.asarray(got), np.asarray(expected), rtol=1e-6,
                                   err_msg=f"call {i + 1}")
        assert _plain(state_of(static_state)) == _plain(state_of(eager_state)), f"call {i + 1}"


def _plain(value):
    """State with tensors as lists, to compare with ==."""
    if isinstance(value, paddle.Tensor):
        return value.numpy().tolist()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "__dict__") and not isinstance(value, type):
        return {k: _plain(v) for k, v in vars(value).items() if not k.startswith("_")}
    return value


class Counter:
    def __init__(self):
        self.calls = 0
        self.log = []
        self.cache = {}


def counted(x, c):
    c.calls += 1
    return x * c.calls


def logged(x, c):
    c.log.append(float(c.calls))
    return x * len(c.log)


def cached(x, c):
    c.cache["k"] = x * 2
    c.cache["n"] = c.cache.get("n", 0) + 1
    return c.cache["k"] + c.cache["n"]


def attribute_then_read(x, c):
    c.calls = c.calls + 2
    y = x + c.calls
    c.calls = c.calls * 2
    return y * c.calls


CASES = [counted, logged, cached, attribute_then_read]


@pytest.mark.parametrize("fn", CASES, ids=[f.__name__ for f in CASES])
def test_side_effects_on_an_argument_object_every_call(fn):
    _run(fn, paddle.jit.to_static(fn), Counter)


PYTHON_VALUE_CASES = [counted, logged, attribute_then_read]


@pytest.mark.parametrize("fn", PYTHON_VALUE_CASES, ids=[f.__name__ for f in PYTHON_VALUE_CASES])
def test_full_graph_side_effects_on_python_values_every_call(fn):
    _run(fn, paddle.jit.to_static(fn, full_graph=True), Counter)


class CountingNet(paddle.nn.Layer):
    """The example of docs/graph_breaks.md: a Python counter on the Layer."""

    def __init__(self):
        super().__init__()
        self.calls = 0
        self.seen = []
        self.constant_vars = {}

    def forward(self, x):
        self.calls += 1
        self.seen.append(self.calls)
        self.constant_vars["last"] = self.calls
        return x * self.calls + len(self.seen)


@pytest.mark.parametrize("full_graph", [False, True])
def test_layer_counter_is_replayed_every_call(full_graph):
    eager, static_net = CountingNet(), CountingNet()
    static = paddle.jit.to_static(static_net, full_graph=full_graph)
    for i, v in enumerate(XS):
        expected = eager(paddle.to_tensor(v))
        got = static(paddle.to_tensor(v))
        np.testing.assert_allclose(got.numpy(), expected.numpy(), err_msg=f"call {i + 1}")
    assert static_net.calls == eager.calls == len(XS)
    assert static_net.seen == eager.seen
    assert static_net.constant_vars == eager.constant_vars


LOG = []
TOTAL = 0.0


def appends_global(x, _state):
    LOG.append(1)
    return x * len(LOG)


def writes_global(x, _state):
    global TOTAL
    TOTAL = TOTAL + 1.5
    return x + TOTAL


@pytest.mark.parametrize("full_graph", [False, True])
@pytest.mark.parametrize("fn", [appends_global, writes_global])
def test_global_side_effects_every_call(fn, full_graph):
    global TOTAL
    static = paddle.jit.to_static(fn, full_graph=full_graph)
    results = []
    for mode in ("eager", "static"):
        LOG.clear()
        TOTAL = 0.0
        f = fn if mode == "eager" else static
        results.append([np.asarray(f(paddle.to_tensor(v), None)) for v in XS])
        results.append((list(LOG), TOTAL))
    for e, s in zip(results[0], results[2]):
        np.testing.assert_allclose(s, e)
    assert results[1] == results[3]


# -- item 8: a dict entry set in the compiled `else` branch of an `if` a break opened ----------

def dict_in_branches(x, d):
    if float(np.sum(x.numpy())) > 0:        # a Python decision on a tensor value: a break
        d["k"] = x + 1
        d["count"] = d.get("count", 0) + 1
    else:
        d["k"] = x * 3
        d["neg"] = d.get("neg", 0) + 1
    return d["k"] * 2


def local_dict_in_branches(x, _state):
    d = {}
    if float(np.sum(x.numpy())) > 0:
        d["k"] = x + 1
    else:
        d["k"] = x * 3
    return d["k"] - 1


@pytest.mark.parametrize("fn", [dict_in_branches, local_dict_in_branches])
def test_dict_entry_set_in_an_opened_branch(fn):
    _run(fn, paddle.jit.to_static(fn), dict, calls=2 * len(XS))


# -- item 9: a global rebound in both branches of a tensor `if` --------------------------------

G = 0.0


def global_in_both_branches(x, _state):
    global G
    if x.mean() > 0:
        G = 1.0
    else:
        G = 2.0
    return x * G


def test_global_rebound_in_both_branches():
    global G
    static = paddle.jit.to_static(global_in_both_branches)
    for i, v in enumerate(XS * 2):
        G = 0.0
        expected = global_in_both_branches(paddle.to_tensor(v), None)
        g_eager = G
        G = 0.0
        got = static(paddle.to_tensor(v), None)
        np.testing.assert_allclose(got.numpy(), expected.numpy(), err_msg=f"call {i + 1}")
        assert G == g_eager, f"call {i + 1}"


# -- a Python number that changes every call --------------------------------------------------

@pytest.mark.parametrize("full_graph", [False, True])
def test_counter_does_not_stay_stale_past_the_recompile_limit(full_graph):
    c_eager, c_static = Counter(), Counter()
    static = paddle.jit.to_static(counted, full_graph=full_graph)
    for i in range(30):
        v = XS[i % len(XS)]
        np.testing.assert_allclose(static(paddle.to_tensor(v), c_static).numpy(),
                                   counted(paddle.to_tensor(v), c_eager).numpy())
    assert c_static.calls == 30


def test_full_graph_side_effect_is_named_when_the_cache_fills(monkeypatch):
    from dy2st.jit import cache_limit
    monkeypatch.setattr(cache_limit, "CACHE_LIMIT", 3)
    static = paddle.jit.to_static(counted, full_graph=True)
    c = Counter()
    with pytest.warns(cache_limit.CacheLimitWarning, match="a Python side effect at .*"
                      "test_side_effect_replay.py:48"):
        for _ in range(5):
            static(paddle.to_tensor(XS[0]), c)
    assert c.calls == 5


def test_state_copy_is_independent():
    # the harness itself: the two states never share objects
    a = Counter()
    b = copy.deepcopy(a)
    counted(paddle.to_tensor(XS[0]), a)
    assert b.calls == 0


# -- jit.save of a Layer whose forward writes its own containers (Paddle's NetWithControlFlowIf) --

class WritesConstants(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 3)
        self.constant_vars = {}
        self.history = []

    def forward(self, x):
        y = self.fc(x)
        self.constant_vars["bias"] = y.mean()
        self.history.append(1)
        return y + self.constant_vars["bias"] * len(self.history)


def test_layer_writing_its_containers_calls_and_saves(tmp_path):
    paddle.seed(1)
    eager = WritesConstants()
    static_net = WritesConstants()
    static_net.set_state_dict(eager.state_dict())
    static = paddle.jit.to_static(static_net)
    for i, v in enumerate(XS[:4]):
        np.testing.assert_allclose(static(paddle.to_tensor(v)).numpy(),
                                   eager(paddle.to_tensor(v)).numpy(), rtol=1e-5,
                                   err_msg=f"call {i + 1}")
    assert static_net.history == eager.history == [1, 1, 1, 1]
    spec = [paddle.static.InputSpec([None, 3], "float32")]
    # `self.history` grows on every call and forward reads it: a saved program would see the
    # four entries of the save on every call, where eager code sees one more each time
    with pytest.raises(GrownStateError, match=r"`self.history`"):
        paddle.jit.save(static, str(tmp_path / "net"), input_spec=spec)
    assert not list(tmp_path.iterdir())
    assert static_net.history == [1, 1, 1, 1]


class WritesConstantsAnew(WritesConstants):
    def forward(self, x):
        y = self.fc(x)
        self.constant_vars["bias"] = y.mean()
        self.history = [1]
        return y + self.constant_vars["bias"] * len(self.history)


def test_layer_writing_its_containers_saves(tmp_path):
    paddle.seed(1)
    net = WritesConstantsAnew()
    static = paddle.jit.to_static(net)
    static(paddle.to_tensor(XS[0]))
    path = str(tmp_path / "net")
    paddle.jit.save(static, path, input_spec=[paddle.static.InputSpec([None, 3], "float32")])
    # the export traced a copy: the Layer's own containers hold no symbolic values
    assert net.history == [1]
    assert isinstance(net.constant_vars["bias"], paddle.Tensor)
    loaded = paddle.jit.load(path)
    for v in XS[1:3]:
        np.testing.assert_allclose(loaded(paddle.to_tensor(v)).numpy(),
                                   net(paddle.to_tensor(v)).numpy(), rtol=1e-5)


class _Holder:
    def __init__(self):
        self.prev = paddle.ones([3])


def _read_then_rebind(x, holder):
    h = x[0] * 2.0
    out = h * holder.prev
    holder.prev = h
    return out


class _KeepsLastState(paddle.nn.Layer):
    """An RNN-style state kept in a plain attribute (no buffer): read, then rebound."""

    def __init__(self):
        super().__init__()
        self.prev = paddle.ones([3])

    def forward(self, x):
        h = x[0] * 2.0
        self.prev = h + self.prev
        return self.prev * 1.0


@pytest.mark.parametrize("full_graph", [False, True])
def test_a_tensor_attribute_read_then_rebound_is_read_anew_every_call(full_graph):
    # a program reads the tensor it captured; the attribute rebound to a new tensor after the
    # call is another object, so the write is Python state (it was exempt: silently stale
    # from the second call, and the attribute was left holding a symbolic variable)
    static = paddle.jit.to_static(_read_then_rebind, full_graph=full_graph)
    _run(_read_then_rebind, static, _Holder)


@pytest.mark.parametrize("full_graph", [False, True])
def test_a_layer_state_in_a_plain_attribute_follows_every_call(full_graph):
    eager, layer = _KeepsLastState(), _KeepsLastState()
    static = paddle.jit.to_static(layer, full_graph=full_graph)
    for i, x in enumerate(XS[:4]):
        want = eager(paddle.to_tensor(x))
        got = static(paddle.to_tensor(x))
        np.testing.assert_allclose(got.numpy(), want.numpy(), err_msg=f"call {i + 1}")
        assert isinstance(layer.prev, paddle.Tensor)
        np.testing.assert_allclose(layer.prev.numpy(), eager.prev.numpy(), err_msg=f"call {i + 1}")


class _CollectsRows(paddle.nn.Layer):
    """A list attribute the forward makes anew and grows in a tensor loop over the rows."""

    def forward(self, x):
        self.acc = []
        for r in x:
            self.acc.append(r)
        return paddle.stack(self.acc).sum(0) + float(len(self.acc))


def test_a_list_attribute_set_then_grown_by_the_forward_counts_each_row_once():
    # scanned before the first call, `self.acc` did not exist yet, so its appends were no side
    # effect: the loop region's trace left a symbolic entry in the real list (4 rows of 3)
    eager, layer = _CollectsRows(), _CollectsRows()
    static = paddle.jit.to_static(layer)
    for n in (3, 2, 4, 3):
        x = np.arange(n * 2, dtype="float32").reshape(n, 2)
        want = eager(paddle.to_tensor(x))
        np.testing.assert_allclose(static(paddle.to_tensor(x)).numpy(), want.numpy(),
                                   err_msg=f"{n} rows")
        assert len(layer.acc) == n and all(isinstance(t, paddle.Tensor) for t in layer.acc)
