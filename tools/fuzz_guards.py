"""Guard fuzzer: random functions and Layers that read and change Python state (globals, closure
cells, Layer attributes, attributes of an argument object, containers, mode flags, shapes; reads
through getattr, vars, aliases, subscripts, loops and lists of callables; helpers that change
state; numbers that change on every call) are called several times with that state changed at
random between calls; every call of the to_static version must agree with eager, and so must
the state after it.

    python tools/fuzz_guards.py --count 2000 --calls 5 --seed 0     # a long run
    python tools/fuzz_guards.py --program-seed 17 --show             # one program and its calls
    python tools/fuzz.py --guards --count 200                        # the same, from fuzz.py

The program is written twice as two modules (one run eagerly, one through to_static), so that
each has its own globals and objects, and the same changes are applied to both."""
from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import warnings
from dataclasses import dataclass, field
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

# this checkout's tools and dy2st (run as a script, sys.path[0] is tools/), not installed ones
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tools.fuzz_common import load_program  # noqa: E402

HEADER = '''import functools
import types
import numpy as np
import dy2st as paddle

K = 1.5
N = 2
FLAG = True
L = [1.0, 2.0]
D = {"a": 0.5}
ARR = np.array([1.0, 2.0, 3.0], "float32")
T = paddle.to_tensor(np.array([0.5, -0.5, 1.0], "float32"))
ACT = paddle.tanh
LOG = []
TOTAL = 0.0


def _make():
    cval = 1.0

    def read_c(h):
        return h * cval

    def set_c(v):
        nonlocal cval
        cval = v
    return read_c, set_c


read_c, set_c = _make()


def helper(h):
    return h * K + len(L)


def deep_helper(h, c):
    return helper(h) + c.k


class Cfg:
    K = 1.25

    def __init__(self):
        self.k = 0.5
        self.k2 = 0.25
        self.name = "k"
        self.count = 0
        self.inner = types.SimpleNamespace(m=1.0)
        self._p = 2.0

    @property
    def p(self):
        return self._p * 0.5

    def scaled(self, h):
        return h * self.k


cfg = Cfg()
CFGS = [Cfg(), Cfg()]
FNS = [helper, read_c]
IDX = 0
NAME2 = "a"
TABLE2 = {"a": Cfg(), "b": Cfg()}
BM = CFGS[0].scaled


def pick(c):
    return c


def mulk(h, k):
    return h * k


P = functools.partial(mulk, k=1.5)


def bump(c):
    c.count += 1


def log_it(v):
    LOG.append(1.0)


def log_deep(v):
    log_it(v)
'''

# statements that read state; {s} is "self" in a Layer's forward
READS = [
    "h = h * K",
    "h = h + len(L)",
    "h = h * D['a']",
    "h = h + paddle.to_tensor(ARR)",
    "h = h + T",
    "h = ACT(h)",
    "for _ in range(N):\n    h = h + 0.5",
    "if FLAG:\n    h = h - 1.0",
    "h = h * cfg.k",
    "h = h + cfg.inner.m",
    "h = helper(h)",
    "h = deep_helper(h, cfg)",
    "h = read_c(h)",
    "if paddle.is_grad_enabled():\n    h = h + 1.0",
    "if paddle.in_dynamic_mode():\n    h = h + 2.0",
    "h = h + x.shape[0]",
    "if h.mean() > 0:\n    h = h * K\nelse:\n    h = h - K",
]
LAYER_READS = [
    "h = h * {s}.scale",
    "for _ in range({s}.steps):\n    h = h + 1.0",
    "if {s}.flag:\n    h = h * 2.0",
    "h = h + sum({s}.items)",
    "h = h + {s}.table['w']",
    "h = h + {s}.bias",
    "h = {s}.helper(h)",
    "if {s}.training:\n    h = h + 3.0",
]
EFFECTS = [
    "cfg.count += 1\nh = h + cfg.count",
    "LOG.append(1.0)\nh = h * len(LOG)",
    "D['b'] = D.get('b', 0.0) + 1.0\nh = h + D['b']",
    "TOTAL = TOTAL + 0.5\nh = h + TOTAL",
]
LAYER_EFFECTS = [
    "{s}.calls += 1\nh = h * {s}.calls",
    "{s}.table['n'] = {s}.table.get('n', 0) + 1\nh = h + {s}.table['n']",
]
# indirect reads, helpers that change state and numbers changed on every call: drawn from
# their own random stream (generate), so the programs without them are as before
INDIRECT_READS = [
    "h = h * getattr(cfg, cfg.name)",
    "if hasattr(cfg, 'extra'):\n    h = h + 1.0",
    "h = h * vars(cfg)['k']",
    "h = h + cfg.__dict__['k2']",
    "c_ = cfg.inner\nh = h + c_.m",
    "c_ = cfg\nh = h * c_.k",
    "h = h + CFGS[1].k",
    "for c_ in CFGS:\n    h = h + c_.k",
    "h = FNS[0](h)",
]
# reads a path scan alone misses (tools/guard_attack.py): locals from calls, a call's result,
# computed indexes and keys, iterators, comprehensions, class attributes, properties, partials,
# bound methods; drawn from their own random stream too
COMPUTED_READS = [
    "c_ = pick(cfg)\nh = h * c_.k",
    "h = h + pick(cfg).k2",
    "h = h * CFGS[IDX].k",
    "for i_ in range(len(CFGS)):\n    h = h + CFGS[i_].k",
    "for i_, c_ in enumerate(CFGS):\n    h = h + c_.k * i_",
    "h = h + sum([c_.k for c_ in CFGS])",
    "h = h * type(cfg).K",
    "h = h * cfg.K",
    "h = h + cfg.p",
    "h = P(h)",
    "h = BM(h)",
    "h = h * TABLE2[NAME2].k",
    "for n_, c_ in TABLE2.items():\n    h = h + c_.k",
]
LAYER_COMPUTED_READS = [
    "c_ = {s}.get_cfg()\nh = h * c_.k",
    "h = h * {s}.cfgs[{s}.i].k",
]
COMPUTED_CHANGES = [
    "Cfg.K = {f}", "cfg._p = {f}", "IDX = 1 - IDX", "P.keywords['k'] = {f}",
    "CFGS[{b}].k = {f}", "NAME2 = 'b' if NAME2 == 'a' else 'a'", "TABLE2['{n}'].k = {f}",
    "BM = CFGS[{b}].scaled", "CFGS.reverse()",
]
LAYER_COMPUTED_CHANGES = ["net.i = 1 - net.i", "net.cfgs[{b}].k = {f}"]
HELPER_EFFECTS = [
    "bump(cfg)\nh = h + cfg.count",
    "log_it(h)\nh = h * len(LOG)",
    "log_deep(h)\nh = h + len(LOG)",
]
LAYER_HELPER_EFFECTS = ["{s}.count_up()\nh = h * {s}.calls"]
INDIRECT_CHANGES = [
    "cfg.name = 'k2' if cfg.name == 'k' else 'k'", "cfg.k2 = {f}", "cfg.extra = 1",
    "CFGS[1].k = {f}", "CFGS[0].k = {f}", "FNS.reverse()",
]
COUNTERS = ["K = K + 0.25", "cfg.k = cfg.k + 0.5", "N = (N + 1) % 4"]
LAYER_COUNTERS = ["net.scale = net.scale + 0.5"]
# builtin methods read off globals, attributes, items and locals, paths read off a builtin's
# result, loop-body locals no call follows, objects read back through a list the function
# fills; from their own random stream, with METHOD_HEADER added only to programs that use them
METHOD_HEADER = '''

VALS = {"a": 1.0, "b": 2.0}
TAGS = {"a"}
WORD = "ab"
LISTS = [[1.0], [2.0, 2.0]]
LOOKUP = VALS.get


class Table(dict):
    pass


TAB = Table(a=1.0, b=3.0)
'''
METHOD_READS = [
    "acc_ = [cfg.k]\nacc_.append(K)\nh = h * sum(acc_)",
    "h = h * VALS.get(NAME2, 0.5)",
    "h = h * len(TAGS.union({{NAME2}}))",
    "h = h * (2.0 if WORD.startswith(NAME2) else 3.0)",
    "h = h * LISTS[IDX].count(2.0)",
    "h = h * TAB.get(NAME2, 0.5)",
    "h = h * LOOKUP('a', 0.5)",
    "h = h * max(CFGS, key=lambda c_: c_.k).k2",
    "h = h * next(iter(TABLE2.values())).k",
    "h = h * sorted(CFGS, key=lambda c_: c_.k2)[0].k",
    "for i_ in range(2):\n    c_ = (CFGS[0], CFGS[1])[i_]\n    h = h * c_.k",
    "seen_ = []\nseen_.append(cfg)\nh = h + seen_[0].k2",
]
LAYER_METHOD_READS = ["h = h * {s}.table.get('w', 1.0)", "h = h + {s}.items.count(1.0)"]
METHOD_CHANGES = [
    "VALS['a'] = {f}", "VALS = {{'a': {f}, 'b': 1.0}}", "TAGS.add('b')", "TAGS.discard('b')",
    "WORD = WORD[::-1]", "LISTS[IDX].append(2.0)", "LISTS.reverse()", "TAB['a'] = {f}",
    "Table.get = lambda self, k, d=None: {f}", "CFGS[{b}].k2 = {f}", "CFGS[{b}].k = {f}",
    "TABLE2['{n}'].k = {f}", "LOOKUP = VALS.get", "LOOKUP = {{'a': {f}}}.get",
    "NAME2 = 'b' if NAME2 == 'a' else 'a'", "IDX = 1 - IDX",
]
BREAKS = [
    "h = paddle.to_tensor(np.tanh(h.numpy()))",
    "b_ = float(np.sum(np.abs(h.numpy())))\nh = h + b_ * 0.0",
]

LAYER_CLASS = '''

class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.scale = 0.5
        self.steps = 1
        self.flag = True
        self.items = [1.0]
        self.table = {"w": 0.25}
        self.bias = paddle.to_tensor(np.array([1.0, 0.0, -1.0], "float32"))
        self.calls = 0
        self.cfgs = [Cfg(), Cfg()]
        self.i = 0

    def get_cfg(self):
        return self.cfgs[self.i]

    def helper(self, h):
        return h * self.scale + self.table["w"]

    def count_up(self):
        self.calls += 1

    def forward(self, x, cfg):
'''

CHANGES = [
    "K = {f}", "N = {i}", "FLAG = not FLAG", "L.append({f})", "L.pop() if L else None",
    "D['a'] = {f}", "ARR += {f}", "T = paddle.to_tensor(np.full([3], {f}, 'float32'))",
    "ACT = {act}", "set_c({f})", "cfg.k = {f}", "cfg.inner.m = {f}",
    "cfg.inner = types.SimpleNamespace(m={f})",
]
LAYER_CHANGES = [
    "net.scale = {f}", "net.steps = {i}", "net.flag = not net.flag", "net.items.append({f})",
    "net.table['w'] = {f}", "net.bias = paddle.to_tensor(np.full([3], {f}, 'float32'))",
    "net.eval()", "net.train()",
]
ACTS = ["paddle.tanh", "paddle.nn.functional.relu", "paddle.nn.functional.sigmoid", "paddle.abs"]


def _indent(text: str, prefix: str) -> str:
    return "\n".join(prefix + line for line in text.splitlines())


@dataclass
class Program:
    seed: int
    source: str
    layer: bool
    calls: List[Tuple[List[str], int, bool]]   # (changes before the call, batch size, no_grad)


def generate(seed: int, n_calls: int = 5) -> Program:
    """Program `seed`: a module source and the changes made between its calls."""
    r = random.Random(seed)
    more = random.Random(f"more {seed}")
    layer = r.random() < 0.5
    s = "self"
    pool = READS + (LAYER_READS if layer else [])
    effects = EFFECTS + (LAYER_EFFECTS if layer else [])
    body: List[str] = []
    for _ in range(r.randint(2, 6)):
        body.append(r.choice(pool).format(s=s))
    if r.random() < 0.5:
        body.insert(r.randint(0, len(body)), r.choice(effects).format(s=s))
    if r.random() < 0.5:
        body.insert(r.randint(0, len(body)), r.choice(BREAKS))
    for _ in range(more.randint(0, 2)):
        body.insert(more.randint(0, len(body)), more.choice(INDIRECT_READS))
    if more.random() < 0.3:
        body.insert(more.randint(0, len(body)), more.choice(
            HELPER_EFFECTS + (LAYER_HELPER_EFFECTS if layer else [])).format(s=s))
    computed = random.Random(f"computed {seed}")
    if computed.random() < 0.5:
        for _ in range(computed.randint(1, 2)):
            body.insert(computed.randint(0, len(body)), computed.choice(
                COMPUTED_READS + (LAYER_COMPUTED_READS if layer else [])).format(s=s))
    methods = random.Random(f"methods {seed}")
    with_methods = methods.random() < 0.4
    for _ in range(methods.randint(1, 2) if with_methods else 0):
        body.insert(methods.randint(0, len(body)), methods.choice(
            METHOD_READS + (LAYER_METHOD_READS if layer else [])).format(s=s))
    uses_total = any("TOTAL" in b for b in body)
    lines = (["global TOTAL"] if uses_total else []) + ["h = x[0] * 1.0"] + body + ["return h"]
    header = HEADER + (METHOD_HEADER if with_methods else "")
    if layer:
        source = header + LAYER_CLASS + _indent("\n".join(lines), " " * 8) + "\n\n\nnet = Net()\n"
    else:
        source = header + "\n\ndef f(x, cfg):\n" + _indent("\n".join(lines), " " * 4) + "\n"
    changes = CHANGES + (LAYER_CHANGES if layer else [])
    counter = more.choice(COUNTERS + (LAYER_COUNTERS if layer else [])) \
        if more.random() < 0.4 else None
    calls = []
    for i in range(n_calls):
        picked = [] if i == 0 else [r.choice(changes).format(
            f=round(r.uniform(-2, 2), 2), i=r.randint(0, 3), act=r.choice(ACTS))
            for _ in range(r.randint(0, 3))]
        if i and more.random() < 0.3:
            picked.append(more.choice(INDIRECT_CHANGES).format(f=round(more.uniform(-2, 2), 2)))
        if i and computed.random() < 0.5:
            picked.append(computed.choice(
                COMPUTED_CHANGES + (LAYER_COMPUTED_CHANGES if layer else [])).format(
                f=round(computed.uniform(-2, 2), 2), b=computed.randint(0, 1),
                n=computed.choice("ab")))
        if i and with_methods and methods.random() < 0.6:
            picked.append(methods.choice(METHOD_CHANGES).format(
                f=round(methods.uniform(-2, 2), 2), b=methods.randint(0, 1),
                n=methods.choice("ab")))
        if i and counter:
            picked.append(counter)      # a number that changes on every call
        batch = r.choice([1, 2, 3]) if r.random() < 0.3 else 2
        calls.append((picked, batch, r.random() < 0.15))
    return Program(seed, source, layer, calls)


def _state(m: Any, layer: bool) -> Any:
    out = {k: getattr(m, k) for k in ("K", "N", "FLAG", "TOTAL")}
    out.update(L=list(m.L), D=dict(m.D), LOG=list(m.LOG), ARR=m.ARR.tolist(),
               cfg=(m.cfg.k, m.cfg.count, m.cfg.inner.m, m.cfg.name, m.cfg.k2),
               CFGS=[c.k for c in m.CFGS], FNS=[f.__name__ for f in m.FNS],
               computed=(m.IDX, m.NAME2, m.Cfg.K, m.cfg._p, dict(m.P.keywords),
                         [c.k for c in m.TABLE2.values()], m.BM.__self__.k,
                         [c.k2 for c in m.CFGS]))
    if hasattr(m, "VALS"):
        out["methods"] = (dict(m.VALS), set(m.TAGS), m.WORD, [list(v) for v in m.LISTS],
                          dict(m.TAB), m.LOOKUP("a", None))
    if layer:
        n = m.net
        out["net"] = (n.scale, n.steps, n.flag, list(n.items), dict(n.table), n.calls,
                      n.training, n.bias.numpy().tolist(), n.i, [c.k for c in n.cfgs])
    return out


def _call(m: Any, layer: bool, fn: Any, x: np.ndarray, no_grad: bool) -> Tuple[str, Any]:
    import dy2st as paddle
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = paddle.to_tensor(x)
            if no_grad:
                with paddle.no_grad():
                    out = fn(t, m.cfg)
            else:
                out = fn(t, m.cfg)
        return "value", np.asarray(out.numpy(), dtype=np.float64)
    except Exception as e:  # noqa: BLE001 - both outcomes are compared
        return "error", type(e).__name__


@dataclass
class Report:
    programs: int = 0
    calls: int = 0
    failures: List[str] = field(default_factory=list)
    stale_calls: int = 0        # with every_call: calls that disagreed


def check(program: Program, directory: str, show: bool = False,
          stale: Optional[List[int]] = None) -> Tuple[int, Optional[str]]:
    """(calls made, the first disagreement or None) of one program. With `stale` (a list),
    every call is made and the numbers of the calls that disagree are appended to it."""
    import dy2st as paddle
    eager, _ = load_program(program.source, directory, f"guards_{program.seed}_eager")
    static, _ = load_program(program.source, directory, f"guards_{program.seed}_static")
    if program.layer:
        e_fn, s_fn = eager.net, paddle.jit.to_static(static.net)
    else:
        e_fn, s_fn = eager.f, paddle.jit.to_static(static.f)
    rng = np.random.default_rng(program.seed)
    for i, (changes, batch, no_grad) in enumerate(program.calls):
        for change in changes:
            for m in (eager, static):
                exec(change, m.__dict__)
        x = rng.uniform(-1, 1, size=(batch, 3)).astype(np.float32)
        want = _call(eager, program.layer, e_fn, x, no_grad)
        got = _call(static, program.layer, s_fn, x, no_grad)
        if show:
            print(f"call {i + 1}: changes {changes} batch {batch} no_grad {no_grad}\n"
                  f"  eager {want}\n  static {got}")
        same = want[0] == got[0] and (
            want[1] == got[1] if want[0] == "error" else
            want[1].shape == got[1].shape and np.allclose(want[1], got[1], rtol=1e-4,
                                                          atol=1e-4, equal_nan=True))
        failure = None
        if not same:
            failure = (f"--- program seed {program.seed}, call {i + 1} (changes before it: "
                       f"{changes}): eager {want}, static {got}\n{program.source}")
        elif _state(eager, program.layer) != _state(static, program.layer):
            failure = (f"--- program seed {program.seed}, call {i + 1}: the state differs: "
                       f"eager {_state(eager, program.layer)}, static "
                       f"{_state(static, program.layer)}\n{program.source}")
        if failure and stale is None:
            return i + 1, failure
        if failure:
            stale.append(i + 1)
    if stale:
        return len(program.calls), f"--- program seed {program.seed}: calls {stale} disagree"
    return len(program.calls), None


def fuzz(seed: int, count: int, calls: int = 5, stop_after: Optional[int] = None,
         every_call: bool = False) -> Report:
    """Check `count` programs; with `every_call`, a program that disagrees still makes all
    its calls, and each disagreeing call is counted in `stale_calls`."""
    report = Report()
    with tempfile.TemporaryDirectory() as directory:
        sys.path.insert(0, directory)
        try:
            for k in range(count):
                program = generate(seed * 1_000_003 + k, calls)
                stale: Optional[List[int]] = [] if every_call else None
                n, failure = check(program, directory, stale=stale)
                report.stale_calls += len(stale or ())
                report.programs += 1
                report.calls += n
                if failure:
                    report.failures.append(failure)
                    if stop_after and len(report.failures) >= stop_after:
                        break
        finally:
            sys.path.remove(directory)
    return report


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--count", type=int, default=200)
    p.add_argument("--calls", type=int, default=5)
    p.add_argument("--program-seed", type=int, help="check only this program seed")
    p.add_argument("--show", action="store_true", help="print the program and every call")
    p.add_argument("--every-call", action="store_true",
                   help="make every call of a program that disagrees, and count those that do")
    args = p.parse_args(argv)
    if args.program_seed is not None:
        program = generate(args.program_seed, args.calls)
        if args.show:
            print(program.source)
        with tempfile.TemporaryDirectory() as directory:
            _n, failure = check(program, directory, show=args.show)
        print(failure or "agree")
        return 1 if failure else 0
    report = fuzz(args.seed, args.count, args.calls, every_call=args.every_call)
    for failure in report.failures:
        print(failure)
    stale = f", {report.stale_calls} calls disagree" if args.every_call else ""
    print(f"guard fuzz: {report.programs} programs, {report.calls} calls, "
          f"{len(report.failures)} disagreements{stale}")
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
