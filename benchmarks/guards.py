"""Guard cost (issue 23): for each benchmarks/suite.py function (and a Layer whose forward reads
plain attributes and globals, a guard per read), the guard check of its cached program alone as
a share of the unguarded call (target: within 5%), and the steady-state call with its guards
checked against the same program with the check switched off, interleaved in the same run (on
a loaded machine this ratio is mostly noise; the share is not).

Run with `python benchmarks/guards.py`; ratios are of the minimums over interleaved rounds."""
from __future__ import annotations

import os
import sys
import timeit
from typing import Any, Callable, List, Tuple

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import dy2st as paddle  # noqa: E402

import models  # noqa: E402

TARGET = 1.05
ROUNDS = 21
SCALE, SHIFT = 0.5, 1.0


class Configured(paddle.nn.Layer):
    """A forward that reads plain attributes and globals: every read is a guard."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = paddle.nn.Linear(16, 16)
        self.alpha = 0.1
        self.steps = 2
        self.use_bias = True
        self.table = {"w": 0.5}

    def forward(self, x: Any) -> Any:
        h = self.fc(x) * self.alpha * SCALE
        for _ in range(self.steps):
            h = h + SHIFT
        if self.use_bias:
            h = h + self.table["w"]
        return h


def _time(fn: Callable[[], Any]) -> float:
    number = 200
    return min(timeit.repeat(fn, number=number, repeat=3)) / number


def compare(sf: Any, args: Tuple) -> Tuple[float, float, int, float]:
    """(ratio of the fastest guarded to the fastest unguarded round, guarded us, guards, check
    us) for one function: minimums, since other jobs on the machine only ever add time."""
    sf(*args)
    entries = list(sf._all_entries())
    guards = [e.guards for e in entries]
    n = len(guards[0]) if guards[0] is not None else 0
    check_us = (_time(guards[0].check) * 1e6) if guards[0] is not None else 0.0
    guarded: List[float] = []
    unguarded: List[float] = []
    for _ in range(ROUNDS):
        guarded.append(_time(lambda: sf(*args)))
        for e in entries:
            e.guards = None
        unguarded.append(_time(lambda: sf(*args)))
        for e, g in zip(entries, guards):
            e.guards = g
    return min(guarded) / min(unguarded), min(unguarded) * 1e6, n, check_us


def main() -> int:
    rows = []
    for name, (fn, _np_fn, data) in models.BENCHMARKS.items():
        _, args = data()
        targs = tuple(paddle.to_tensor(a) for a in args)
        rows.append((name,) + compare(paddle.jit.to_static(models.fresh(fn)), targs))
    layer = Configured()
    x = paddle.to_tensor(np.random.default_rng(0).standard_normal((4, 16)).astype("float32"))
    paddle.jit.to_static(layer)
    rows.append(("configured",) + compare(layer.forward, (x,)))
    print("bench        guards  check us  call us  check/call  target  guarded/unguarded  ok")
    ok = True
    for name, ratio, call_us, n, check_us in rows:
        share = check_us / call_us
        good = share <= TARGET - 1
        ok = ok and good
        print(f"{name:12s} {n:6d} {check_us:9.2f} {call_us:8.1f} {share:10.2%} {TARGET - 1:7.0%} "
              f"{ratio:18.3f}  {'yes' if good else 'NO'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
