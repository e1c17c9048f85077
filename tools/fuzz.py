"""Differential fuzzer: random Paddle-style functions run eagerly, through to_static and through a
jit.save / jit.load round trip must agree (same values, or the same exception type at the same
user line), and so must the gradients of eager code, to_static and the loaded model.

    python tools/fuzz.py --count 5000 --seed 0      # a long run; prints every failure
    python tools/fuzz.py --count 5000 --workers 4   # the same in 4 processes
    python tools/fuzz.py --seed 1234 --count 1 --show   # one program's source and outcomes
    python tools/fuzz.py --guards --count 2000          # guard mode (tools/fuzz_guards.py)
    python tools/fuzz.py --seed 11 --count 2000 --breaks --whole-function-breaks
        # the graph-break snippets anywhere in f; only the programs that run with breaks

A failure prints the program's seed and source, so that it can become a regression test."""
from __future__ import annotations

import argparse
import dis
import os
import random
import re
import sys
import tempfile
from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Tuple

import numpy as np

# this checkout's tools and dy2st (run as a script, sys.path[0] is tools/), not installed ones
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tools import fuzz_guards, fuzz_minimize, fuzz_silent, fuzz_workers  # noqa: E402
from tools.fuzz_backward import add_backward  # noqa: E402
from tools.fuzz_common import Failure, load_program  # noqa: E402
from tools.fuzz_loops import add_loop_changes  # noqa: E402
from tools.fuzz_silent import add_silent, same_globals, written_globals  # noqa: E402

# ----------------------------------------------------------------------------- generator
TENSORS = ("h", "g")              # [3] float32 tensors, always assigned
MAYBE = ("z",)                    # a [3] tensor assigned only on some paths


class Generator:
    """Writes one random function `f(x)` (x: float32[B, 3]) and its helpers."""

    def __init__(self, rng: random.Random, closure_rng: Optional[random.Random] = None,
                 holder_rng: Optional[random.Random] = None,
                 extra_rng: Optional[random.Random] = None,
                 list_rng: Optional[random.Random] = None,
                 silent_rng: Optional[random.Random] = None,
                 loop_change_rng: Optional[random.Random] = None) -> None:
        self.rng = rng
        # closures, attribute holders, extra statements and list loops are drawn from streams
        # of their own, so that adding them left every other program (and the seeds of
        # earlier bugs) as it was
        self.closure_rng = closure_rng or random.Random(0)
        self.holder_rng = holder_rng or random.Random(0)
        self.extra_rng = extra_rng or random.Random(0)
        self.list_rng = list_rng or random.Random(0)
        self.silent_rng = silent_rng or random.Random(0)
        self.loop_change_rng = loop_change_rng or random.Random(0)
        self.full_graph = True      # False: the program needs graph breaks (Python values)
        self.lines: List[str] = []
        self.loop_depth = 0
        self.loop_vars: List[str] = []
        self.n_loops = 0

    # expressions -----------------------------------------------------------------
    def vec(self, depth: int = 0) -> str:
        """A float32[3] tensor expression."""
        r = self.rng
        atoms = ["h", "g", "h * 0.5", "g - s", "acc[-1]", "d['a']", "x[0]", "(h + 0.25)"]
        if self.loop_vars:
            atoms += [v for v in self.loop_vars if v.startswith("row")]
        if r.random() < 0.15:
            atoms.append("z")
        if depth < 2 and r.random() < 0.5:
            op = r.choice(["+", "-", "*"])
            return f"({self.vec(depth + 1)} {op} {self.vec(depth + 1)})"
        if depth < 2 and r.random() < 0.2:
            fn = r.choice(["paddle.tanh", "paddle.abs", "helper", "scale2"])
            if fn == "helper":
                return f"helper({self.vec(depth + 1)}, s)"
            return f"{fn}({self.vec(depth + 1)})"
        if depth < 2 and r.random() < 0.1:
            return "paddle.stack(acc).sum(axis=0)"
        return r.choice(atoms)

    def scalar(self) -> str:
        """A float32[] tensor expression."""
        return self.rng.choice(["s", "h.sum()", "g.mean()", "x.sum() * 0.1", "h[1]",
                                "(s * 0.5 + 0.1)", "d['a'].max()", "x[-1, 0]"])

    def tcond(self, depth: int = 0) -> str:
        """A tensor condition."""
        r = self.rng
        if depth < 1 and r.random() < 0.3:
            a, b = self.tcond(depth + 1), self.tcond(depth + 1)
            return r.choice([f"{a} and {b}", f"{a} or {b}", f"not ({a})"])
        cmp = r.choice(["<", ">", "<=", ">="])
        return f"{self.scalar()} {cmp} {r.choice(['0.0', '0.3', '1.0', '2.5', '-0.5', 's'])}"

    def pcond(self) -> str:
        """A Python condition."""
        return self.rng.choice(["c > 1", "c == 0", "FLAG", "not FLAG", "c % 2 == 1", "len(acc) > 2"])

    # statements -------------------------------------------------------------------
    def emit(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)

    def block(self, indent: int, depth: int, n: Optional[int] = None) -> None:
        n = n if n is not None else self.rng.randint(1, 3)
        for _ in range(n):
            self.statement(indent, depth)

    def statement(self, indent: int, depth: int) -> None:
        r = self.rng
        kinds = ["assign", "assign", "aug", "item", "inplace", "alias", "list", "dict", "pyint"]
        if depth < 3:
            kinds += ["tif", "tif", "pif"]
            if self.n_loops < 3:
                kinds += ["loop"]
        if self.loop_depth:
            kinds += ["break", "continue"]
        if depth > 0:
            kinds += ["maybe", "return"]
        kind = r.choice(kinds)
        getattr(self, "s_" + kind)(indent, depth)

    def s_assign(self, indent, depth):
        self.emit(indent, f"{self.rng.choice(TENSORS)} = {self.vec()}")

    def s_maybe(self, indent, depth):
        self.emit(indent, f"z = {self.vec()}")
        self.emit(indent, "g = g + z * 0.5")

    def s_aug(self, indent, depth):
        r = self.rng
        if r.random() < 0.5:
            self.emit(indent, f"{r.choice(TENSORS)} {r.choice(['+=', '-=', '*='])} {self.vec()}")
        else:
            self.emit(indent, f"s {r.choice(['+=', '*='])} {r.choice(['0.5', '1.5', 'h.mean()'])}")

    def s_item(self, indent, depth):
        r = self.rng
        target = r.choice(["h", "g", "acc[0]", "d['a']", "acc[-1]"])
        i = r.randint(-3, 2)
        op = r.choice(["=", "+="])
        self.emit(indent, f"{target}[{i}] {op} {self.scalar()}")

    def s_inplace(self, indent, depth):
        r = self.rng
        target = r.choice(["h", "g", "acc[0]", "d['a']"])
        self.emit(indent, f"{target}.{r.choice(['add_', 'subtract_', 'multiply_'])}({self.vec()})")

    def s_alias(self, indent, depth):
        r = self.rng
        choices = ["g = h", "h = g", "d['a'] = h", "acc[0] = h"]
        if depth == 0:
            choices.append("d['b'] = g")   # a new key under a tensor `if` is refused (see docs)
        self.emit(indent, r.choice(choices))

    def s_list(self, indent, depth):
        # a list that grows under a tensor `if` or loop changes structure: only at the top
        if depth == 0:
            self.emit(indent, self.rng.choice([f"acc.append({self.vec()})", "acc.append(h)"]))
        else:
            self.emit(indent, f"acc[0] = {self.vec()}")

    def s_dict(self, indent, depth):
        self.emit(indent, f"d['a'] = {self.vec()}")

    def s_pyint(self, indent, depth):
        if self.loop_depth:
            self.emit(indent, "s = s + 0.25")
        else:
            self.emit(indent, f"c = c + {self.rng.randint(1, 2)}")

    def s_tif(self, indent, depth):
        r = self.rng
        self.emit(indent, f"if {self.tcond()}:")
        self.block(indent + 1, depth + 1)
        if r.random() < 0.3:
            self.emit(indent, f"elif {self.tcond()}:")
            self.block(indent + 1, depth + 1)
        if r.random() < 0.6:
            self.emit(indent, "else:")
            self.block(indent + 1, depth + 1)

    def s_pif(self, indent, depth):
        self.emit(indent, f"if {self.pcond()}:")
        self.block(indent + 1, depth + 1)
        if self.rng.random() < 0.5:
            self.emit(indent, "else:")
            self.block(indent + 1, depth + 1)

    def s_loop(self, indent, depth):
        r = self.rng
        self.n_loops += 1
        k = self.n_loops
        kind = r.choice(["range_t", "over", "enumerate", "zip", "while_t", "range_py"])
        var = f"row{k}"
        if kind == "range_t":
            self.emit(indent, f"for i{k} in range(x.shape[0]):")
            var = f"i{k}"
        elif kind == "range_py":
            self.emit(indent, f"for i{k} in range({r.randint(0, 3)}):")
            var = f"i{k}"
        elif kind == "over":
            self.emit(indent, f"for {var} in x:")
        elif kind == "enumerate":
            self.emit(indent, f"for i{k}, {var} in enumerate(x):")
        elif kind == "zip":
            self.emit(indent, f"for {var}, q{k} in zip(x, x * 2.0):")
        else:
            self.emit(indent, f"w{k} = s * 0.0")
            self.emit(indent, f"while w{k} < {r.choice(['1.0', '2.0', '3.0'])}:")  # always ends
            self.emit(indent + 1, f"w{k} = w{k} + 0.75")
            var = f"w{k}"          # (a while loop binds no row)
        self.loop_depth += 1
        self.loop_vars.append(var)
        self.block(indent + 1, depth + 1)
        self.loop_vars.pop()
        self.loop_depth -= 1

    def s_break(self, indent, depth):
        self.emit(indent, f"if {self.tcond()}:")
        self.emit(indent + 1, self.rng.choice(["break", "continue"]))

    s_continue = s_break

    def s_return(self, indent, depth):
        self.emit(indent, f"if {self.tcond()}:")
        self.emit(indent + 1, f"return {self.vec()} + {self.ret_tail()}")

    def ret_tail(self) -> str:
        return "paddle.stack(acc).sum(axis=0) + d['a']"

    # program ------------------------------------------------------------------------
    def program(self) -> str:
        r = self.rng
        head = [
            "import dy2st as paddle",
            "",
            f"FLAG = {r.choice(['True', 'False'])}",
            "",
            "",
            "def helper(a, b):",
            "    if b > 0.5:",
            "        return a * 0.5 + b",
            "    return a - b",
            "",
            "",
            "def scale2(t):",
            "    t = t * 2.0",
            "    return t",
            "",
            "",
            "def f(x):",
            "    h = x.mean(axis=0)",
            "    g = x.max(axis=0) * 0.5",
            "    s = x.sum() * 0.1",
            "    acc = [h * 0.0]",
            "    d = {'a': g * 1.0}",
            "    c = 0",
        ]
        if r.random() < 0.3:
            self.emit(1, "if FLAG:")
            self.emit(2, "z = h * 2.0")
        self.block(1, 0, r.randint(2, 6))
        self.emit(1, f"return h + g + {self.ret_tail()}")
        if self.closure_rng.random() < 0.3:
            self.add_closure()
        if self.extra_rng.random() < 0.4:
            head = self.add_extras(head)
        if self.list_rng.random() < 0.3:
            self.add_list_loop()
        tail: List[str] = []
        if self.silent_rng.random() < 0.4:
            head, tail = add_silent(self, head)
        if self.loop_change_rng.random() < 0.3:
            head = add_loop_changes(self, head)
        head, tail = add_backward(self, head, tail)     # a stream of its own
        lines = head + self.lines + tail
        # (programs with graph breaks keep their dict: see docs/fuzzing.md, issue 24)
        if self.holder_rng.random() < 0.3 and self.full_graph:
            lines = self.hold_in_attributes(lines)
        return "\n".join(lines) + "\n"

    def spots(self, before_the_last_return: bool) -> List[int]:
        """Lines of f a statement may be inserted before, at their indent: not an `else:` or
        `elif`, not inside the closure `inner`, and the final return only if asked."""
        inner = [i for i, t in enumerate(self.lines) if t == "    def inner(t):"]
        skip = set(range(inner[0], inner[0] + 5)) if inner else set()
        last = len(self.lines) - 1
        return [i for i, t in enumerate(self.lines) if i not in skip and
                not t.lstrip().startswith(("else:", "elif ")) and
                (not t.lstrip().startswith("return h + g + ") or
                 (before_the_last_return and i == last))]

    def add_extras(self, head: List[str]) -> List[str]:
        """Insert one to three statements of other kinds before statements of f: a swap (two
        names trade objects), a tensor conditional expression, a helper that changes its
        argument in place under its own tensor `if`, a copy that ends an alias."""
        r = self.extra_rng
        spots = self.spots(before_the_last_return=False)
        extras = ["h, g = g, h", "g, h = h * 0.5, g",
                  "h = g if {cond} else h", "g = (h * 2.0) if {cond} else g",
                  "bump(h, s)", "bump({vec}, h[0])", "g = h.clone()"]
        conds = ["s > 0.3", "h.sum() < 1.0", "x[-1, 0] >= 0.0", "g.mean() <= s"]
        for i in sorted(r.sample(spots, min(len(spots), r.randint(1, 3))), reverse=True):
            text = r.choice(extras).format(cond=r.choice(conds),
                                           vec=r.choice(["g", "acc[0]", "d['a']"]))
            self.lines.insert(i, _indent(self.lines[i]) + text)
        if any("bump(" in t for t in self.lines):
            at = head.index("def f(x):")
            head = head[:at] + ["def bump(t, v):", "    if v > 0.2:", "        t[0] += v",
                                "    else:", "        t.subtract_(t * 0.5)", "", ""] + head[at:]
        return head

    def add_list_loop(self) -> None:
        """Insert a Python loop over the list `acc` (unrolled while tracing) before a statement
        of f: its entries changed in place or replaced through the loop variable or an index."""
        r = self.list_rng
        i = r.choice(self.spots(before_the_last_return=True))
        indent = _indent(self.lines[i])
        body = r.choice([["for e in acc:", "    e.add_(s * 0.5)"],
                         ["for e in acc:", "    e[1] = g.mean()"],
                         ["for k in range(len(acc)):", "    acc[k] = acc[k] * 0.5 + h"],
                         ["for k, e in enumerate(acc):", "    if e.sum() > s:",
                          "        e.multiply_(g)"],
                         ["for e in acc:", "    h = h + e"]])
        self.lines[i:i] = [indent + t for t in body]

    def hold_in_attributes(self, lines: List[str]) -> List[str]:
        """`d` becomes an object whose attributes hold the tensors (`d.a`, `d.b`) instead of a
        dict: aliases held in attributes, changed in place through them, and set by a method
        (`d.put(v)` for some `d.a = v`)."""
        box = ["class Box:", "    def __init__(self, a):", "        self.a = a", "",
               "    def put(self, v):", "        self.a = v", "", ""]
        at = lines.index("def f(x):")
        out = []
        for t in lines[at:]:
            t = t.replace("d = {'a': g * 1.0}", "d = Box(g * 1.0)").replace("d['a']", "d.a") \
                .replace("d['b']", "d.b")
            if t.lstrip().startswith("d.a = ") and self.holder_rng.random() < 0.5:
                t = f"{_indent(t)}d.put({t.lstrip()[len('d.a = '):]})"
            out.append(t)
        return lines[:at] + box + out

    def add_closure(self) -> None:
        """A nested function of f reading f's names (cells: it sees their latest values),
        called first at the top of f and then in place of some `scale2(...)` calls."""
        r = self.closure_rng
        kind = r.choice(["plain", "tif", "free"] if any("z = " in t for t in self.lines)
                        else ["plain", "tif"])
        body = {"plain": ["    return t * 0.5 + h"],
                "tif": ["    if t.sum() > s:", "        return t - g * 0.5", "    return t + h"],
                "free": ["    return t + z * 0.25"]}[kind]   # z may be unbound: NameError
        first = ["def inner(t):"] + body + [f"{r.choice(TENSORS)} = inner({r.choice(TENSORS)})"]
        self.lines = ["    " + t for t in first] + [
            t.replace("scale2(", "inner(") if r.random() < 0.5 else t for t in self.lines]


def _indent(line: str) -> str:
    """The whitespace a line starts with."""
    return line[:len(line) - len(line.lstrip())]


def generate(seed: int) -> str:
    return Generator(random.Random(seed), random.Random(f"closure {seed}"),
                     random.Random(f"holder {seed}"), random.Random(f"extra {seed}"),
                     random.Random(f"list {seed}"), random.Random(f"silent {seed}"),
                     random.Random(f"loops {seed}")).program()


# ----------------------------------------------------------------------------- running
@dataclass
class Outcome:
    """A value (numpy array) or an exception (type name, user line)."""
    value: Optional[np.ndarray] = None
    error: Optional[Tuple[str, Optional[int]]] = None
    text: str = ""
    stop: Optional[bool] = None     # with gradients: the output's stop_gradient flag
    no_grad: Optional[bool] = None  # with gradients: x.grad is None (eager leaves it so where
                                    # no gradient reaches x; zeros there are another result)

    def __str__(self) -> str:
        if self.error is not None:
            return f"{self.error[0]} at line {self.error[1]}: {self.text[-300:]}"
        return "x.grad None" if self.no_grad else np.array2string(self.value, precision=5)


def error_kind(e: BaseException) -> str:
    # UnboundLocalError subclasses raised by dy2st count as UnboundLocalError
    for t in type(e).__mro__:
        if t.__module__ == "builtins":
            return t.__name__
    return type(e).__name__


def _eager_line(e: BaseException, path: str) -> Optional[int]:
    line = None
    tb = e.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == path:
            line = _unbound_read_line(e, tb) or tb.tb_lineno
        tb = tb.tb_next
    return line


def _unbound_read_line(e: BaseException, tb) -> Optional[int]:
    """The line of the read that failed, for an unassigned local. CPython 3.11 fuses
    `STORE_FAST a; LOAD_FAST b` (and other pairs) into one instruction once a function is warm,
    and blames a failing `LOAD_FAST b` on the first half's line: look at the instruction after."""
    if not isinstance(e, UnboundLocalError) or tb.tb_next is not None:
        return None
    m = re.search(r"variable '(\w+)'", str(e))
    if m is None:
        return None
    instructions = list(dis.get_instructions(tb.tb_frame.f_code))
    for k, ins in enumerate(instructions):
        if ins.offset != tb.tb_lasti:
            continue
        if ins.opname.startswith("LOAD") and ins.argval == m.group(1):
            return None
        nxt = instructions[k + 1] if k + 1 < len(instructions) else None
        if nxt is not None and nxt.opname == "LOAD_FAST" and nxt.argval == m.group(1) and \
                getattr(nxt, "positions", None) is not None:
            return nxt.positions.lineno
    return None


_FILE_LINE = re.compile(r'File "([^"]+)", line (\d+)')


def _static_line(e: BaseException, path: str) -> Optional[int]:
    """The last user line of `path` in dy2st's `In user code:` block."""
    text = str(e).split("\n\n")[0]
    lines = [int(n) for f, n in _FILE_LINE.findall(text) if f == path]
    return lines[-1] if lines else None


def _run(fn, x, path: str, eager: bool, gradient: bool = False) -> Outcome:
    """fn(x)'s value, or with `gradient` the gradient of sum(fn(x) ** 2) with respect to x."""
    import dy2st as paddle
    try:
        t = paddle.to_tensor(x)
        t.stop_gradient = not gradient
        with np.errstate(all="ignore"):
            out = fn(t)
            stop = no_grad = None
            if gradient:
                stop = bool(out.stop_gradient)
                (out * out).sum().backward()
                no_grad = t.grad is None
                out = t.grad if t.grad is not None else paddle.zeros_like(t)
        return Outcome(value=np.asarray(out.numpy(), dtype=np.float64), stop=stop,
                       no_grad=no_grad)
    except Exception as e:  # noqa: BLE001 - every outcome is compared
        line = _eager_line(e, path) if eager else _static_line(e, path)
        return Outcome(error=(error_kind(e), line), text=f"{type(e).__name__}: {e}")


def _kind_of(o: Outcome) -> str:
    return "value" if o.error is None else o.error[0]


def _agree(a: Outcome, b: Outcome, tolerance: float = 1e-4) -> bool:
    if a.error is not None or b.error is not None:
        return a.error == b.error
    if a.value.shape != b.value.shape or a.stop != b.stop or a.no_grad != b.no_grad:
        return False
    return bool(np.allclose(a.value, b.value, rtol=tolerance, atol=tolerance, equal_nan=True))


GRADIENT_TOLERANCE = 1e-3     # float32 gradients summed in another order through loops


def inputs(seed: int) -> List[np.ndarray]:
    """Inputs chosen to take different branches and trip counts."""
    rng = np.random.default_rng(seed)
    out = []
    for b in (1, 3, 4):
        out.append(rng.uniform(-1.0, 1.0, size=(b, 3)).astype(np.float32))
    out.append(np.full((2, 3), 0.01, np.float32))
    out.append(rng.uniform(0.5, 2.0, size=(3, 3)).astype(np.float32))
    return out


# dy2st's documented refusal (docs/fuzzing.md): an object changed in place on some turns of a
# tensor loop only, read after the loop, is a ValueError at the line of the in-place change
REFUSAL = "changed in place on some turns of a tensor loop only"
_IN_PLACE = re.compile(r"\]\s*[-+*/]?=[^=]|\.\w+_\(")


def documented_refusal(static: Outcome, source: str) -> bool:
    """Whether `static` is that refusal, at a line of `source` that changes a tensor in place."""
    if static.error is None or static.error[0] != "ValueError" or REFUSAL not in static.text:
        return False
    line = static.error[1]
    lines = source.splitlines()
    return line is not None and 0 < line <= len(lines) and bool(_IN_PLACE.search(lines[line - 1]))


@dataclass
class Report:
    programs: int = 0
    runs: int = 0
    gradients: int = 0       # inputs whose gradients were compared (eager's backward ran)
    failures: List[Failure] = field(default_factory=list)
    refused: List[Failure] = field(default_factory=list)    # documented refusals, not bugs

    def by_kind(self) -> str:
        """Failures counted by kind (eager outcome -> other outcome), most frequent first."""
        counts: dict = {}
        for f in self.failures:
            counts[f.kind] = counts.get(f.kind, 0) + 1
        return ", ".join(f"{n} {k}" for k, n in sorted(counts.items(), key=lambda kv: -kv[1]))


def check_program(seed: int, directory: str, save: bool = True, gradient: bool = True,
                  report: Optional["Report"] = None) -> Tuple[int, Optional[Failure]]:
    """Run program `seed` on its inputs in every mode; (runs, the first disagreement). With
    `gradient`, where eager returns a value and its backward runs, to_static's gradient of
    sum(f(x) ** 2) with respect to x must be eager's too (counted in `report.gradients`)."""
    return check_source(generate(seed), seed, directory, save, gradient=gradient, report=report)


def check_source(source: str, seed: int, directory: str, save: bool = True,
                 name: Optional[int] = None, gradient: bool = True,
                 report: Optional["Report"] = None) -> Tuple[int, Optional[Failure]]:
    """check_program for a given source (the inputs come from `seed`; `name` names its file)."""
    import dy2st as paddle
    from dy2st.static import InputSpec
    name = seed if name is None else name
    module, path = load_program(source, directory, f"fuzz_{name}", f"dy2st_fuzz_{name}")
    # strict (full_graph=True): a break would hide a conversion bug; only programs whose
    # Python code needs tensor values (FULL_GRAPH = False) run with graph breaks
    full_graph = getattr(module, "FULL_GRAPH", True)
    gradient = gradient and getattr(module, "GRADIENT", True)     # (tools/fuzz_backward.py)
    make = getattr(module, "make", None)      # a Layer (with hooks) calling f
    eager_fn = make() if make is not None else module.f
    sf = paddle.jit.to_static(make() if make is not None else module.f,
                              input_spec=[InputSpec([None, 3], "float32")],
                              full_graph=full_graph)
    save = save and full_graph and getattr(module, "SAVE", True)  # jit.save refuses breaks
    loaded = None
    runs = 0
    for k, x in enumerate(inputs(seed)):
        eager = _run(eager_fn, x, path, eager=True)
        eager_globals = written_globals(module)
        static = _run(sf, x, path, eager=False)
        runs += 1
        if not _agree(eager, static):
            kind = "refused" if documented_refusal(static, source) else \
                f"{_kind_of(eager)} -> {_kind_of(static)}"
            return runs, Failure(seed, source, f"input {k} shape {list(x.shape)}\n  eager:     "
                                 f"{eager}\n  to_static: {static}\n  x = {x.tolist()}", kind)
        static_globals = written_globals(module)
        if eager.error is None and not same_globals(eager_globals, static_globals):
            return runs, Failure(seed, source, f"input {k} shape {list(x.shape)}: the globals f "
                                 f"writes after the call\n  eager:     {eager_globals}\n  "
                                 f"to_static: {static_globals}\n  x = {x.tolist()}",
                                 "value -> other globals")
        grad_eager = None
        if gradient and eager.error is None:
            # (eager refuses a backward through a tensor changed in place after an op used
            # it, which the static program, where the change is a new value, can do)
            grad_eager = _run(eager_fn, x, path, eager=True, gradient=True)
            grad_static = _run(sf, x, path, eager=False, gradient=True)
            if grad_eager.error is None:
                if report is not None:
                    report.gradients += 1
                if not _agree(grad_eager, grad_static, GRADIENT_TOLERANCE):
                    return runs, Failure(
                        seed, source, f"input {k} shape {list(x.shape)}, d sum(f(x)**2) / dx"
                        f"\n  eager:     {grad_eager}\n  to_static: {grad_static}\n  x = "
                        f"{x.tolist()}", f"gradient {_kind_of(grad_eager)} -> "
                        f"{_kind_of(grad_static)}")
        if not save or static.error is not None:
            continue
        if loaded is None:
            prefix = os.path.join(directory, f"model_{name}")
            try:
                paddle.jit.save(sf, prefix)
                loaded = paddle.jit.load(prefix)
            except Exception as e:  # noqa: BLE001
                return runs, Failure(seed, source, f"jit.save/load failed: {type(e).__name__}: {e}",
                                     f"save {type(e).__name__}")
        back = _run(loaded, x, path, eager=False)
        if not _agree(eager, back):
            return runs, Failure(seed, source, f"input {k} shape {list(x.shape)}\n  eager:  "
                                 f"{eager}\n  loaded: {back}\n  x = {x.tolist()}",
                                 f"{_kind_of(eager)} -> loaded {_kind_of(back)}")
        if grad_eager is not None and grad_eager.error is None:
            # the loaded model's gradient too: the file must hold the stops (no_grad, detach)
            grad_back = _run(loaded, x, path, eager=False, gradient=True)
            if not _agree(grad_eager, grad_back, GRADIENT_TOLERANCE):
                return runs, Failure(
                    seed, source, f"input {k} shape {list(x.shape)}, d sum(f(x)**2) / dx"
                    f"\n  eager:  {grad_eager}\n  loaded: {grad_back}\n  x = {x.tolist()}",
                    f"gradient {_kind_of(grad_eager)} -> loaded {_kind_of(grad_back)}")
    return runs, None


def minimize(source: str, seed: int, directory: str, save: bool = True,
             seconds: float = 20.0, gradient: bool = True) -> str:
    """Shrink f while the program still fails the same way (tools/fuzz_minimize.py, over this
    module's check_source)."""
    return fuzz_minimize.minimize(sys.modules[__name__], source, seed, directory, save,
                                  seconds, gradient)


def add_outcome(report: Report, runs: int, failure: Optional[Failure], verbose: bool) -> None:
    """Count one program's outcome in the report (a failure printed with `verbose`)."""
    report.programs += 1
    report.runs += runs
    if failure is not None and failure.kind == "refused":
        report.refused.append(failure)
    elif failure is not None:
        report.failures.append(failure)
        if verbose:
            print(failure, flush=True)


def set_whole_function_breaks(on: bool) -> bool:
    """Place the graph-breaking snippets anywhere in f (True) or make f only the snippet and
    its return (False); tools/fuzz_silent.py's WHOLE_FUNCTION_BREAKS. Returns the old value."""
    before, fuzz_silent.WHOLE_FUNCTION_BREAKS = fuzz_silent.WHOLE_FUNCTION_BREAKS, on
    return before


def program_seeds(seed: int, count: int, breaks_only: bool = False) -> List[int]:
    """The program seeds of a run: `count` programs from `seed`, with `breaks_only` those of
    them that run with graph breaks (FULL_GRAPH = False; generating is cheap next to checking)."""
    seeds = [seed * 1_000_003 + k for k in range(count)]
    if breaks_only:
        seeds = [s for s in seeds if "FULL_GRAPH = False" in generate(s)]
    return seeds


def fuzz(seed: int, count: int, save: bool = True, stop_after: Optional[int] = None,
         verbose: bool = False, gradient: bool = True, workers: int = 1,
         breaks_only: bool = False) -> Report:
    seeds = program_seeds(seed, count, breaks_only)
    if workers > 1:
        return fuzz_workers.fuzz_in_workers(sys.modules[__name__], seeds, save, verbose,
                                            gradient, workers)
    report = Report()
    with tempfile.TemporaryDirectory(prefix="dy2st_fuzz_") as directory:
        sys.path.insert(0, directory)
        try:
            for program_seed in seeds:
                try:
                    runs, failure = check_program(program_seed, directory, save, gradient,
                                                  report)
                except Exception as e:  # noqa: BLE001 - a crash of the harness is a failure too
                    runs, failure = 0, Failure(program_seed, generate(program_seed),
                                               f"crashed: {type(e).__name__}: {e}")
                add_outcome(report, runs, failure, verbose)
                if stop_after is not None and len(report.failures) >= stop_after:
                    break
        finally:
            sys.path.remove(directory)
    return report


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--guards" in argv:      # the guard mode: state changed between calls (fuzz_guards.py)
        return fuzz_guards.main([a for a in argv if a != "--guards"])
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--count", type=int, default=300)
    p.add_argument("--no-save", action="store_true", help="skip the jit.save/jit.load round trip")
    p.add_argument("--no-gradient", action="store_true",
                   help="skip comparing to_static's gradients with eager's")
    p.add_argument("--workers", type=int, default=1,
                   help="check programs in this many processes (the long run on idle cores)")
    p.add_argument("--show", action="store_true", help="print the first program's source")
    p.add_argument("--program-seed", type=int, help="check only this program seed")
    p.add_argument("--minimize", action="store_true",
                   help="with --program-seed: drop statements while it still fails")
    p.add_argument("--breaks", action="store_true",
                   help="only the programs that run with graph breaks (FULL_GRAPH = False)")
    p.add_argument("--whole-function-breaks", action=argparse.BooleanOptionalAction,
                   help="place the graph-breaking snippets anywhere in f, or (--no-...) make f "
                        "only the snippet and its return (default: tools/fuzz_silent.py's "
                        "WHOLE_FUNCTION_BREAKS)")
    args = p.parse_args(argv)
    if args.whole_function_breaks is not None:
        set_whole_function_breaks(args.whole_function_breaks)
    if args.program_seed is not None:
        print(generate(args.program_seed))
        with tempfile.TemporaryDirectory() as d:
            sys.path.insert(0, d)
            _, failure = check_program(args.program_seed, d, not args.no_save,
                                       not args.no_gradient)
            print(failure or "agree")
            if failure is not None and args.minimize:
                small = minimize(generate(args.program_seed), args.program_seed, d,
                                 not args.no_save, gradient=not args.no_gradient)
                print("--- minimized:")
                print(small)
                print(check_source(small, args.program_seed, d, not args.no_save, -1,
                                   not args.no_gradient)[1])
        return 1 if failure else 0
    if args.show:
        print(generate(args.seed * 1_000_003))
    report = fuzz(args.seed, args.count, not args.no_save, verbose=True,
                  gradient=not args.no_gradient, workers=args.workers, breaks_only=args.breaks)
    print(f"{report.programs} programs{' with graph breaks' if args.breaks else ''}, {report.runs} runs, {report.gradients} gradients, "
          f"{len(report.failures)} failures"
          f"{' (' + report.by_kind() + ')' if report.failures else ''}, {len(report.refused)} "
          f"documented refusals (seeds {', '.join(str(f.seed) for f in report.refused[:20])}"
          f"{', ...' if len(report.refused) > 20 else ''})")
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
