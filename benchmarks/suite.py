"""to_static against hand-written numpy and dy2st eager, measured side by side (issue 5).

Run with `python benchmarks/suite.py`; prints steady-state call times and ratios with their
targets, the first-call time of each benchmark and the peak memory of one rnn run."""
from __future__ import annotations

import os
import statistics
import sys
import time
import timeit
import tracemalloc
from typing import Any, Callable, Dict, List, Tuple

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import dy2st as paddle  # noqa: E402
from dy2st.jit import transform  # noqa: E402

import models  # noqa: E402

REPEAT = 9
TARGET_NUMPY = {"add1": 4.0, "loop_paddle": 1.2, "loop_range": 1.2, "loop_incr": 1.2,
                "loop_small": 1.2}   # static / numpy; else 1.5
TARGET_FIRST_CALL = 3e-3
FIRST_CALL_TRIES = 30


def timed(fn: Callable[[], Any], budget: float = 0.15) -> Tuple[float, float]:
    """(min, median) seconds per call over REPEAT timeit runs sized to ~budget/REPEAT each."""
    fn()
    number, elapsed = 1, 0.0
    while True:
        elapsed = timeit.timeit(fn, number=number)
        if elapsed >= budget / REPEAT / 4 or number >= 1 << 20:
            break
        number *= 2
    number = max(1, int(number * (budget / REPEAT) / max(elapsed, 1e-9)))
    runs = [t / number for t in timeit.repeat(fn, number=number, repeat=REPEAT)]
    return min(runs), statistics.median(runs)


def as_tensors(args: Tuple) -> Tuple:
    return tuple(paddle.to_tensor(a) for a in args)


def check_same(name: str, static_out: Any, eager_out: Any, np_out: Any) -> None:
    np.testing.assert_allclose(static_out.numpy(), np_out, rtol=1e-4, atol=1e-5, err_msg=name)
    np.testing.assert_allclose(eager_out.numpy(), np_out, rtol=1e-4, atol=1e-5, err_msg=name)


def first_call(fn: Callable, targs: Tuple) -> Tuple[float, float]:
    """(min, median) CPU seconds (time.process_time) of a first call (transform + trace +
    optimize + compile + run) of a fresh function over FIRST_CALL_TRIES tries, each with the
    conversion cache cleared; the minimum is the cost without interference from the rest of a
    shared machine (wall time there counts other processes' turns on the cores too)."""
    times = []
    for _ in range(FIRST_CALL_TRIES):
        transform.cache.clear()
        sf = paddle.jit.to_static(models.fresh(fn))
        t0 = time.process_time()
        sf(*targs)
        times.append(time.process_time() - t0)
    return min(times), statistics.median(times)


def peak_memory(fn: Callable[[], Any]) -> int:
    fn()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        out = fn()
        peak = tracemalloc.get_traced_memory()[1] - base
        del out
    finally:
        tracemalloc.stop()
    return peak


def run_one(name: str) -> Dict[str, Any]:
    fn, np_fn, data = models.BENCHMARKS[name]
    _, args = data()
    targs = as_tensors(args)
    sf = paddle.jit.to_static(models.fresh(fn))
    check_same(name, sf(*targs), fn(*targs), np_fn(*args))
    row = {"name": name}
    row["static"] = timed(lambda: sf(*targs))
    row["numpy"] = timed(lambda: np_fn(*args))
    row["eager"] = timed(lambda: fn(*targs))
    row["first"] = first_call(fn, targs)
    if name.startswith("rnn"):
        row["mem_static"] = peak_memory(lambda: sf(*targs))
        row["mem_eager"] = peak_memory(lambda: fn(*targs))
    return row


def us(t: float) -> str:
    return f"{t * 1e6:8.1f}"


def main(names: List[str]) -> int:
    rows = [run_one(n) for n in names]
    ok = True
    print("steady-state call, us per call (min / median of "
          f"{REPEAT} timeit runs); ratios from the minimums. first call: CPU ms, min / median "
          f"of {FIRST_CALL_TRIES} fresh functions, target on the minimum")
    head = (f"{'bench':<11}{'static':>9}{'med':>9}{'numpy':>9}{'med':>9}{'eager':>9}{'med':>9}"
            f"{'st/np':>7}{'target':>7}{'st/eager':>9}{'target':>7}{'first ms':>9}{'med':>6}"
            f"{'target':>7}  ok")
    print(head)
    for r in rows:
        s, n, e = r["static"][0], r["numpy"][0], r["eager"][0]
        tgt = TARGET_NUMPY.get(r["name"], 1.5)
        good = s / n <= tgt and s < e and r["first"][0] <= TARGET_FIRST_CALL
        ok &= good
        print(f"{r['name']:<11}{us(s)} {us(r['static'][1])} {us(n)} {us(r['numpy'][1])} {us(e)} "
              f"{us(r['eager'][1])}{s / n:7.2f}{tgt:7.1f}{s / e:9.2f}{'<1':>7}"
              f"{r['first'][0] * 1e3:9.2f}{r['first'][1] * 1e3:6.2f}{TARGET_FIRST_CALL * 1e3:7.1f}"
              f"  {'yes' if good else 'NO'}")
    print("\npeak memory of one run (tracemalloc), bytes; target static <= eager")
    for r in rows:
        if "mem_static" in r:
            good = r["mem_static"] <= r["mem_eager"]
            ok &= good
            print(f"{r['name']:<11} static {r['mem_static']:>9}  eager {r['mem_eager']:>9}  "
                  f"{'yes' if good else 'NO'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or list(models.BENCHMARKS)))
