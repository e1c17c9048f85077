"""What library code reads while a trace records: user objects given to library functions
(copy, dataclasses, operator.attrgetter, str.format) are guarded deeply, a user class called in
the trace guards its __init__'s reads, an lru_cache'd helper its function's reads and cache,
os.environ the environment; reads no guard can check (random streams, generators, itertools
iterators, a helper rebinding a closure variable) are a graph break in the default mode and a
clear error with full_graph=True; *args and **kw parameters bind as eager binds them."""
import copy
import dataclasses
import functools
import itertools
import operator
import os
import random
import types

import numpy as np
import pytest

import dy2st as paddle
from dy2st.jit.errors import ConversionError

X = np.array([1.0, -2.0], "float32")


def _x():
    return paddle.to_tensor(X)


def _values(fn, calls, change):
    """fn's outputs over `calls` calls, change(i) run before call i > 0."""
    out = []
    for i in range(calls):
        if i:
            change(i)
        out.append(fn(_x()).numpy().tolist())
    return out


@pytest.mark.parametrize("full_graph", [True, False])
def test_copy_of_a_config_object_sees_its_attributes_change(full_graph):
    cfg = types.SimpleNamespace(k=1.0, head=types.SimpleNamespace(k=2.0))

    def f(x):
        return x * copy.copy(cfg).k + x * copy.deepcopy(cfg).head.k

    static = paddle.jit.to_static(f, full_graph=full_graph)

    def change(i):
        cfg.k = 1.0 + i
        cfg.head.k = 0.5 * i
    eager_cfg = (cfg.k, cfg.head.k)
    got = _values(static, 3, change)
    cfg.k, cfg.head.k = eager_cfg
    assert got == _values(f, 3, change)
    assert got[0] != got[1] != got[2]


@pytest.mark.parametrize("full_graph", [True, False])
def test_dataclasses_replace_and_attrgetter_read_through(full_graph):
    @dataclasses.dataclass
    class Cfg:
        k: float = 1.0
        m: float = 2.0

    cfg = Cfg()
    get_k = operator.attrgetter("k")

    def f(x):
        c = dataclasses.replace(cfg, m=0.5)
        return x * (c.k + c.m) + x * get_k(cfg) + x * ("{0.k}".format(cfg) == "3.0")

    static = paddle.jit.to_static(f, full_graph=full_graph)
    seen = []
    for k in (1.0, 3.0, 1.0):
        cfg.k = k
        seen.append(static(_x()).numpy()[0])
        assert static(_x()).numpy()[0] == f(_x()).numpy()[0]
    assert seen == [2.5, 7.5, 2.5]
    assert static.num_programs == 2      # the state came back: the first program again


def test_a_user_class_made_in_the_trace_guards_what_its_init_reads():
    class Small:
        SCALE = 1.0

        def __init__(self):
            self.k = type(self).SCALE * 2.0

    @paddle.jit.to_static
    def f(x):
        return x * Small().k

    assert f(_x()).numpy()[0] == 2.0
    Small.SCALE = 3.0
    assert f(_x()).numpy()[0] == 6.0


def test_an_lru_cached_helper_gives_what_eager_gets():
    scales = {"a": 1.0}

    @functools.lru_cache(maxsize=None)
    def scale_for(name):
        return scales[name]

    def f(x):
        return x * scale_for("a")

    static = paddle.jit.to_static(f)
    assert static(_x()).numpy()[0] == 1.0
    scales["a"] = 2.0                       # eager still gets the cached 1.0
    assert static(_x()).numpy()[0] == f(_x()).numpy()[0] == 1.0
    scale_for.cache_clear()
    assert static(_x()).numpy()[0] == f(_x()).numpy()[0] == 2.0


@pytest.mark.parametrize("read", ["get", "getenv", "item"])
def test_environment_reads_are_guarded(read, monkeypatch):
    name = "DY2ST_TEST_LIBRARY_CALLS_K"
    monkeypatch.delenv(name, raising=False)

    def f(x):
        if read == "get":
            v = os.environ.get(name, "1.0")
        elif read == "getenv":
            v = os.getenv(name, "1.0")
        else:
            v = os.environ[name] if name in os.environ else "1.0"
        return x * float(v)

    static = paddle.jit.to_static(f)
    assert static(_x()).numpy()[0] == 1.0
    monkeypatch.setenv(name, "3.0")
    assert static(_x()).numpy()[0] == 3.0
    monkeypatch.delenv(name)
    assert static(_x()).numpy()[0] == 1.0


def _hidden_functions():
    rng = random.Random(0)
    counter = itertools.count(1)

    def steps():
        k = 0
        while True:
            k += 1
            yield k
    gen = steps()
    n = [0]

    def make():
        count = 0

        def inc():
            nonlocal count
            count += 1
            return count
        return inc
    inc = make()
    return {
        "random": lambda: random.random(),
        "random_instance": lambda: rng.random(),
        "np_random": lambda: float(np.random.rand()),
        "itertools_count": lambda: next(counter),
        "generator": lambda: next(gen),
        "nonlocal_counter": lambda: inc(),
        "plain": lambda: n[0] + 1.0,            # a control: guarded, no break
    }


@pytest.mark.parametrize("name", sorted(_hidden_functions()))
def test_hidden_state_runs_as_python_on_every_call_in_the_default_mode(name):
    eager_fns, static_fns = _hidden_functions(), _hidden_functions()

    def make(fns):
        read = fns[name]

        def f(x):
            return x * read()
        return f

    eager, static = make(eager_fns), paddle.jit.to_static(make(static_fns))
    for i in range(4):
        random.seed(i)
        np.random.seed(i)
        want = eager(_x()).numpy()
        random.seed(i)
        np.random.seed(i)
        np.testing.assert_allclose(static(_x()).numpy(), want, rtol=1e-6)
    report = paddle.jit.explain(make(_hidden_functions()), _x())
    reasons = [b.reason for b in report.breaks]
    if name == "plain":
        assert reasons == []
    else:
        assert any("runs as Python on every call" in r for r in reasons), reasons


@pytest.mark.parametrize("name", ["random", "np_random", "generator", "nonlocal_counter"])
def test_hidden_state_is_a_clear_error_with_full_graph(name):
    read = _hidden_functions()[name]

    @paddle.jit.to_static(full_graph=True)
    def f(x):
        return x * read()

    with pytest.raises(ConversionError, match="no guard can check"):
        f(_x())


@pytest.mark.parametrize("full_graph", [True, False])
def test_star_args_and_keywords_bind_like_eager(full_graph):
    a, b = types.SimpleNamespace(k=1.0), types.SimpleNamespace(k=2.0)

    def f(x, *objs, **kw):
        return x * objs[0].k * objs[-1].k * kw["c"].k

    static = paddle.jit.to_static(f, full_graph=full_graph)
    assert static(_x(), a, b, c=b).numpy()[0] == 4.0
    a.k = 3.0
    assert static(_x(), a, b, c=b).numpy()[0] == 12.0
    b.k = 0.5
    assert static(_x(), a, b, c=b).numpy()[0] == 0.75


def test_a_bound_method_argument_made_anew_each_call_is_reused():
    class Cfg:
        k = 2.0

        def scaled(self, h):
            return h * self.k

    cfg = Cfg()

    @paddle.jit.to_static
    def f(x, fn):
        return fn(x)

    for _ in range(3):
        assert f(_x(), cfg.scaled).numpy()[0] == 2.0
    assert f.num_programs == 1
