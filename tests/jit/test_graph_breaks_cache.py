"""Caching with graph breaks: regions are traced once per signature, a Python value decided in
an island is a guard (never a stale entry), and a region that keeps retracing runs eagerly."""
import logging

import numpy as np
import pytest

import dy2st as paddle
from dy2st.jit import auto_numbers
from dy2st.jit.graph_break import RECOMPILE_LIMIT
from dy2st.jit.graph_break.dispatch import state_of
from dy2st.jit.static_function import StaticFunction
from tests.support import randn, tensor


@pytest.fixture
def traces(monkeypatch):
    """How many times any StaticFunction traced a Program."""
    count = [0]
    original = StaticFunction._trace

    def counting(self, *args, **kwargs):
        count[0] += 1
        return original(self, *args, **kwargs)
    monkeypatch.setattr(StaticFunction, "_trace", counting)
    return count


def post_processed(x, w):
    h = paddle.nn.functional.relu(paddle.matmul(x, w))
    top = np.argmax(h.numpy(), axis=-1)
    return h * 2, paddle.to_tensor(top)


def test_n_calls_with_one_signature_trace_each_region_once(traces):
    sf = paddle.jit.to_static(post_processed)
    w = tensor(randn(0, 4, 3))
    for k in range(6):
        x = tensor(randn(k, 5, 4))
        got, want = sf(x, w), post_processed(x, w)
        for g, e in zip(got, want):
            np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-6)
    # the failed whole trace, then one trace per region on the second call, nothing after
    assert traces[0] == 1 + 2
    assert [r.num_programs for r in state_of(sf).regions] == [1, 1]


def test_a_new_signature_traces_the_regions_again(traces, caplog):
    sf = paddle.jit.to_static(post_processed)
    w = tensor(randn(0, 4, 3))
    sf(tensor(randn(1, 5, 4)), w)
    sf(tensor(randn(1, 5, 4)), w)
    before = traces[0]
    with caplog.at_level(logging.INFO, logger="dy2st.jit"):
        got = sf(tensor(randn(2, 7, 4)), w)
    np.testing.assert_allclose(got[0].numpy(), post_processed(tensor(randn(2, 7, 4)), w)[0].numpy(),
                               rtol=1e-6)
    assert traces[0] == before + 2
    assert any("dim 0: 5 -> 7" in r.getMessage() for r in caplog.records)


def decided_in_island(x):
    h = x * 2
    positive = bool(np.sum(h.numpy()) > 0)      # a Python decision from the tensor's value
    if positive:
        out = h + 10
    else:
        out = h - 10
    return out


def test_a_flipped_decision_builds_a_second_entry_and_both_stay_right(traces):
    sf = paddle.jit.to_static(decided_in_island)
    pos, neg = tensor([1.0, 2.0]), tensor([-3.0, 1.0])
    sf(pos)
    traced = traces[0]
    for k in range(6):
        x = pos if k % 2 == 0 else neg
        np.testing.assert_allclose(sf(x).numpy(), decided_in_island(x).numpy())
    last = state_of(sf).regions[-1]
    assert last.num_programs == 2
    assert traces[0] == traced + 3                   # region 0, then one per decision


def python_float_from_island(x):
    h = x + 1
    s = float(np.max(h.numpy()))                # a Python float: a guard of the region
    return h * s


def test_recompile_limit_falls_back_to_eager_and_is_reported(traces, monkeypatch):
    # (a number that keeps changing becomes an input instead: tests/jit/test_auto_numbers.py)
    monkeypatch.setattr(auto_numbers, "ENABLED", False)
    sf = paddle.jit.to_static(python_float_from_island)
    for k in range(RECOMPILE_LIMIT + 4):
        x = tensor([float(k), 0.5])
        np.testing.assert_allclose(sf(x).numpy(), python_float_from_island(x).numpy())
    last = state_of(sf).regions[-1]
    assert last.num_programs == RECOMPILE_LIMIT
    limits = [b for b in sf.graph_breaks if b.kind == "recompile-limit"]
    assert len(limits) == 1 and "`s`" in limits[0].reason
    traced = traces[0]
    sf(tensor([99.0, 0.5]))
    assert traces[0] == traced                       # eager now: no more traces


def numpy_float_from_island(x):
    h = x + 1
    s = np.max(h.numpy())                             # an np.float32: fed, not guarded
    return h * s


def test_numpy_scalars_from_islands_are_fed_not_guarded():
    sf = paddle.jit.to_static(numpy_float_from_island)
    for k in range(RECOMPILE_LIMIT + 2):
        x = tensor([float(k), 0.5])
        np.testing.assert_allclose(sf(x).numpy(), numpy_float_from_island(x).numpy())
    assert state_of(sf).regions[-1].num_programs == 1


class Dropping(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.linear = paddle.nn.Linear(4, 4)
        self.drop = paddle.nn.Dropout(0.5)

    def forward(self, x):
        h = self.drop(self.linear(x))
        k = int(np.count_nonzero(h.numpy()))
        return h * k


def test_training_flag_is_a_guard_of_regions():
    paddle.seed(1)
    net = Dropping()
    paddle.jit.to_static(net)
    x = tensor(randn(0, 3, 4))
    net.eval()
    want = Dropping.forward(net, x).numpy()
    np.testing.assert_allclose(net(x).numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(net(x).numpy(), want, rtol=1e-6)
    net.train()
    trained = net(x).numpy()
    zeros = np.count_nonzero(trained == 0)
    assert zeros > 0                                 # dropout is active: not the eval entry
    net.eval()
    np.testing.assert_allclose(net(x).numpy(), want, rtol=1e-6)
    assert state_of(net.forward).regions[0].num_programs == 2


def test_an_input_spec_with_unknown_dims_reaches_the_regions(traces):
    spec = [paddle.static.InputSpec([None, 4], "float32"), paddle.static.InputSpec([4, 3], "float32")]
    sf = paddle.jit.to_static(post_processed, input_spec=spec)
    w = tensor(randn(0, 4, 3))
    for k, n in enumerate((2, 3, 5, 2, 7)):
        x = tensor(randn(k, n, 4))
        got, want = sf(x, w), post_processed(x, w)
        np.testing.assert_allclose(got[0].numpy(), want[0].numpy(), rtol=1e-6)
    assert [r.num_programs for r in state_of(sf).regions] == [1, 1]


SCALE = 2.0


def reads_a_global(x):
    h = x * SCALE
    s = np.sum(h.numpy())
    return h * SCALE + s


def test_regions_guard_the_plain_globals_they_read(monkeypatch):
    global SCALE
    monkeypatch.setattr(auto_numbers, "ENABLED", False)     # by value, as a third value would not
    sf = paddle.jit.to_static(reads_a_global)
    x = tensor([1.0, 2.0])
    for value in (2.0, 2.0, 3.0, 2.0, 5.0):
        SCALE = value
        np.testing.assert_allclose(sf(x).numpy(), reads_a_global(x).numpy())
    SCALE = 2.0
    assert [r.num_programs for r in state_of(sf).regions] == [3, 3]


class Base(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 3)

    def forward(self, x):
        return self.fc(x)


class Child(Base):
    def forward(self, x):
        h = super().forward(x)
        s = np.sum(h.numpy())
        return super().forward(h) * s


def test_super_calls_in_regions():
    paddle.seed(2)
    net = paddle.jit.to_static(Child())
    for seed in range(3):
        x = tensor(randn(seed, 2, 3))
        np.testing.assert_allclose(net(x).numpy(), Child.forward(net, x).numpy(), rtol=1e-5)
    assert [r.num_programs for r in state_of(net.forward).regions] == [1, 1]
