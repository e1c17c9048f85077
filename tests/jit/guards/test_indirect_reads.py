"""Reads a plain attribute scan misses (issue 23, item 2): a computed `getattr`, `hasattr`,
`vars(obj)[...]`, `obj.__dict__[...]`, a local alias (`c = self.cfg; c.k`), a constant
subscript (`self.cfgs[0].k`), a loop over a list of objects and a helper reached only through a
container of callables. Each changes the object between calls and compares every call with
eager, with full_graph True and False, with and without a graph break."""
import types

import numpy as np
import pytest

import dy2st as paddle
from dy2st.jit.guards import reads_of
from tests.support import BREAK_MODES, graph_break

X = np.arange(6, dtype="float32").reshape(2, 3) - 2.0
class Cfg:
    def __init__(self):
        self.k = 1.0
        self.name = "k"
        self.inner = types.SimpleNamespace(m=1.0)


CFG = Cfg()
CFGS = [Cfg(), Cfg()]


def _double(x):
    return x * CFG.k * 2.0


def _plus(x):
    return x + CFG.inner.m


FNS = [_double, _plus]
TABLE = {"f": _double}


def computed_getattr(x, brk):
    if brk:
        graph_break(x)
    return x * getattr(CFG, CFG.name)


def has_attribute(x, brk):
    if brk:
        graph_break(x)
    if hasattr(CFG, "extra"):
        return x + 1.0
    return x


def vars_entry(x, brk):
    if brk:
        graph_break(x)
    return x * vars(CFG)["k"]


def dict_entry(x, brk):
    if brk:
        graph_break(x)
    return x * CFG.__dict__["k"]


def local_alias(x, brk):
    c = CFG.inner
    if brk:
        graph_break(x)
    return x * c.m


def alias_of_an_argument(x, brk, cfg=CFG):
    c = cfg
    if brk:
        graph_break(x)
    return x * c.k + c.inner.m


def parameter_reassigned(x, brk, c=CFGS[0]):
    h = x * c.k
    if brk:
        graph_break(x)
    c = CFG
    return h + c.k


def constant_subscript(x, brk):
    if brk:
        graph_break(x)
    return x * CFGS[1].k


def loop_over_objects(x, brk):
    if brk:
        graph_break(x)
    for c in CFGS:
        x = x * c.k
    return x


def through_a_list_of_callables(x, brk):
    if brk:
        graph_break(x)
    return FNS[0](x) + FNS[1](x)


def through_a_dict_of_callables(x, brk):
    if brk:
        graph_break(x)
    return TABLE["f"](x)


def _reset():
    for c in [CFG] + CFGS:
        c.__dict__.clear()
        c.__init__()
    FNS[:] = [_double, _plus]
    TABLE["f"] = _double


@pytest.fixture(autouse=True)
def fresh_state():
    _reset()
    yield
    _reset()


def _changes():
    def extra():
        CFG.extra = 1
    return [lambda: setattr(CFG, "k", 2.0), lambda: setattr(CFG.inner, "m", 3.0),
            lambda: setattr(CFG, "inner", types.SimpleNamespace(m=7.0)),
            lambda: setattr(CFGS[1], "k", -2.0), lambda: setattr(CFGS[0], "k", 0.5),
            lambda: setattr(CFG, "name", "name2") or setattr(CFG, "name2", 4.0), extra,
            lambda: FNS.reverse(), lambda: TABLE.__setitem__("f", _plus)]


CASES = [computed_getattr, has_attribute, vars_entry, dict_entry, local_alias,
         alias_of_an_argument, parameter_reassigned, constant_subscript, loop_over_objects,
         through_a_list_of_callables, through_a_dict_of_callables]


@pytest.mark.parametrize("full_graph,brk", BREAK_MODES)
@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_indirect_reads_are_guarded(fn, full_graph, brk):
    static = paddle.jit.to_static(fn, full_graph=full_graph)
    for i, change in enumerate([lambda: None] + _changes()):
        change()
        expected = fn(paddle.to_tensor(X), brk).numpy()
        got = static(paddle.to_tensor(X), brk).numpy()
        np.testing.assert_allclose(got, expected, rtol=1e-6, err_msg=f"call {i + 1}")


def test_unchanged_state_keeps_one_program():
    static = paddle.jit.to_static(alias_of_an_argument)
    for _ in range(3):
        static(paddle.to_tensor(X), False)
    assert static.num_programs == 1


def _scan(self, cfg):
    c = self.cfg
    d = cfg
    for item in self.items:
        item.k
    getattr(cfg, self.name)
    return c.k + d.k + self.table[0].w + vars(self)["v"]


def test_reads_of_follows_aliases_subscripts_loops_and_getattr():
    chains = reads_of(_scan.__code__).chains
    assert ("local", "self", ("cfg", "k")) in chains            # c = self.cfg; c.k
    assert ("local", "cfg", ("k",)) in chains                   # d = cfg; d.k
    assert ("local", "self", ("items", "[*]", "k")) in chains   # for item in self.items
    assert ("local", "self", ("table", ("[]", 0), "w")) in chains
    assert ("local", "cfg", ("__dict__",)) in chains            # getattr(cfg, <computed>)
    assert ("local", "self", ("__dict__",)) in chains           # vars(self)


def _reassigned(self, flag):
    c = self.a
    if flag:
        c = self.b
    d = self.c
    d = len(d)
    return c.k + d.k


def test_an_alias_of_several_paths_guards_each_and_one_also_from_a_call_is_captured():
    reads = reads_of(_reassigned.__code__)
    chains = reads.chains
    assert ("local", "self", ("a", "k")) in chains and ("local", "self", ("b", "k")) in chains
    # d = self.c; d = len(d): .k of the path it may hold, and of what the trace saw it hold
    assert ("local", "self", ("c", "k")) in chains and reads.opaque == {"d"}
