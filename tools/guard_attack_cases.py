"""The cases of the guard attack (tools/guard_attack.py): each a module source that defines
`run` after HEADER, and the changes made before its calls 2 to 5."""
from __future__ import annotations

from typing import List, NamedTuple, Sequence

HEADER = '''import functools
import types
import numpy as np
import dy2st as paddle


def gb(x):
    return float(np.tanh(x.numpy()).sum())


class Cfg:
    K = 1.0

    def __init__(self, k=1.0):
        self.k = k
        self._p = 2.0
        self.idx = 0
        self.name = "a"

    @property
    def p(self):
        return self._p

    def get(self):
        return self

    def scaled(self, h):
        return h * self.k

    @classmethod
    def cls_k(cls):
        return cls.K


CFG = Cfg()
CFGS = [Cfg(1.0), Cfg(2.0), Cfg(3.0)]
TABLE = {"a": Cfg(1.5), "b": Cfg(-1.0)}
IDX = 0
NAME = "a"
SCALE = 2.0


def pick(c):
    return c


def first():
    return CFGS[0]


def times_scale(h):
    return h * SCALE


def plus_k(h):
    return h + CFG.k


def mul(h, c):
    return h * c.k


def mulk(h, k):
    return h * k
'''


class Case(NamedTuple):
    name: str
    body: str               # defines `run` (the callable) after HEADER
    changes: Sequence[str]  # run in both modules before calls 2, 3, 4, 5
    args: str = ""          # gives more arguments of `run` before each call (after x, brk)
    # the state changes by itself on every call (a random stream, a counter): full_graph=True
    # gives a clear error, the default mode a break; a trace on every call is no finding
    volatile: bool = False
    # a region after the break gets an object made anew on every call before it: region
    # inputs key by identity, so it traces on every call (a known cost, docs/fuzzing.md)
    fresh_region_input: bool = False


CASES: List[Case] = [
    # -- a local assigned from a call ----------------------------------------------------------
    Case("local_from_function", '''
def run(x, brk):
    c = pick(CFG)
    if brk:
        gb(x)
    return x * c.k
''', ["CFG.k = 2.0", "CFG.k = 3.0", "CFG.k = 1.0", "CFG.k = -1.0"]),
    Case("local_from_method", '''
def run(x, brk):
    c = CFG.get()
    if brk:
        gb(x)
    return x * c.k
''', ["CFG.k = 2.0", "CFG.k = 3.0", "CFG.k = 1.0", "CFG.k = -1.0"]),
    Case("local_from_global_function", '''
def run(x, brk):
    c = first()
    if brk:
        gb(x)
    return x * c.k
''', ["CFGS[0].k = 2.0", "CFGS.reverse()", "CFGS[0].k = 7.0", "CFGS.reverse()"]),
    Case("local_from_dict_get", '''
def run(x, brk):
    c = TABLE.get(NAME)
    if brk:
        gb(x)
    return x * c.k
''', ["TABLE['a'].k = 2.0", "NAME = 'b'", "TABLE['b'].k = 5.0", "NAME = 'a'"]),
    Case("local_from_or", '''
def run(x, brk):
    c = CFG.__dict__.get("alt") or CFG
    if brk:
        gb(x)
    return x * c.k
''', ["CFG.k = 2.0", "CFG.alt = Cfg(4.0)", "CFG.alt.k = 6.0", "del CFG.alt"]),
    Case("self_method_returns_object", '''
class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.cfg = Cfg(1.0)

    def get_cfg(self):
        return self.cfg

    def forward(self, x, brk):
        c = self.get_cfg()
        if brk:
            gb(x)
        return x * c.k


run = Net()
''', ["run.cfg.k = 2.0", "run.cfg.k = 3.0", "run.cfg = Cfg(-2.0)", "run.cfg.k = 0.5"]),
    Case("local_from_call_in_loop", '''
def run(x, brk):
    for i in range(2):
        c = pick(CFGS[i])
        x = x * c.k
    if brk:
        gb(x)
    return x
''', ["CFGS[0].k = 2.0", "CFGS[1].k = 3.0", "CFGS[0].k = -1.0", "CFGS[1].k = 0.5"]),
    Case("local_from_call_in_helper", '''
def helper(h):
    c = pick(CFG)
    return h * c.k


def run(x, brk):
    if brk:
        gb(x)
    return helper(x)
''', ["CFG.k = 2.0", "CFG.k = 3.0", "CFG.k = 1.0", "CFG.k = -1.0"]),
    Case("local_from_call_in_branch", '''
def run(x, brk, first=True):
    if first:
        c = pick(CFGS[0])
    else:
        c = pick(CFGS[1])
    if brk:
        gb(x)
    return x * c.k
''', ["CFGS[0].k = 2.0", "CFGS[1].k = 3.0", "CFGS[0].k = -1.0", "CFGS[0].k = 0.5"]),
    Case("local_used_by_lambda", '''
def run(x, brk):
    c = pick(CFG)
    f = lambda h: h * c.k
    if brk:
        gb(x)
    return f(x)
''', ["CFG.k = 2.0", "CFG.k = 3.0", "CFG.k = 1.0", "CFG.k = -1.0"]),
    Case("call_result_attribute", '''
def run(x, brk):
    if brk:
        gb(x)
    return x * pick(CFG).k
''', ["CFG.k = 2.0", "CFG.k = 3.0", "CFG.k = 1.0", "CFG.k = -1.0"]),
    Case("local_from_conditional", '''
def run(x, brk, first=True):
    c = CFGS[0] if first else CFGS[1]
    if brk:
        gb(x)
    return x * c.k
''', ["CFGS[0].k = 2.0", "CFGS[1].k = 3.0", "CFGS[0].k = -1.0", "CFGS[0].k = 0.5"]),
    Case("local_from_conditional_in_loop", '''
def run(x, brk):
    for i in range(2):
        c = CFGS[i] if i else CFG
        x = x * c.k
    if brk:
        gb(x)
    return x
''', ["CFG.k = 2.0", "CFGS[1].k = 3.0", "CFG.k = -1.0", "CFGS[1].k = 0.5"]),
    Case("local_from_or_of_paths", '''
def run(x, brk):
    c = CFG.__dict__.get("alt") or CFGS[2]
    if brk:
        gb(x)
    return x * c.k
''', ["CFGS[2].k = 2.0", "CFG.alt = Cfg(4.0)", "CFG.alt.k = 6.0", "del CFG.alt"]),
    Case("local_from_call_then_from_path", '''
def run(x, brk):
    if brk:
        gb(x)
    c = pick(CFG)
    x = x * c.k
    c = CFGS[0]
    return x + c.k
''', ["CFG.k = 2.0", "CFGS[0].k = 3.0", "CFG.k = 2.5", "CFG.k = -1.0"]),
    Case("local_from_call_then_loop_target", '''
def run(x, brk):
    c = pick(CFG)
    x = x * c.k
    for c in CFGS:
        x = x + c.k
    if brk:
        gb(x)
    return x
''', ["CFGS[0].k = 2.0", "CFG.k = 3.0", "CFGS[2].k = -1.0", "CFGS[1].k = 0.5"]),
    # -- a computed index --------------------------------------------------------------------
    Case("index_from_argument", '''
def run(x, brk, i=1):
    if brk:
        gb(x)
    return x * CFGS[i].k
''', ["CFGS[1].k = 2.0", "CFGS[1].k = 3.0", "CFGS[0].k = 9.0", "CFGS[1].k = -1.0"]),
    Case("index_from_global", '''
def run(x, brk):
    if brk:
        gb(x)
    return x * CFGS[IDX].k
''', ["CFGS[0].k = 2.0", "IDX = 2", "CFGS[2].k = 4.0", "IDX = 0"]),
    Case("index_from_attribute", '''
def run(x, brk):
    if brk:
        gb(x)
    return x * CFGS[CFG.idx].k
''', ["CFGS[0].k = 2.0", "CFG.idx = 1", "CFGS[1].k = 4.0", "CFG.idx = 0"]),
    Case("index_from_loop", '''
def run(x, brk):
    for i in range(len(CFGS)):
        x = x * CFGS[i].k
    if brk:
        gb(x)
    return x
''', ["CFGS[0].k = 2.0", "CFGS[2].k = 0.5", "CFGS.append(Cfg(2.0))", "CFGS[3].k = 3.0"]),
    Case("self_list_index_from_attribute", '''
class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.cfgs = [Cfg(1.0), Cfg(2.0)]
        self.i = 0

    def forward(self, x, brk):
        if brk:
            gb(x)
        return x * self.cfgs[self.i].k


run = Net()
''', ["run.cfgs[0].k = 3.0", "run.i = 1", "run.cfgs[1].k = -1.0", "run.i = 0"]),
    Case("dict_key_from_global", '''
def run(x, brk):
    if brk:
        gb(x)
    return x * TABLE[NAME].k
''', ["TABLE['a'].k = 2.0", "NAME = 'b'", "TABLE['b'].k = 3.0", "TABLE['a'].k = 0.5"]),
    Case("index_expression", '''
def run(x, brk):
    if brk:
        gb(x)
    return x * CFGS[len(CFGS) - 1].k
''', ["CFGS[2].k = 2.0", "CFGS.pop()", "CFGS[1].k = 4.0", "CFGS.append(Cfg(5.0))"]),
    Case("enumerate_loop", '''
def run(x, brk):
    for i, c in enumerate(CFGS):
        x = x + c.k * i
    if brk:
        gb(x)
    return x
''', ["CFGS[1].k = 2.0", "CFGS[2].k = 0.5", "CFGS[1].k = 5.0", "CFGS[2].k = 3.0"]),
    Case("dict_values_loop", '''
def run(x, brk):
    for c in TABLE.values():
        x = x * c.k
    if brk:
        gb(x)
    return x
''', ["TABLE['a'].k = 2.0", "TABLE['b'].k = 0.5", "TABLE['a'].k = 5.0", "TABLE['b'].k = 3.0"]),
    Case("zip_loop", '''
def run(x, brk):
    for a, b in zip(CFGS, reversed(CFGS)):
        x = x + a.k * b.k
    if brk:
        gb(x)
    return x
''', ["CFGS[0].k = 2.0", "CFGS[1].k = 0.5", "CFGS[2].k = 5.0", "CFGS[0].k = 3.0"]),
    Case("dict_items_loop", '''
def run(x, brk):
    for name, c in TABLE.items():
        x = x * c.k
    if brk:
        gb(x)
    return x
''', ["TABLE['a'].k = 2.0", "TABLE['b'].k = 0.5", "TABLE['c'] = Cfg(3.0)", "TABLE['c'].k = 4.0"]),
    Case("list_comprehension", '''
def run(x, brk):
    ks = [c.k for c in CFGS]
    if brk:
        gb(x)
    return x * sum(ks)
''', ["CFGS[0].k = 2.0", "CFGS[1].k = 0.5", "CFGS[2].k = 5.0", "CFGS[0].k = 3.0"]),
    Case("generator_over_self_list", '''
class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.cfgs = [Cfg(1.0), Cfg(2.0)]

    def forward(self, x, brk):
        if brk:
            gb(x)
        return x * sum(c.k for c in self.cfgs)


run = Net()
''', ["run.cfgs[0].k = 3.0", "run.cfgs[1].k = -1.0", "run.cfgs.append(Cfg(2.0))",
      "run.cfgs[2].k = 4.0"]),
    Case("loop_over_call_result", '''
def all_cfgs():
    return CFGS


def run(x, brk):
    for c in all_cfgs():
        x = x + c.k
    if brk:
        gb(x)
    return x
''', ["CFGS[0].k = 2.0", "CFGS[1].k = 0.5", "CFGS.append(Cfg(4.0))", "CFGS[3].k = 3.0"]),
    Case("comprehension_over_call_result", '''
def all_cfgs():
    return list(CFGS)


def run(x, brk):
    ks = [c.k for c in all_cfgs()]
    if brk:
        gb(x)
    return x * sum(ks)
''', ["CFGS[0].k = 2.0", "CFGS[1].k = 0.5", "CFGS[2].k = 5.0", "CFGS[0].k = 3.0"]),
    # -- class attributes and properties ------------------------------------------------------
    Case("type_of_self_attr", '''
class Net(paddle.nn.Layer):
    K = 1.0

    def forward(self, x, brk):
        if brk:
            gb(x)
        return x * type(self).K


run = Net()
''', ["Net.K = 2.0", "Net.K = 3.0", "Net.K = 1.0", "Net.K = -1.0"]),
    Case("self_attr_on_class", '''
class Net(paddle.nn.Layer):
    K = 1.0

    def forward(self, x, brk):
        if brk:
            gb(x)
        return x * self.K


run = Net()
''', ["Net.K = 2.0", "Net.K = 3.0", "run.K = 5.0", "del run.K"]),
    Case("class_attr_of_argument", '''
def run(x, brk, c=CFG):
    if brk:
        gb(x)
    return x * c.K
''', ["Cfg.K = 2.0", "Cfg.K = 3.0", "Cfg.K = 1.0", "Cfg.K = -1.0"]),
    Case("type_of_global_attr", '''
def run(x, brk):
    if brk:
        gb(x)
    return x * type(CFG).K
''', ["Cfg.K = 2.0", "Cfg.K = 3.0", "Cfg.K = 1.0", "Cfg.K = -1.0"]),
    Case("dunder_class_attr", '''
def run(x, brk):
    if brk:
        gb(x)
    return x * CFG.__class__.K
''', ["Cfg.K = 2.0", "Cfg.K = 3.0", "Cfg.K = 1.0", "Cfg.K = -1.0"]),
    Case("classmethod_reads_class", '''
def run(x, brk):
    if brk:
        gb(x)
    return x * CFG.cls_k()
''', ["Cfg.K = 2.0", "Cfg.K = 3.0", "Cfg.K = 1.0", "Cfg.K = -1.0"]),
    Case("property_of_global", '''
def run(x, brk):
    if brk:
        gb(x)
    return x * CFG.p
''', ["CFG._p = 3.0", "CFG._p = 4.0", "CFG._p = 2.0", "CFG._p = -1.0"]),
    Case("property_of_self", '''
class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self._scale = 1.0

    @property
    def scale(self):
        return self._scale * 2.0

    def forward(self, x, brk):
        if brk:
            gb(x)
        return x * self.scale


run = Net()
''', ["run._scale = 2.0", "run._scale = 3.0", "run._scale = 1.0", "run._scale = -1.0"]),
    Case("property_rebound_on_class", '''
def run(x, brk):
    if brk:
        gb(x)
    return x * CFG.p
''', ["Cfg.p = property(lambda s: 5.0)", "Cfg.p = 6.0", "Cfg.p = property(lambda s: s.k)",
      "CFG.k = 4.0"]),
    # -- __dict__ ------------------------------------------------------------------------------
    Case("dunder_dict_computed_key", '''
def run(x, brk):
    if brk:
        gb(x)
    return x * CFG.__dict__["k" if NAME == "a" else "_p"]
''', ["CFG.k = 2.0", "NAME = 'b'", "CFG._p = 5.0", "NAME = 'a'"]),
    Case("self_dunder_dict", '''
class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.w = 1.0
        self.key = "w"

    def forward(self, x, brk):
        if brk:
            gb(x)
        return x * self.__dict__[self.key]


run = Net()
''', ["run.w = 2.0", "run.v = 3.0", "run.key = 'v'", "run.v = 4.0"]),
    # -- containers of callables ---------------------------------------------------------------
    Case("self_fns_index_argument", '''
class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fns = [times_scale, plus_k]

    def forward(self, x, brk, i=0):
        if brk:
            gb(x)
        return self.fns[i](x)


run = Net()
''', ["SCALE = 3.0", "run.fns.reverse()", "CFG.k = 5.0", "run.fns[0] = times_scale"]),
    Case("fns_index_from_global", '''
FNS = [times_scale, plus_k]


def run(x, brk):
    if brk:
        gb(x)
    return FNS[IDX](x)
''', ["SCALE = 3.0", "IDX = 1", "CFG.k = 5.0", "IDX = 0"]),
    Case("lambda_in_list", '''
FNS = [lambda h: h * SCALE]


def run(x, brk):
    if brk:
        gb(x)
    return FNS[0](x)
''', ["SCALE = 3.0", "SCALE = 4.0", "FNS[0] = lambda h: h + SCALE", "SCALE = 1.0"]),
    Case("dict_of_callables_computed_key", '''
OPS = {"a": times_scale, "b": plus_k}


def run(x, brk):
    if brk:
        gb(x)
    return OPS[NAME](x)
''', ["SCALE = 3.0", "NAME = 'b'", "CFG.k = 4.0", "NAME = 'a'"]),
    # -- functools.partial ---------------------------------------------------------------------
    Case("partial_of_object", '''
P = functools.partial(mul, c=CFG)


def run(x, brk):
    if brk:
        gb(x)
    return P(x)
''', ["CFG.k = 2.0", "CFG.k = 3.0", "P = functools.partial(mul, c=CFGS[2])", "CFGS[2].k = 0.5"]),
    Case("partial_keywords_changed", '''
P = functools.partial(mulk, k=1.0)


def run(x, brk):
    if brk:
        gb(x)
    return P(x)
''', ["P.keywords['k'] = 2.0", "P.keywords['k'] = 3.0", "P = functools.partial(mulk, k=4.0)",
      "P.keywords['k'] = -1.0"]),
    Case("partial_reads_global", '''
P = functools.partial(times_scale)


def run(x, brk):
    if brk:
        gb(x)
    return P(x)
''', ["SCALE = 3.0", "SCALE = 4.0", "SCALE = 1.0", "SCALE = -1.0"]),
    Case("self_partial_attribute", '''
class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.op = functools.partial(mulk, k=2.0)

    def forward(self, x, brk):
        if brk:
            gb(x)
        return self.op(x)


run = Net()
''', ["run.op = functools.partial(mulk, k=3.0)", "run.op.keywords['k'] = 4.0",
      "run.op = functools.partial(mul, c=CFG)", "CFG.k = 6.0"]),
    # -- bound methods kept as attributes ------------------------------------------------------
    Case("bound_method_global", '''
M = CFG.scaled


def run(x, brk):
    if brk:
        gb(x)
    return M(x)
''', ["CFG.k = 2.0", "CFG.k = 3.0", "M = CFGS[1].scaled", "CFGS[1].k = 5.0"]),
    Case("bound_method_attribute", '''
class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.cfg = Cfg(1.0)
        self.act = self.cfg.scaled

    def forward(self, x, brk):
        if brk:
            gb(x)
        return self.act(x)


run = Net()
''', ["run.cfg.k = 2.0", "run.cfg.k = 3.0", "run.act = CFG.scaled", "CFG.k = 4.0"]),
    Case("own_bound_method_attribute", '''
class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.k = 1.0
        self.act = self.mul

    def mul(self, h):
        return h * self.k

    def forward(self, x, brk):
        if brk:
            gb(x)
        return self.act(x)


run = Net()
''', ["run.k = 2.0", "run.k = 3.0", "run.k = 1.0", "run.k = -1.0"]),
]
