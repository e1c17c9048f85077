"""How guards remember and compare values (dy2st/jit/guards/values.py, compiled.py), the
bytecode reads they start from (reads.py), and a GuardSet's check against each failure."""
import math
import types

import numpy as np
import pytest

import dy2st as paddle
from dy2st.jit.guards import Guard, GuardSet, reads_of
from dy2st.jit.guards.values import MISSING, matches, snapshot

T = paddle.to_tensor(np.ones([2], "float32"))
VALUES = [0, 1, True, 0.0, -0.0, float("nan"), 1.5, "a", None, b"x", (1, 2.0), [1, 2.0],
          [0.0], {"a": 1}, {"a": 1.0}, {"b": 1}, {1, 2}, np.ones(2), np.zeros(2), T,
          np.float32(1.5), math]


def _same(a, b):
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return a.shape == b.shape and bool((a == b).all())
    if isinstance(a, (paddle.Tensor, types.ModuleType)):
        return a is b
    if isinstance(a, float):
        return repr(a) == repr(b)
    return repr(a) == repr(b)


@pytest.mark.parametrize("a", VALUES, ids=[repr(v)[:20] for v in VALUES])
def test_snapshot_matches_exactly_the_same_values(a):
    snap = snapshot(a)
    for b in VALUES:
        assert matches(snap, b) == _same(a, b), (a, b)


def test_in_place_changes_are_seen():
    arr = np.ones(3)
    items = [1.0, 2.0]
    table = {"k": [1, 2]}
    snaps = [snapshot(arr), snapshot(items), snapshot(table)]
    arr[1] = 5
    items.append(3.0)
    table["k"].append(3)
    assert not any(matches(s, v) for s, v in zip(snaps, (arr, items, table)))


def test_compiled_check_follows_each_guard():
    g = {"K": 1.5, "OBJ": math, "Z": -0.0, "D": {"a": 1.0, "b": 2}, "L": [1, 2.0]}
    guards = [Guard(lambda n=n: g.get(n, MISSING), g[n], f"global `{n}`",
                    ("global", g, n, {})) for n in g]
    gs = GuardSet(guards)
    assert gs.check() and gs.failure() is None
    for name, new in (("K", 2.5), ("K", 1), ("OBJ", np), ("Z", 0.0), ("D", {"a": 1, "b": 2}),
                      ("D", {"b": 2, "a": 1.0}), ("D", {"a": 1.0}), ("L", [1, 2]),
                      ("L", (1, 2.0)), ("L", [1, 2.0, 3])):
        old = g[name]
        g[name] = new
        assert not gs.check(), name
        assert gs.failure().startswith(f"global `{name}`")
        g[name] = old
        assert gs.check()
    g["L"].append(4)          # in place
    assert not gs.check()
    g["L"].pop()
    assert gs.check()
    del g["K"]
    assert not gs.check() and "<missing>" in gs.failure()


def test_never_guard():
    gs = GuardSet([])
    assert gs.check()
    gs.add_never("a side effect")
    assert not gs.check() and gs.failure() == "a side effect"


CONST = 3


def _reader(self, cfg):
    inner = [CONST for _ in range(2)]
    return self.a.b + cfg.k + len(inner) + math.pi


def test_reads_of_finds_globals_chains_and_nested_code():
    reads = reads_of(_reader.__code__)
    assert {"CONST", "range", "len", "math"} <= reads.globals
    assert ("local", "self", ("a",)) in reads.chains
    assert ("local", "self", ("a", "b")) in reads.chains
    assert ("local", "cfg", ("k",)) in reads.chains
    assert ("global", "math", ("pi",)) in reads.chains
