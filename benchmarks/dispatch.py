"""What two process-wide checks cost per op on small tensors (issue 27): the complex-input check
an op not declared complex-capable makes before computing, and the bfloat16 kernel adapter
installed once bfloat16 is first used. Measured in one run, interleaved, against the same code
with the check switched off (for the measurement only), in eager mode and in a to_static call
whose ops go through their kernels.

Run with `python benchmarks/dispatch.py` from the repository root; exit status 1 when a check
costs more than TARGET of the time without it."""
from __future__ import annotations

import os
import statistics
import sys
import time
import timeit
from typing import Any, Callable, Dict, List

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import dy2st as paddle  # noqa: E402
from dy2st.runtime import registry  # noqa: E402

TARGET = 1.03       # with the check / without it
ROUNDS = 21


def small_ops(x: Any, w: Any) -> Any:
    """Twelve small ops, most not complex-capable (relu, maximum, clip, floor, ...)."""
    y = paddle.nn.functional.relu(x @ w + 1.0)
    y = paddle.maximum(y, x) * 0.5
    y = paddle.clip(y, -2.0, 2.0) - paddle.floor(x)
    y = paddle.nn.functional.softplus(y) + paddle.abs(x)
    return paddle.sum(y, axis=-1, keepdim=True) + paddle.mean(y)


def per_call(fn: Callable[[], Any], number: int) -> float:
    """CPU seconds per call: on the shared machine wall time mostly measures the scheduler."""
    return timeit.Timer(fn, timer=time.process_time).timeit(number) / number


def interleaved(modes: Dict[str, Callable[[], Any]], fns: Dict[str, Callable[[], Any]]) -> Dict[str, float]:
    """Median seconds per call of each (mode, fn): every round switches to each mode in turn."""
    numbers = {}
    for name, fn in fns.items():
        fn()
        numbers[name] = max(50, int(0.02 / max(per_call(fn, 20), 1e-9)))
    runs: Dict[str, List[float]] = {}
    for _ in range(ROUNDS):
        for mode, switch in modes.items():
            switch()
            for name, fn in fns.items():
                runs.setdefault(f"{mode}|{name}", []).append(per_call(fn, numbers[name]))
    return {k: statistics.median(v) for k, v in runs.items()}


def main() -> int:
    rng = np.random.default_rng(0)
    x = paddle.to_tensor(rng.standard_normal((4, 4)).astype("float32"))
    w = paddle.to_tensor(rng.standard_normal((4, 4)).astype("float32"))
    checked = registry.COMPLEX_CAPABLE

    def complex_check(on: bool) -> Callable[[], None]:
        def switch() -> None:
            # every op counted capable: the check is skipped (measurement only)
            registry.COMPLEX_CAPABLE = checked if on else frozenset(registry.OPS)
        return switch

    fns = {"eager": lambda: small_ops(x, w)}
    results = {}
    results.update(interleaved({"check": complex_check(True), "no check": complex_check(False)},
                               fns))
    registry.COMPLEX_CAPABLE = checked

    plain = dict(registry.OPS)
    paddle.to_tensor(np.ones(2, "float32")).astype("bfloat16")       # installs the adapters
    adapted, dtypes = dict(registry.OPS), set(registry.ADAPTED_DTYPES)
    unadapted = dict(registry.UNADAPTED)

    def kernels(on: bool) -> Callable[[], None]:
        def switch() -> None:
            # as before bfloat16's first use, or after (measurement only)
            registry.OPS.update(adapted if on else plain)
            for table, full in ((registry.ADAPTED_DTYPES, dtypes), (registry.UNADAPTED, unadapted)):
                table.clear()
                table.update(full if on else ())
        return switch

    def compiled(on: bool) -> Callable[[], Any]:
        kernels(on)()
        fn = paddle.jit.to_static(lambda a, b: small_ops(a, b), full_graph=True)
        fn(x, w)
        return lambda: fn(x, w)

    fns = {"eager": lambda: small_ops(x, w), "static (adapters)": compiled(True),
           "static (plain)": compiled(False)}
    results.update(interleaved({"bf16 adapters": kernels(True), "plain kernels": kernels(False)},
                               fns))
    kernels(True)()

    ok = True
    print(f"CPU time per call of 12 small ops on 4x4 float32 tensors, median of {ROUNDS} "
          "interleaved rounds")
    rows = [("complex-input check, eager", "check|eager", "no check|eager"),
            ("bfloat16 adapters, eager", "bf16 adapters|eager", "plain kernels|eager"),
            ("bfloat16 adapters, to_static", "bf16 adapters|static (adapters)",
             "bf16 adapters|static (plain)")]
    for label, on, off in rows:
        ratio = results[on] / results[off]
        met = ratio <= TARGET
        ok &= met
        print(f"  {label:<30} {results[on] * 1e6:8.2f} us  without {results[off] * 1e6:8.2f} us"
              f"  ratio {ratio:.3f}  (target <= {TARGET}) {'met' if met else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
