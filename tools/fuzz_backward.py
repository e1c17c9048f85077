"""Generators of the differential fuzzer (tools/fuzz.py) for gradients taken inside converted
code and their neighbours (issue 24, item 12 and after): `loss.backward()` inside f reaching a
parameter and the input (`.grad` read inside f and compared after each call), a backward under a
tensor `if` (one branch, both branches, with retain_graph, `.grad` None on one path read after
it), `paddle.grad` inside f (also in a tensor loop body), a Layer's dict attribute written in
both branches of a tensor `if`, and a helper returning a variable that is None before a tensor
loop. Their random stream is derived from the program's own (drawing nothing from it), so every
program that does not use them is generated as before.

    python tools/fuzz_backward.py --count 500 --seed 0 --workers 2   # every program uses one
    python tools/fuzz_backward.py --count 2000 --seed 0 --breaks      # those with graph breaks
    python tools/fuzz_backward.py --count 2000 --seed 0 --breaks --whole-function-breaks
    python tools/fuzz_backward.py --program-seed 2424007275 --minimize   # one program, shrunk
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import sys
import tempfile
from typing import List, Optional, Sequence, Tuple

import numpy as np

# this checkout's tools and dy2st (run as a script, sys.path[0] is tools/), not installed ones
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tools import fuzz_minimize  # noqa: E402
from tools.fuzz_common import Failure, load_program  # noqa: E402

ALWAYS = False          # the runner below sets it: every program gets a snippet
SHARE = 0.25            # else the share of tools/fuzz.py's programs that get one

# trip counts read from the data (0 for some inputs)
COUNTS = ["(x[:, 0] > 0.0).astype('int64').sum()", "(x[:, 2] > -0.2).astype('int64').sum()"]
CONDS = ["h.sum() > 0.5", "x[0, 1] < 0.0", "g.mean() >= s", "s > 0.1"]

# Snippets inserted before a top-level statement of f; names end in 7. W7 is a Parameter with
# a gradient; `{cond}` a tensor condition.
BACKWARD = [
    ["W7.clear_grad(set_to_zero=False)",
     "loss7 = (h.detach() * W7 * W7).sum() + (x * x).sum() * 0.5",
     "loss7.backward()",
     "g = g + W7.grad * 0.5 + (x.grad.sum(axis=0) if x.grad is not None else s)"],
    ["W7.clear_grad()", "if {cond}:", "    loss7 = (h.detach() * W7).sum() * 2.0",
     "    loss7.backward()", "    g = g + W7.grad", "else:", "    h = h * 0.5",
     "g = g * 0.5 + W7.grad"],
    ["W7.clear_grad()", "if {cond}:", "    (g.detach() * W7).sum().backward()", "else:",
     "    (h.detach() * W7 * W7).sum().backward()", "h = h + W7.grad"],
    ["W7.clear_grad()", "if {cond}:", "    loss7 = (x * W7).sum() + (x * x).sum()",
     "    loss7.backward(retain_graph=True)",
     "    g = g + W7.grad + (x.grad[0] if x.grad is not None else s)",
     "    loss7.backward()", "h = h - W7.grad * 0.25"],
    # W7.grad None before the `if`: read after it, None on the path not taken
    ["W7.clear_grad(set_to_zero=False)", "if {cond}:",
     "    (h.detach() * W7 * W7).sum().backward()", "gw7 = W7.grad", "if gw7 is not None:",
     "    g = g + gw7 * 0.5", "h = h - (s if W7.grad is None else W7.grad.sum())"],
    # paddle.grad in a tensor loop body, of values before the loop and the turn's own
    ["k7 = paddle.zeros([], 'int64')", "while k7 < {n}:",
     "    (gw7,) = paddle.grad((h.detach() * W7 * W7 * (k7 + 1).astype('float32')).sum(), W7)",
     "    g = g + gw7 * 0.25", "    k7 = k7 + 1"],
    ["(gw7,) = paddle.grad((h.detach() * W7 * W7).sum(), W7)", "g = g + gw7",
     "(gw7,) = paddle.grad((g.detach() * W7).sum(), [W7], retain_graph=False)",
     "h = h * 0.5 + gw7"],
]
# need no gradient switched off: the gradient of sum(f(x) ** 2) is compared as usual
NO_BACKWARD = [
    ["v7 = last7(x, h)", "g = g + (h * s if v7 is None else v7)"],
    ["v7 = last7(x, g * 0.5)", "h = h - (g if v7 is None else v7 * 0.5)"],
]
HEAD = [
    "W7 = paddle.create_parameter([3], 'float32')",
    "W7.set_value(paddle.to_tensor([0.5, -0.25, 1.0]))",
    "W7.grad = paddle.zeros([3])",
    "GRADIENT = False     # f runs backward(): its outputs are constants (docs/training.md)",
    "SAVE = False",
    "", "",
]
LAST = [
    "def last7(x, h):", "    v = None", "    k = paddle.zeros([], 'int64')",
    "    while k < {n}:", "        v = h * 2.0 if v is None else v * 0.5 + h",
    "        k = k + 1", "    return v", "", "",
]
HOLDER = [
    "", "",
    "class Holder7(paddle.nn.Layer):",
    "    def __init__(self):",
    "        super().__init__()",
    "        self.state = {'v': paddle.zeros([3])}",
    "",
    "    def forward(self, x):",
    "        out = f(x)",
    "        if out.sum() > {limit}:",
    "            self.state['v'] = out * 0.5 + self.state['v']",
    "        else:",
    "            self.state['v'] = out - 1.0",
    "        return out + self.state['v']",
    "", "",
    "def make():",
    "    return Holder7()",
]


def _indent(line: str) -> str:
    return line[:len(line) - len(line.lstrip())]


def add_backward(gen, head: List[str], tail: List[str]) -> Tuple[List[str], List[str]]:
    """Maybe insert one snippet into gen's f (gen.lines), from a stream seeded by the program's
    own state; returns the new head (helpers, W7) and tail (a Layer holding f)."""
    r = random.Random(repr(gen.rng.getstate()[1][:8]) + " backward")
    if not ALWAYS and r.random() >= SHARE:
        return head, tail
    # (a Layer with hooks around f: a pre-hook runs eagerly, so f's input is computed by eager
    # ops that need a gradient, which a backward inside f refuses: docs/training.md)
    kinds = ["none_loop"] + ([] if tail else ["holder"])
    if not tail:
        kinds += ["backward", "backward"]
    kind = r.choice(kinds)
    at = head.index("def f(x):")
    if kind == "holder":
        # a saved model keeps the dict's values of the save (jit.save holds no Python state)
        head = head[:at] + ["SAVE = False", "", ""] + head[at:]
        return head, HOLDER[:9] + [HOLDER[9].format(limit=r.choice(["0.0", "1.5", "-0.5"]))] + \
            HOLDER[10:]
    if kind == "none_loop":
        snippet = r.choice(NO_BACKWARD)
        head = head[:at] + [t.format(n=r.choice(COUNTS)) for t in LAST] + \
            head[at:]
    else:
        cond, n = r.choice(CONDS), r.choice(COUNTS)
        snippet = [t.format(cond=cond, n=n) for t in r.choice(BACKWARD)]
        head = head[:at] + HEAD + head[at:]
    top = [i for i in gen.spots(before_the_last_return=True)
           if _indent(gen.lines[i]) == "    " and not gen.lines[i].lstrip().startswith("def ")]
    i = r.choice(top)
    gen.lines[i:i] = ["    " + t for t in snippet]
    return head, tail


# ----------------------------------------------------------------------------- the runner
def _fuzz():
    """tools/fuzz.py, whose programs the runner below checks."""
    from tools import fuzz  # fuzz.py imports add_backward from here: at import, a circle
    return fuzz


def _grads_after(fn, module, x: np.ndarray) -> Tuple[str, List[Optional[np.ndarray]]]:
    """fn(x) with x needing a gradient: the outcome, then x.grad and W7.grad after the call."""
    import dy2st as paddle
    w = getattr(module, "W7", None)
    if w is not None:
        w.grad = paddle.zeros([3])
    t = paddle.to_tensor(x, stop_gradient=False)
    try:
        with np.errstate(all="ignore"):
            out = fn(t)
        outcome = np.array2string(out.numpy(), precision=4)
        values = [out.numpy()]
    except Exception as e:  # noqa: BLE001 - every outcome is compared
        # (its builtin base, as tools/fuzz.py compares errors; the `.grad` a failed call leaves
        # is not compared: eager code keeps what ran before the error, a program applies its
        # writes only when it completes)
        return _fuzz().error_kind(e), []
    for v in (t, w):
        g = None if v is None else v.grad
        values.append(None if g is None else g.numpy().copy())
    return outcome, values


def _same(a: List[Optional[np.ndarray]], b: List[Optional[np.ndarray]]) -> bool:
    if len(a) != len(b):
        return False
    return all((u is None) == (v is None) and
               (u is None or np.allclose(u, v, rtol=1e-4, atol=1e-4, equal_nan=True))
               for u, v in zip(a, b))


def check_source_after(source: str, seed: int, directory: str, name: Optional[int] = None,
                       gradient: bool = True):
    """`source` (with a snippet; inputs from `seed`, `name` names its file) through
    tools/fuzz.py's checks, then each input again with x needing a gradient: outputs, x.grad and
    W7.grad after the call, eager vs to_static. The first disagreement (a Failure)
    or None."""
    import dy2st as paddle
    from dy2st.static import InputSpec
    fuzz = _fuzz()
    name = seed if name is None else name
    _, failure = fuzz.check_source(source, seed, directory, True, name, gradient)
    if failure is not None:
        return failure
    module, _ = load_program(source, directory, f"fuzz_{-name - 1}", f"dy2st_fuzz_{-name - 1}")
    make = getattr(module, "make", None)
    eager = make() if make is not None else module.f
    static = paddle.jit.to_static(make() if make is not None else module.f,
                                  input_spec=[InputSpec([None, 3], "float32")],
                                  full_graph=getattr(module, "FULL_GRAPH", True))
    for k, x in enumerate(fuzz.inputs(seed)):
        (e_out, e_vals), (s_out, s_vals) = _grads_after(eager, module, x), \
            _grads_after(static, module, x)
        if e_out != s_out and not (e_vals and s_vals) or not _same(e_vals, s_vals):
            kinds = ["value" if vals else out for out, vals in ((e_out, e_vals), (s_out, s_vals))]
            return Failure(
                seed, source, f"input {k}, x needing a gradient: outputs and .grad after the call"
                f"\n  eager:     {e_out} {e_vals[1:]}\n  to_static: {s_out} {s_vals[1:]}",
                f"after the call: {kinds[0]} -> {kinds[1]}")
    return None


def check_after(seed: int, directory: str) -> Optional[str]:
    """Program `seed` through check_source_after: its failure's report, or None."""
    failure = check_source_after(_fuzz().generate(seed), seed, directory)
    return None if failure is None else str(failure)


class _AfterChecks:
    """tools/fuzz_minimize.py's view of these checks (it calls `check_source`)."""

    @staticmethod
    def check_source(source: str, seed: int, directory: str, save: bool = True,
                     name: Optional[int] = None, gradient: bool = True):
        return 0, check_source_after(source, seed, directory, name, gradient)


def minimize(source: str, seed: int, directory: str, seconds: float = 20.0) -> str:
    """Shrink f while the program still fails the same way (tools/fuzz_minimize.py over these
    checks)."""
    return fuzz_minimize.minimize(_AfterChecks, source, seed, directory, True, seconds)


def _check(seed: int) -> Tuple[int, Optional[str], bool]:
    with tempfile.TemporaryDirectory(prefix="dy2st_fuzzb_") as d:
        sys.path.insert(0, d)
        try:
            return seed, check_after(seed, d), "W7" in _fuzz().generate(seed)
        except Exception as e:  # noqa: BLE001 - a crash of the harness is a failure too
            return seed, f"--- seed {seed}: crashed: {type(e).__name__}: {e}", False
        finally:
            sys.path.remove(d)


def _one(seed: int, minimized: bool) -> int:
    """--program-seed: the program (with its snippet), its first disagreement, and with
    `minimized` the smallest f that still fails the same way."""
    source = _fuzz().generate(seed)
    print(source)
    with tempfile.TemporaryDirectory(prefix="dy2st_fuzzb_") as d:
        sys.path.insert(0, d)
        try:
            failure = check_source_after(source, seed, d)
            print(failure or "agree")
            if failure is not None and minimized:
                small = minimize(source, seed, d)
                print("--- minimized:")
                print(small)
                print(check_source_after(small, seed, d, -2) or "agree (flaky?)")
        finally:
            sys.path.remove(d)
    return 1 if failure else 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--count", type=int, default=100)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--breaks", action="store_true",
                   help="only the programs that run with graph breaks (FULL_GRAPH = False)")
    p.add_argument("--whole-function-breaks", action=argparse.BooleanOptionalAction,
                   help="place the graph-breaking snippets anywhere in f, or not (tools/fuzz.py's "
                        "option)")
    p.add_argument("--program-seed", type=int, help="check only this program seed")
    p.add_argument("--minimize", action="store_true",
                   help="with --program-seed: drop statements while it still fails")
    args = p.parse_args(argv)
    fuzz = _fuzz()
    # run as a script, this is __main__; fuzz.py draws its snippets from tools.fuzz_backward
    sys.modules[fuzz.add_backward.__module__].ALWAYS = True
    if args.whole_function_breaks is not None:
        fuzz.set_whole_function_breaks(args.whole_function_breaks)
    if args.program_seed is not None:
        return _one(args.program_seed, args.minimize)
    seeds = fuzz.program_seeds(args.seed, args.count, args.breaks)
    failures, with_backward = 0, 0
    if args.workers > 1:
        with multiprocessing.get_context("fork").Pool(args.workers) as pool:
            results = list(pool.imap(_check, seeds, chunksize=4))
    else:
        results = [_check(s) for s in seeds]
    for seed, failure, uses_backward in results:
        with_backward += uses_backward
        if failure is not None:
            failures += 1
            print(failure, flush=True)
    print(f"{len(seeds)} programs ({with_backward} with a backward or paddle.grad inside f"
          f"{', all with graph breaks' if args.breaks else ''}), "
          f"{failures} disagreements")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
