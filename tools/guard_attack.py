"""Guard attack (issue 23): read forms a bytecode scan of plain access paths misses (a local
assigned from a call, a computed index, class attributes and properties, `__dict__`, helpers
reached through containers of callables, functools.partial, bound methods kept as attributes),
each called 5 times with the state it reads changed between calls, in 3 modes (full_graph,
default, default with a graph break); every call is compared with eager and the stale calls
are counted. A last two calls with nothing changed must not trace again (a guard that never
matches would).

    python tools/guard_attack.py            # the table and the totals
    python tools/guard_attack.py -k partial # only the cases whose name contains "partial"

Each case is a module source written twice (one copy runs eagerly, one through to_static) and
the same changes are run in both."""
from __future__ import annotations

import argparse
import contextlib
import os
import random
import sys
import tempfile
import warnings
from typing import Any, Iterator, List, Optional, Sequence, Tuple

import numpy as np

# this checkout's tools and dy2st (run as a script, sys.path[0] is tools/), not installed ones
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tools.fuzz_common import load_program  # noqa: E402
from tools.guard_attack_cases import (  # noqa: E402
    CASES as PATH_CASES,
    HEADER,
    Case,
)
from tools.guard_attack_config import CONFIG_CASES, CONFIG_HEADER  # noqa: E402
from tools.guard_attack_layers import LAYER_CASES, LAYER_HEADER  # noqa: E402
from tools.guard_attack_methods import METHOD_CASES, METHOD_HEADER  # noqa: E402

CASES = PATH_CASES + [c._replace(body=METHOD_HEADER + c.body) for c in METHOD_CASES] + \
    [c._replace(body=CONFIG_HEADER + c.body) for c in CONFIG_CASES] + \
    [c._replace(body=LAYER_HEADER + c.body) for c in LAYER_CASES]

MODES = [("full_graph", True, False), ("default", False, False), ("default+break", False, True)]
_REFUSED = "which no guard can check"
X = (np.arange(6, dtype=np.float32).reshape(2, 3) - 2.0) / 3.0


def _value(fn: Any, brk: bool, extra: Tuple = (), seed: int = 0) -> Tuple[str, Any]:
    import dy2st as paddle
    # the process-wide random streams start alike for both sides of one call (a case reading
    # random.random() or np.random must see a new number on every call, and eager's)
    random.seed(seed)
    np.random.seed(seed)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = fn(paddle.to_tensor(X), brk, *extra)
            return "value", np.asarray(out.numpy(), dtype=np.float64)
    except Exception as e:  # noqa: BLE001 - both outcomes are compared
        return "error", f"{type(e).__name__}: {e}"


@contextlib.contextmanager
def counting_traces() -> Iterator[List[int]]:
    """[number of traces] of every StaticFunction (regions too) while the block runs."""
    from dy2st.jit.static_function import StaticFunction
    original = StaticFunction._trace
    count = [0]

    def counted(sf: Any, *args: Any, **kwargs: Any) -> Any:
        count[0] += 1
        return original(sf, *args, **kwargs)
    StaticFunction._trace = counted
    try:
        yield count
    finally:
        StaticFunction._trace = original


def _extra(case: Case, module: Any) -> Tuple:
    """The arguments of `run` after (x, brk) for one call, from the case's module."""
    return tuple(eval(case.args, module.__dict__)) if case.args else ()   # noqa: S307


def run_case(case: Case, full_graph: bool, brk: bool, directory: str,
             tag: str) -> List[str]:
    """The stale (or otherwise disagreeing) calls of one case in one mode, described."""
    import dy2st as paddle
    source = HEADER + case.body
    eager, _ = load_program(source, directory, f"attack_{tag}_eager")
    static, _ = load_program(source, directory, f"attack_{tag}_static")
    s_fn = paddle.jit.to_static(static.run, full_graph=full_graph)
    bad = []
    for i, change in enumerate([""] + list(case.changes)):
        for m in (eager, static):
            exec(change, m.__dict__)
        want = _value(eager.run, brk, _extra(case, eager), i)
        got = _value(s_fn, brk, _extra(case, static), i)
        if case.volatile and full_graph and got[0] == "error" and _REFUSED in got[1]:
            continue    # the clear error full_graph=True gives for state no guard can check
        same = want[0] == got[0] and (want[1] == got[1] if want[0] == "error" else
                                      np.allclose(want[1], got[1], rtol=1e-5))
        if not same:
            bad.append(f"call {i + 1} after `{change}`: eager {want[1]!r:.60} static "
                       f"{got[1]!r:.60}")
    # nothing changes from here: a second unchanged call must reuse what the first one left (a
    # guard that never matches traces on every call)
    _value(s_fn, brk, _extra(case, static))
    with counting_traces() as traces:
        _value(s_fn, brk, _extra(case, static))
    if traces[0] and not case.volatile and not (brk and case.fresh_region_input):
        bad.append(f"traced again ({traces[0]}x) with nothing changed")
    return bad


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("-k", default="", help="only cases whose name contains this")
    p.add_argument("-v", action="store_true", help="print each disagreeing call")
    args = p.parse_args(argv)
    cases = [c for c in CASES if args.k in c.name]
    stale_runs = stale_calls = calls = 0
    with tempfile.TemporaryDirectory() as directory:
        sys.path.insert(0, directory)
        for n, case in enumerate(cases):
            row = []
            for m, (mode, full_graph, brk) in enumerate(MODES):
                bad = run_case(case, full_graph, brk, directory, f"{n}_{m}")
                calls += 1 + len(case.changes)
                stale_calls += len(bad)
                stale_runs += bool(bad)
                row.append(f"{mode}:{len(bad)}")
                if args.v:
                    for line in bad:
                        print(f"    {case.name} [{mode}] {line}")
            print(f"{case.name:34} {'  '.join(row)}", flush=True)
    print(f"guard attack: {len(cases)} cases x {len(MODES)} modes, {calls} calls: "
          f"{stale_runs} case-modes stale, {stale_calls} calls differ from eager")
    return 1 if stale_calls else 0


if __name__ == "__main__":
    sys.exit(main())
