"""Guard attack cases for configuration objects as Paddle model code holds them (dataclasses,
namedtuples, nested dicts, SimpleNamespace, argparse.Namespace, enum members, class
registries), read directly and through library functions (copy, dataclasses.replace/asdict,
operator.attrgetter, functools.reduce, dict(**cfg), str.format, lru_cache), and module state
(os.environ, random, np.random, itertools.count, generators). Run by tools/guard_attack.py."""
from __future__ import annotations

from typing import List

from tools.guard_attack_cases import Case

CONFIG_HEADER = '''
import argparse
import collections
import copy
import dataclasses
import enum
import itertools
import operator
import os
import random


@dataclasses.dataclass
class DC:
    k: float = 1.0
    m: float = 2.0
    inner: object = None


DCFG = DC(1.0, 2.0, Cfg(3.0))
NT = collections.namedtuple("NT", "k m")
NCFG = NT(1.0, 2.0)
NS = types.SimpleNamespace(k=1.0, model=types.SimpleNamespace(
    head=types.SimpleNamespace(k=2.0, act="tanh")))
DEEP = types.SimpleNamespace(a=types.SimpleNamespace(b=types.SimpleNamespace(
    c=types.SimpleNamespace(d=types.SimpleNamespace(k=1.0)))))
ARGS = argparse.Namespace(k=1.0, act="tanh", layers=[1.0, 2.0])
NESTED = {"model": {"head": {"k": 1.0, "act": "tanh"}}, "optim": {"lr": 0.5}}
BASE = {"k": 1.0, "m": 2.0}
OVERRIDE = {"m": 3.0}
OBJS = {"a": Cfg(1.0)}
ATTR = "k"
SCALES = {"a": 1.0, "b": 2.0}
ENV = "DY2ST_GUARD_ATTACK_K"
os.environ.pop(ENV, None)
RNG = random.Random(0)
GEN = np.random.default_rng(0)
COUNTER = itertools.count(1)


class Act(enum.Enum):
    TANH = 1
    RELU = 2


MODE = Act.TANH
ACT_NAME = "TANH"
MODELS = {}


def register(cls):
    MODELS[cls.__name__] = cls
    return cls


@register
class Small:
    SCALE = 1.0

    def __init__(self):
        self.k = type(self).SCALE * 2.0


@register
class Big:
    SCALE = 3.0

    def __init__(self):
        self.k = type(self).SCALE * 2.0


ARCH = "Small"


class AttrDict(dict):
    __getattr__ = dict.__getitem__


ADICT = AttrDict(k=1.0, head=AttrDict(k=2.0))
STORE = {"k": 1.0}


class Lazy:
    def __getattr__(self, name):
        return STORE[name]


LAZY = Lazy()


@functools.lru_cache(maxsize=None)
def scale_for(name):
    return SCALES[name]


def counting():
    k = 0
    while True:
        k += 1
        yield k


STEPS = counting()


def make_counter():
    n = 0

    def inc():
        nonlocal n
        n += 1
        return n
    return inc


INC = make_counter()
STEP = 0


class Holder:
    def __init__(self):
        self.act = Cfg(2.0)


HOLDER = Holder()
CACHE = {}
'''

K_CHANGES = ["CFG.k = 2.0", "CFG.k = 3.0", "CFG.k = 1.0", "CFG.k = -1.0"]


def _plain(name: str, expr: str, changes: List[str], pre: str = "", **kw: object) -> Case:
    """A case whose `run` returns x times `expr` (after the statements `pre`)."""
    body = f'''
def run(x, brk):
{pre}    if brk:
        gb(x)
    return x * ({expr})
'''
    return Case(name, body, changes, **kw)


CONFIG_CASES: List[Case] = [
    # -- configuration objects ----------------------------------------------------------------
    _plain("dataclass_field", "DCFG.k", ["DCFG.k = 2.0", "DCFG = DC(3.0)", "DCFG.k = -1.0",
                                         "DCFG = DC(0.5)"]),
    _plain("dataclass_nested_object", "DCFG.inner.k", ["DCFG.inner.k = 2.0", "DCFG.inner = Cfg(4.0)",
                                                       "DCFG.inner.k = -1.0", "DCFG = DC(inner=Cfg(5.0))"]),
    _plain("dataclass_replace", "c.k + c.m", ["DCFG.k = 2.0", "DCFG.k = 3.0", "DCFG.m = 7.0",
                                              "DCFG.k = -1.0"],
           "    c = dataclasses.replace(DCFG, m=0.5)\n", fresh_region_input=True),
    _plain("dataclass_asdict", "d['k'] * d['inner'].k", ["DCFG.k = 2.0", "DCFG.inner.k = 5.0",
                                                         "DCFG.k = 3.0", "DCFG.inner.k = -1.0"],
           "    d = dataclasses.asdict(DCFG)\n", fresh_region_input=True),
    _plain("dataclass_astuple", "dataclasses.astuple(DCFG)[0]",
           ["DCFG.k = 2.0", "DCFG.k = 3.0", "DCFG.k = 1.0", "DCFG.k = -1.0"]),
    _plain("namedtuple_field", "NCFG.k * NCFG[1]",
           ["NCFG = NCFG._replace(k=2.0)", "NCFG = NT(3.0, 1.0)", "NCFG = NCFG._replace(m=4.0)",
            "NCFG = NT(-1.0, 2.0)"]),
    _plain("namedtuple_replace_in_trace", "NCFG._replace(m=0.5).k",
           ["NCFG = NCFG._replace(k=2.0)", "NCFG = NT(3.0, 1.0)", "NCFG = NT(1.0, 1.0)",
            "NCFG = NT(-1.0, 2.0)"]),
    _plain("namedtuple_asdict", "NCFG._asdict()['k']",
           ["NCFG = NCFG._replace(k=2.0)", "NCFG = NT(3.0, 1.0)", "NCFG = NT(1.0, 1.0)",
            "NCFG = NT(-1.0, 2.0)"]),
    _plain("simplenamespace_nested", "NS.model.head.k",
           ["NS.model.head.k = 3.0", "NS.model = types.SimpleNamespace(head=types.SimpleNamespace(k=4.0))",
            "NS.model.head.k = -1.0", "NS.model.head = types.SimpleNamespace(k=0.5)"]),
    _plain("simplenamespace_vars", "vars(NS)['k']",
           ["NS.k = 2.0", "NS.k = 3.0", "NS = types.SimpleNamespace(k=4.0)", "NS.k = -1.0"]),
    Case("argparse_namespace_branch", '''
def run(x, brk):
    h = paddle.tanh(x) if ARGS.act == "tanh" else paddle.nn.functional.relu(x)
    for w in ARGS.layers:
        h = h * w
    if brk:
        gb(x)
    return h * ARGS.k
''', ["ARGS.k = 2.0", "ARGS.act = 'relu'", "ARGS.layers.append(3.0)", "ARGS.layers = [0.5]"]),
    Case("enum_member_branch", '''
def run(x, brk):
    if brk:
        gb(x)
    if MODE is Act.TANH:
        return paddle.tanh(x)
    return paddle.nn.functional.relu(x) * MODE.value
''', ["MODE = Act.RELU", "MODE = Act.TANH", "MODE = Act.RELU", "MODE = Act['TANH']"]),
    _plain("enum_lookup_by_name", "Act[ACT_NAME].value",
           ["ACT_NAME = 'RELU'", "ACT_NAME = 'TANH'", "ACT_NAME = 'RELU'", "ACT_NAME = 'TANH'"]),
    _plain("registry_class_attribute", "MODELS[ARCH].SCALE",
           ["Small.SCALE = 2.0", "ARCH = 'Big'", "Big.SCALE = 4.0", "MODELS['Big'] = Small"]),
    _plain("registry_instance", "MODELS[ARCH]().k",
           ["Small.SCALE = 2.0", "ARCH = 'Big'", "Big.SCALE = 4.0", "MODELS['Big'] = Small"]),
    _plain("nested_dict_config", "NESTED['model']['head']['k'] * NESTED['optim']['lr']",
           ["NESTED['model']['head']['k'] = 2.0", "NESTED['optim'] = {'lr': 0.1}",
            "NESTED['model'] = {'head': {'k': 3.0}}", "NESTED['optim']['lr'] = 2.0"]),
    _plain("nested_dict_get_chain", "NESTED.get('model', {}).get('head', {}).get('k', 1.0)",
           ["NESTED['model']['head']['k'] = 2.0", "NESTED['model']['head'].pop('k')",
            "NESTED['model'] = {'head': {'k': 3.0}}", "NESTED['model']['head']['k'] = -1.0"]),
    _plain("path_deeper_than_four", "DEEP.a.b.c.d.k",
           ["DEEP.a.b.c.d.k = 2.0", "DEEP.a.b.c.d = types.SimpleNamespace(k=3.0)",
            "DEEP.a.b.c.d.k = -1.0", "DEEP.a.b.c.d.k = 0.5"]),
    _plain("attrdict_config", "ADICT.k * ADICT.head.k",
           ["ADICT['k'] = 2.0", "ADICT.head['k'] = 3.0", "ADICT['head'] = AttrDict(k=0.5)",
            "ADICT['k'] = -1.0"]),
    _plain("getattr_hook_object", "LAZY.k",
           ["STORE['k'] = 2.0", "STORE['k'] = 3.0", "STORE['k'] = 1.0", "STORE['k'] = -1.0"]),
    # -- library functions' results -----------------------------------------------------------
    _plain("copy_copy", "copy.copy(CFG).k", K_CHANGES),
    _plain("copy_deepcopy_nested", "c.model.head.k",
           ["NS.model.head.k = 3.0", "NS.model.head.k = 4.0", "NS.model.head.k = 2.0",
            "NS.model.head.k = -1.0"], "    c = copy.deepcopy(NS)\n", fresh_region_input=True),
    _plain("copy_of_list_of_objects", "copy.deepcopy(CFGS)[1].k",
           ["CFGS[1].k = 3.0", "CFGS[1].k = 4.0", "CFGS.reverse()", "CFGS[1].k = -1.0"]),
    _plain("dict_star_star", "d['k']", ["NESTED['model']['head']['k'] = 2.0",
                                        "NESTED['model']['head']['k'] = 3.0",
                                        "NESTED['model']['head'] = {'k': 4.0}",
                                        "NESTED['model']['head']['k'] = -1.0"],
           "    d = dict(**NESTED['model']['head'])\n"),
    _plain("dict_merge_display", "d['k'] * d['m']",
           ["BASE['k'] = 2.0", "OVERRIDE['m'] = 4.0", "OVERRIDE['k'] = 5.0", "BASE['m'] = 1.0"],
           "    d = {**BASE, **OVERRIDE}\n"),
    _plain("dict_merge_objects", "d['a'].k",
           ["OBJS['a'].k = 2.0", "OBJS['a'] = Cfg(3.0)", "OBJS['a'].k = -1.0", "OBJS['a'].k = 0.5"],
           "    d = {**OBJS}\n"),
    _plain("getattr_computed_name", "getattr(CFG, ATTR)",
           ["CFG.k = 2.0", "ATTR = '_p'", "CFG._p = 4.0", "ATTR = 'k'"]),
    _plain("getattr_name_on_call_result", "getattr(pick(CFG), ATTR)",
           ["CFG.k = 2.0", "ATTR = '_p'", "CFG._p = 4.0", "ATTR = 'k'"]),
    _plain("attrgetter_call", "operator.attrgetter('k')(CFG)", K_CHANGES),
    _plain("attrgetter_dotted_global", "GET(NS)",
           ["NS.model.head.k = 3.0", "NS.model.head.k = 4.0",
            "NS.model = types.SimpleNamespace(head=types.SimpleNamespace(k=5.0))",
            "NS.model.head.k = -1.0"], "    global GET\n    GET = operator.attrgetter('model.head.k')\n",
           fresh_region_input=True),
    _plain("itemgetter_call", "operator.itemgetter('k')(BASE)",
           ["BASE['k'] = 2.0", "BASE['k'] = 3.0", "BASE['k'] = 1.0", "BASE['k'] = -1.0"]),
    _plain("reduce_with_lambda", "functools.reduce(lambda a, c: a * c.k, CFGS, 1.0)",
           ["CFGS[0].k = 2.0", "CFGS[1].k = 3.0", "CFGS.append(Cfg(0.5))", "CFGS[2].k = -1.0"]),
    _plain("reduce_over_attrgetter_map",
           "functools.reduce(operator.add, map(operator.attrgetter('k'), CFGS))",
           ["CFGS[0].k = 2.0", "CFGS[1].k = 3.0", "CFGS.append(Cfg(0.5))", "CFGS[2].k = -1.0"]),
    _plain("str_format_key", "TABLE['{}'.format(NAME)].k",
           ["TABLE['a'].k = 2.0", "NAME = 'b'", "TABLE['b'].k = 3.0", "NAME = 'a'"]),
    _plain("str_format_reads_object", "2.0 if '{0.name}'.format(CFG) == 'a' else 3.0",
           ["CFG.name = 'b'", "CFG.name = 'a'", "CFG.name = 'c'", "CFG.name = 'a'"]),
    _plain("isinstance_of_changing_attribute", "HOLDER.act.k if isinstance(HOLDER.act, Cfg) else 5.0",
           ["HOLDER.act.k = 3.0", "HOLDER.act = 1.0", "HOLDER.act = Cfg(4.0)",
            "HOLDER.act = types.SimpleNamespace(k=2.0)"]),
    _plain("len_of_global_cache", "len(CACHE) + 1.0",
           ["CACHE['a'] = 1", "CACHE['b'] = CFG", "CACHE.clear()", "CACHE.update(x=1, y=2, z=3)"]),
    _plain("lru_cache_helper", "scale_for(NAME)",
           ["SCALES['a'] = 2.0; scale_for.cache_clear()", "NAME = 'b'", "SCALES['b'] = 5.0",
            "scale_for.cache_clear()"]),
    # -- module state -------------------------------------------------------------------------
    _plain("os_environ_get", "float(os.environ.get(ENV, '1.0'))",
           ["os.environ[ENV] = '2.0'", "os.environ[ENV] = '3.0'", "os.environ.pop(ENV, None)",
            "os.environ[ENV] = '-1.0'"]),
    _plain("os_getenv", "float(os.getenv(ENV, '1.0'))",
           ["os.environ[ENV] = '2.0'", "os.environ[ENV] = '3.0'", "os.environ.pop(ENV, None)",
            "os.environ[ENV] = '-1.0'"]),
    _plain("os_environ_item", "float(os.environ[ENV]) if ENV in os.environ else 1.0",
           ["os.environ[ENV] = '2.0'", "os.environ[ENV] = '3.0'", "os.environ.pop(ENV, None)",
            "os.environ[ENV] = '-1.0'"]),
    _plain("random_module", "random.random()", ["", "", "", ""], volatile=True),
    _plain("random_instance", "RNG.uniform(0.5, 2.0)", ["", "", "", ""], volatile=True),
    _plain("np_random_module", "float(np.random.rand())", ["", "", "", ""], volatile=True),
    Case("np_random_array", '''
def run(x, brk):
    if brk:
        gb(x)
    return x + paddle.to_tensor(np.random.rand(2, 3).astype("float32"))
''', ["", "", "", ""], volatile=True),
    _plain("np_random_generator", "GEN.random()", ["", "", "", ""], volatile=True),
    _plain("itertools_count", "next(COUNTER)", ["", "", "", ""], volatile=True),
    _plain("generator_next", "next(STEPS)", ["", "", "", ""], volatile=True),
    _plain("closure_nonlocal_counter", "INC()", ["", "", "", ""], volatile=True),
    _plain("global_step_counter", "STEP", ["", "", "", ""],
           "    global STEP\n    STEP += 1\n", volatile=True),
]
