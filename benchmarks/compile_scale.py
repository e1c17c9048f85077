"""Compile time (passes + code generation + compile()) against program size (issue 17).

Run with `python benchmarks/compile_scale.py`; prints, for programs of 1k, 5k and 20k ops, the
time to optimise and compile them, the time per op, and each size's per-op time as a ratio of the
smallest size's (about 1 everywhere when compiling is linear in the op count). The baseline,
measured in the same run, is Python's own compile() of a hand-written numpy function of one line
per op: its per-op time grows too on large inputs (memory), which bounds what linear can mean."""
from __future__ import annotations

import gc
import os
import sys
import time
from typing import List, Tuple

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import dy2st as paddle  # noqa: E402
from dy2st import static  # noqa: E402
from dy2st.runtime.executor import CompiledProgram  # noqa: E402
from dy2st.runtime.passes import optimize  # noqa: E402

SIZES = (1000, 5000, 20000)
REPEAT = 3
TARGET_SECONDS = {20000: 1.0}
TARGET_RATIO = 1.5          # per-op time at a size against the smallest size's


def build_program(n_ops: int, seed: int = 0) -> Tuple[static.Program, List[str]]:
    """A deep model's program of about n_ops ops: linear layers (each its own weights, as a
    LayerList makes them), activations, a residual, a tensor `if` every few layers, and the
    repeated constants and duplicate subexpressions the passes fold and merge."""
    rng = np.random.default_rng(seed)
    main = static.Program()
    with static.program_guard(main):
        x = static.data("x", [2, 8], "float32")
        h = x
        layer = 0
        while main.num_ops() < n_ops:
            w = paddle.to_tensor(rng.standard_normal((8, 8)).astype("float32") / 8)
            b = paddle.to_tensor(rng.standard_normal((8,)).astype("float32"))
            y = paddle.tanh(paddle.matmul(h, w) + b)
            h = h * 0.5 + y * 0.5           # the constants repeat each layer: folded, merged
            if layer % 4 == 3:
                h = static.nn.cond(h.mean() > 100.0, lambda: h - 1.0, lambda: h + 0.0)
            layer += 1
    return main, [h.name]


def compile_seconds(n_ops: int) -> Tuple[int, float]:
    """(ops in the program, the best time over REPEAT builds of optimise + compile)."""
    best = float("inf")
    for _ in range(REPEAT):
        program, fetch = build_program(n_ops)
        program.fetch_names = fetch
        n = program.num_ops()
        gc.collect()
        start = time.perf_counter()
        optimize(program)
        CompiledProgram(program, ["x"], fetch)
        best = min(best, time.perf_counter() - start)
    return n, best


def baseline_seconds(n_ops: int) -> float:
    """compile() of straight-line numpy code of n_ops lines, as a person would write it."""
    lines = ["def run(h, w, b):"]
    for i in range(n_ops):
        lines.append(f"    h = np.tanh(np.matmul(h, w{i % 7}) + b) * {0.5 + i % 3}")
    source = "\n".join(lines + ["    return h"]) + "\n"
    best = float("inf")
    for _ in range(REPEAT):
        gc.collect()
        start = time.perf_counter()
        compile(source, "<baseline>", "exec")
        best = min(best, time.perf_counter() - start)
    return best


def check_result() -> None:
    """The largest program computes the same after the passes as without them."""
    x = np.random.default_rng(2).standard_normal((2, 8)).astype("float32")
    outs = []
    for passes in (False, True):
        program, fetch = build_program(SIZES[-1], seed=1)
        program.fetch_names = fetch
        if passes:
            optimize(program)
        outs.append(CompiledProgram(program, ["x"], fetch)([x])[0])
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-5, atol=1e-6)


def main() -> None:
    check_result()
    rows = [(size, *compile_seconds(size), baseline_seconds(size)) for size in SIZES]
    base = rows[0][2] / rows[0][1]
    base_np = rows[0][3] / rows[0][0]
    print("compile time (optimize + code generation + compile()), best of", REPEAT)
    print(f"{'asked':>7} {'ops':>7} {'seconds':>9} {'us/op':>8} {'per-op ratio':>13} "
          f"{'baseline us/line':>17} {'its ratio':>10} {'target':>7}  ok")
    for size, n, seconds, baseline in rows:
        per_op = seconds / n
        ratio = per_op / base
        target = TARGET_SECONDS.get(size)
        ok = ratio <= TARGET_RATIO and (target is None or seconds <= target)
        print(f"{size:>7} {n:>7} {seconds:>9.3f} {per_op * 1e6:>8.1f} {ratio:>13.2f} "
              f"{baseline / size * 1e6:>17.1f} {baseline / size / base_np:>10.2f} "
              f"{(f'{target:.1f}s' if target else '-'):>7}  {'yes' if ok else 'NO'}")


if __name__ == "__main__":
    main()
