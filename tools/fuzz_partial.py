"""Differential fuzzer of gradients through paths not taken: random two-output programs (tensor
`if`s and tensor loops nested up to 3 deep, over sqrt/log/rsqrt/pow(0.5)/division with `x`
holding 0, where a gradient is inf) backwarded from one output, then the other; `.grad` of `x`
and `w` after each backward, to_static (both `full_graph` settings) against eager, None taken
as zeros. With `--create-graph`, `paddle.grad(..., create_graph=True)` of one output, then a
backward of the gradients: the second-order gradients against eager.

    python tools/fuzz_partial.py --count 200 --seed 0
    python tools/fuzz_partial.py --count 200 --seed 0 --create-graph
    python tools/fuzz_partial.py --program-seed 17 --minimize
"""
from __future__ import annotations

import argparse
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

VARS = ("a", "b", "c")
# a zero in x (the gradient of sqrt, log, rsqrt, 1/x is inf there) and every trip count
INPUTS = [np.array(v, "float32") for v in ([0.0, 1.0, 4.0], [0.0, 0.2, 0.1], [0.0, 0.3, 0.9])]
W = np.array([0.7, 1.1, 0.4], "float32")
TURNS = ["(x > 0.5).astype('int64').sum()", "(x > 0.15).astype('int64').sum()",
         "(x >= 0.0).astype('int64').sum() - 1"]
# where eager's gradient is inf at 0 (the ops before them get NaN only from 0 * inf)
SHARP = ["{v}.sqrt()", "{v}.log()", "{v}.rsqrt()", "{v}.pow(0.5)", "1.0 / {v}"]
SMOOTH = ["{v}.tanh()", "{v} * w", "{v} + {u} * w", "{u} * 0.5 + {v}", "({v} * w).sin()",
          "{v} * {u}"]
TOLERANCE = 1e-4


class Generator:
    """Writes one random `f(x, w)` returning two of a, b, c."""

    def __init__(self, rng: random.Random, statements: int = 4, depth: int = 3) -> None:
        self.rng, self.statements, self.max_depth = rng, statements, depth
        self.lines: List[str] = []
        self.loops = 0

    def expr(self) -> str:
        r = self.rng
        v, u = r.choice(VARS), r.choice(VARS + ("x",))
        form = r.choice(SHARP if r.random() < 0.45 else SMOOTH)
        return form.format(v=v, u=u)

    def cond(self) -> str:
        r = self.rng
        return f"{r.choice(VARS)}.sum() {r.choice(['>', '<'])} {r.choice(['0.0', '1.0', '2.5'])}"

    def emit(self, depth: int, text: str) -> None:
        self.lines.append("    " * (depth + 1) + text)

    def block(self, depth: int, n: int) -> None:
        for _ in range(n):
            self.statement(depth)

    def statement(self, depth: int) -> None:
        r = self.rng
        kinds = ["assign", "assign"]
        if depth < self.max_depth:
            kinds += ["if", "loop"]
        getattr(self, "s_" + r.choice(kinds))(depth)

    def s_assign(self, depth: int) -> None:
        self.emit(depth, f"{self.rng.choice(VARS)} = {self.expr()}")

    def s_if(self, depth: int) -> None:
        r = self.rng
        self.emit(depth, f"if {self.cond()}:")
        self.block(depth + 1, r.randint(1, 2))
        if r.random() < 0.7:
            self.emit(depth, "else:")
            self.block(depth + 1, r.randint(1, 2))

    def s_loop(self, depth: int) -> None:
        r = self.rng
        self.loops += 1
        k = self.loops
        if r.random() < 0.6:
            self.emit(depth, f"for i{k} in range({r.choice(TURNS)}):")
            self.block(depth + 1, r.randint(1, 3))
        else:   # (a minimised program may lose the step: fuzz_minimize limits its time)
            self.emit(depth, f"k{k} = paddle.zeros([], 'int64')")
            self.emit(depth, f"while k{k} < {r.choice(TURNS)}:")
            self.block(depth + 1, r.randint(1, 3))
            self.emit(depth + 1, f"k{k} = k{k} + 1")

    def program(self) -> str:
        r = self.rng
        self.emit(0, "a = x * w")
        self.emit(0, "b = x * 1.0")
        self.emit(0, "c = x * 0.5")
        self.block(0, r.randint(max(1, self.statements - 2), self.statements))
        first, second = r.sample(VARS, 2)
        self.emit(0, f"return {first}, {second}")
        return "\n".join(["import dy2st as paddle", "", "", "def f(x, w):"] + self.lines) + "\n"


def generate(seed: int, statements: int = 4, depth: int = 3) -> str:
    return Generator(random.Random(seed), statements, depth).program()


# ----------------------------------------------------------------------------- the runner
CREATE_GRAPH = False    # main() sets it: compare second-order gradients instead


def _grads(fn, x: np.ndarray, first: int) -> List[np.ndarray]:
    """x.grad and w.grad (None as zeros) after a backward of output `first`, then of the other
    (or, with CREATE_GRAPH, after a backward of the create_graph gradients of output `first`)."""
    import dy2st as paddle
    xt = paddle.to_tensor(x, stop_gradient=False)
    wt = paddle.to_tensor(W, stop_gradient=False)
    got: List[np.ndarray] = []

    def read() -> None:
        for t in (xt, wt):
            got.append(np.zeros(3, "float32") if t.grad is None else t.grad.numpy().copy())
    with np.errstate(all="ignore"):
        outs = fn(xt, wt)
        if CREATE_GRAPH:
            gx, gw = paddle.grad(outs[first].sum(), [xt, wt], create_graph=True,
                                 allow_unused=True)
            for g in (gx, gw):
                got.append(np.zeros(3, "float32") if g is None else g.numpy().copy())
            terms = [(g * g).sum() for g in (gx, gw) if g is not None and not g.stop_gradient]
            if terms:
                sum(terms[1:], terms[0]).backward()
            read()
            return got
        outs[first].sum().backward(retain_graph=True)
        read()
        outs[1 - first].sum().backward()
        read()
    return got


def _outcome(fn, x: np.ndarray, first: int) -> Tuple[str, List[np.ndarray]]:
    try:
        return "value", _grads(fn, x, first)
    except Exception as e:  # noqa: BLE001 - every outcome is compared
        return f"{type(e).__name__}: {str(e).splitlines()[0][:200]}", []


def check_source(source: str, seed: int, directory: str, save: bool = True,
                 name: Optional[int] = None, gradient: bool = True
                 ) -> Tuple[int, Optional[Failure]]:
    """(comparisons, the first disagreement) of one program: per full_graph setting, input and
    output backwarded first. (tools/fuzz_minimize.py's signature; `save`, `gradient` unused.)"""
    import dy2st as paddle
    name = seed if name is None else name
    module, _ = load_program(source, directory, f"fuzz_partial_{name}",
                             f"dy2st_fuzz_partial_{name}")
    compared = 0
    for full_graph in (True, False):
        static = paddle.jit.to_static(module.f, full_graph=full_graph)
        for k, x in enumerate(INPUTS):
            for first in (0, 1):
                (e_kind, want), (s_kind, got) = _outcome(module.f, x, first), \
                    _outcome(static, x, first)
                compared += 1
                same = e_kind == s_kind and all(
                    np.allclose(u, v, rtol=TOLERANCE, atol=TOLERANCE, equal_nan=True)
                    for u, v in zip(want, got))
                if not same:
                    kind = "value" if e_kind == "value" else e_kind.split(":")[0]
                    detail = (f"full_graph={full_graph}, input {k} {x.tolist()}, backward "
                              f"from output {first}\n  eager:     {e_kind} {want}\n"
                              f"  to_static: {s_kind} {got}")
                    return compared, Failure(seed, source, detail, f"{kind} -> {s_kind[:40]}")
    return compared, None


def run(seed: int, count: int, statements: int, depth: int, verbose: bool = True
        ) -> Tuple[int, int, int]:
    """(programs, comparisons, disagreeing programs) of `count` programs from `seed`."""
    compared, failures = 0, 0
    with tempfile.TemporaryDirectory(prefix="dy2st_fuzzp_") as d:
        for k in range(count):
            program_seed = seed * 1_000_003 + k
            source = generate(program_seed, statements, depth)
            try:
                n, failure = check_source(source, program_seed, d)
            except Exception as e:  # noqa: BLE001 - a crash of the harness is a failure too
                n, failure = 1, Failure(program_seed, source, f"crashed: {e!r}", "crash")
            compared += n
            if failure is not None:
                failures += 1
                if verbose:
                    print(failure, flush=True)
    return count, compared, failures


def main(argv: Optional[Sequence[str]] = None) -> int:
    global CREATE_GRAPH
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--count", type=int, default=100)
    p.add_argument("--statements", type=int, default=4, help="top-level statements (at most)")
    p.add_argument("--depth", type=int, default=3, help="nesting of tensor ifs and loops")
    p.add_argument("--create-graph", action="store_true",
                   help="second-order gradients (paddle.grad with create_graph=True)")
    p.add_argument("--program-seed", type=int, help="check only this program seed")
    p.add_argument("--minimize", action="store_true",
                   help="with --program-seed: drop statements while it still fails")
    args = p.parse_args(argv)
    CREATE_GRAPH = args.create_graph
    if args.program_seed is None:
        programs, compared, failures = run(args.seed, args.count, args.statements, args.depth)
        print(f"{programs} programs, {compared} comparisons, {failures} disagreeing programs")
        return 1 if failures else 0
    source = generate(args.program_seed, args.statements, args.depth)
    print(source)
    with tempfile.TemporaryDirectory() as d:
        _, failure = check_source(source, args.program_seed, d)
        print(failure or "agree")
        if failure is not None and args.minimize:
            small = fuzz_minimize.minimize(sys.modules[__name__], source, args.program_seed, d)
            print("--- minimized:")
            print(small)
            print(check_source(small, args.program_seed, d, name=-1)[1])
    return 1 if failure else 0


if __name__ == "__main__":
    sys.exit(main())
