"""Bound methods are guarded by what decides their behaviour (their function and their object),
not by identity: `acc.append`, `d.get`, `word.upper` are new objects on every read, so an
identity guard never matched and the function traced again on every call. Also: a function made
anew on every call is keyed by its code and closure values, and what builtins pick
(`max(..., key=f)`, `next(...)`) is guarded."""
import collections
import types

import numpy as np
import pytest

import dy2st as paddle
from dy2st.jit.guards.values import OwnMethod, matches, method_key, snapshot
from dy2st.jit.signature import value_key

VALS = {"a": 1.0, "b": 2.0}
NAME = "a"


class Cfg:
    def __init__(self, k):
        self.k = k

    def scaled(self, h):
        return h * self.k


class Table(dict):
    pass


CFGS = [Cfg(1.0), Cfg(2.0)]


def _x():
    return paddle.to_tensor(np.ones([2], "float32"))


def test_a_builtin_method_matches_a_new_method_of_the_same_object():
    acc = [1.0]
    snap = snapshot(acc.append)
    assert matches(snap, acc.append)                    # a new method object each read
    assert not matches(snap, [1.0].append)              # another list
    assert not matches(snap, acc.extend)                # another method
    word = "ab"
    assert matches(snapshot(word.upper), "ab".upper)    # a str: by value
    assert not matches(snapshot(word.upper), "ba".upper)


def test_a_container_kept_with_its_method_is_compared_by_contents():
    table = {"a": 1.0}
    snap = snapshot(table.get)
    assert matches(snap, table.get)
    table["a"] = 2.0                                    # the method reads what changed
    assert not matches(snap, table.get)
    sub = Table(a=1.0)
    snap = snapshot(sub.get)
    sub["a"] = 3.0
    assert not matches(snap, sub.get)
    od = collections.OrderedDict(a=1)
    snap = snapshot(od.get)
    od["b"] = 2
    assert not matches(snap, od.get)


def test_python_methods_compare_their_function_and_object():
    c = Cfg(1.0)
    snap = snapshot(c.scaled)
    assert matches(snap, c.scaled)
    assert not matches(snap, Cfg(1.0).scaled)
    assert method_key(c.scaled) == ("py", Cfg.scaled)
    assert OwnMethod(method_key([].append)) == OwnMethod(method_key([].append))


def _global_get(x):
    return x * VALS.get(NAME, 0.5)


class _Lookup(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.table = {"a": 1.0}

    def forward(self, x):
        outs = [x]
        outs.append(x * self.table.get(NAME, 0.25))
        return outs[-1]


@pytest.mark.parametrize("full_graph", [True, False])
def test_builtin_methods_keep_one_program_until_their_object_changes(full_graph):
    global VALS
    static = paddle.jit.to_static(_global_get, full_graph=full_graph)
    for _ in range(4):
        assert static(_x()).numpy()[0] == 1.0
    assert static.num_programs == 1
    VALS["a"] = 3.0                                     # in place: a guard fails
    assert static(_x()).numpy()[0] == 3.0
    VALS = {"a": 4.0}                                   # replaced
    assert static(_x()).numpy()[0] == 4.0
    assert static(_x()).numpy()[0] == 4.0 and static.num_programs == 3
    VALS = {"a": 1.0, "b": 2.0}

    net = paddle.jit.to_static(_Lookup(), full_graph=full_graph)
    for _ in range(4):
        assert net(_x()).numpy()[0] == 1.0
    assert net.forward.num_programs == 1
    net.table = {"a": 5.0}
    assert net(_x()).numpy()[0] == 5.0


def _max_k(x):
    return x * max(CFGS, key=lambda c: c.k).k


def test_what_max_picks_is_guarded_through_its_key():
    static = paddle.jit.to_static(_max_k)
    assert static(_x()).numpy()[0] == 2.0
    CFGS[0].k = 3.0                                     # read by the key only
    try:
        assert static(_x()).numpy()[0] == 3.0
        assert static(_x()).numpy()[0] == 3.0 and static.num_programs == 2
    finally:
        CFGS[0].k = 1.0


class _Ordered:
    def __init__(self, v):
        self.v = v

    def __lt__(self, other):            # Python code max() runs: no guard sees what it reads
        return self.v < other.v


ORDERED = [_Ordered(1.0), _Ordered(2.0)]


def _max_ordered(x):
    return x * max(ORDERED).v


def test_max_comparing_with_python_code_is_never_reused():
    static = paddle.jit.to_static(_max_ordered)
    assert static(_x()).numpy()[0] == 2.0
    ORDERED[0].v = 3.0                  # max() now picks the other object
    try:
        assert static(_x()).numpy()[0] == 3.0
    finally:
        ORDERED[0].v = 1.0
    assert static(_x()).numpy()[0] == 2.0


def _calls(x, f):
    return f(x)


def test_a_function_made_every_call_keys_by_its_code_and_closure():
    def make(k):
        return lambda h: h * k
    assert value_key(make(2.0)) == value_key(make(2.0))
    assert value_key(make(2.0)) != value_key(make(3.0))
    assert value_key(make(2.0)) != value_key(lambda h: h * 2.0)     # another code
    # a tensor in a closure is captured by the trace itself (not fed): keyed by identity
    assert value_key(make(_x())) != value_key(make(_x()))
    static = paddle.jit.to_static(_calls)
    for _ in range(3):
        assert static(_x(), make(2.0)).numpy()[0] == 2.0
    assert static(_x(), make(3.0)).numpy()[0] == 3.0
    assert static.num_programs == 2
    assert isinstance(make(1.0), types.FunctionType)
