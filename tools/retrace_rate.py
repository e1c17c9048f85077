"""Retrace rate: how many compiled functions trace again although nothing changed (a guard that
never matches). The conformance corpus, the peers models and the functions of
benchmarks/models.py are each called 5 times with the same inputs in both modes, counting the
traces of every StaticFunction (regions included); `--suite` runs the test suite with a hook
that counts the cache entries whose guards fail right after they were built (such an entry is
never reused).

    python tools/retrace_rate.py                 # corpus + models, both modes
    python tools/retrace_rate.py --suite -- tests/jit -q   # the test suite (pytest arguments)

The figure that matters is "retraced": functions traced more than once in 5 identical calls,
each listed with the guard that failed. A function whose statements change Python state
traces on every call under full_graph=True by design (its entry never matches, see
docs/graph_breaks.md, "What is replayed"): those are counted apart."""
from __future__ import annotations

import argparse
import atexit
import collections
import contextlib
import io
import json
import logging
import os
import subprocess
import sys
import warnings
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFORMANCE = os.path.join(os.path.dirname(ROOT), "shared", "conformance")
CALLS = 5
MODES = (("full_graph", True), ("default", False))


class Counter:
    """Counts the traces of each StaticFunction while installed (wraps `_trace`), and the
    entries whose guards fail as soon as they are built."""

    def __init__(self) -> None:
        self.traces: Dict[int, int] = collections.Counter()
        self.names: Dict[int, str] = {}
        self.keep: List[Any] = []           # the functions counted (so ids stay unique)
        self.reasons: Dict[int, List[str]] = collections.defaultdict(list)
        self.by_design: set = set()
        self.never_match: List[str] = []    # guard texts of entries failing right after build
        self.built = 0
        self.current = ""                   # the target being called (its name and mode)

    def install(self) -> None:
        from dy2st.jit.static_function import StaticFunction
        original = StaticFunction._trace
        counter = self

        def counted(sf: Any, args: Tuple, kwargs: Dict, key: Tuple, *rest: Any, **kw: Any) -> Any:
            same = sf._entries.get(key)
            if same is not None and same.guards is not None:
                counter.reasons[id(sf)].append(same.guards.failure() or "a guard changed")
            elif sf._entries:
                counter.reasons[id(sf)].append("another cache key")
            entry = original(sf, args, kwargs, key, *rest, **kw)
            counter.traces[id(sf)] += 1
            counter.names[id(sf)] = f"{counter.current}{sf.__name__}"
            counter.keep.append(sf)
            counter.built += 1
            guards = entry.guards
            if guards is not None and guards.never:
                counter.by_design.add(id(sf))
            elif guards is not None and not guards.check():
                counter.never_match.append(f"{counter.names[id(sf)]}: {guards.failure()}")
            return entry
        StaticFunction._trace = counted

    def retraced(self) -> List[Tuple[str, int, List[str]]]:
        return [(self.names[i], n, self.reasons[i]) for i, n in self.traces.items()
                if n > 1 and i not in self.by_design]


# ----------------------------------------------------------------------------- what is called
def conformance_targets() -> List[Tuple[str, Callable[[], Any], List[Tuple]]]:
    """(name, make the eager target, input sets) of every case of the corpus that runs."""
    sys.path.insert(0, CONFORMANCE)
    import casekit

    import dy2st
    casekit.paddle = dy2st
    import run as runner
    out = []
    for _, case, err, name in runner.load_cases(os.path.join(CONFORMANCE, "cases")):
        if case is None or err or case.expect_error:
            continue
        make = case.layer_factory or (lambda fn=case.fn: fn)
        out.append((f"conformance:{name}", make, case.inputs))
    return out


def model_targets() -> List[Tuple[str, Callable[[], Any], List[Tuple]]]:
    """The peers models (tiny inputs) and the functions of benchmarks/models.py."""
    sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
    import models
    import peers

    import dy2st
    made = peers.models(dy2st)
    # the peers' inputs cut to one sample (and 4 steps or tokens): the same code paths, cheaper
    small = {name: value[:1, :4] for name, value in peers.inputs().items()}
    out = [(f"peers:{name}", made[name], [(small[name],)]) for name in made]
    for name, (fn, _, data) in models.BENCHMARKS.items():
        _, args = data()
        out.append((f"suite:{name}", lambda fn=fn: models.fresh(fn), [tuple(args)]))
    return out


def _tensors(values: Sequence[Any]) -> List[Any]:
    import dy2st
    return [dy2st.to_tensor(v.copy()) if isinstance(v, np.ndarray) else v for v in values]


def measure(targets: List[Tuple[str, Callable[[], Any], List[Tuple]]], counter: Counter,
            calls: int) -> Dict[str, Any]:
    """Each target, in each mode, on its first input set, called `calls` times."""
    import dy2st
    logging.getLogger("dy2st").setLevel(logging.WARNING)
    rows: Dict[str, Any] = {"functions": 0, "failed": []}
    for name, make, inputs in targets:
        for mode, full_graph in MODES:
            counter.current = f"{name} [{mode}] "
            try:
                static = dy2st.jit.to_static(make(), full_graph=full_graph)
                with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
                    warnings.simplefilter("ignore")
                    for _ in range(calls):
                        static(*_tensors(inputs[0]))
            except Exception as e:  # noqa: BLE001 - reported, the others go on
                rows["failed"].append(f"{name} [{mode}]: {type(e).__name__}: {e}"[:200])
            rows["functions"] += 1
    return rows


def report(counter: Counter, rows: Dict[str, Any]) -> int:
    retraced = counter.retraced()
    print(f"targets x modes: {rows['functions']}; StaticFunctions traced: {len(counter.traces)} "
          f"({counter.built} traces)")
    print(f"retraced in {CALLS} identical calls: {len(retraced)}; traced each call by design "
          f"(full_graph side effects): {len(counter.by_design)}; entries whose guards fail "
          f"right after the trace: {len(counter.never_match)}")
    for name, n, reasons in sorted(retraced):
        print(f"  {name}: {n} traces; {'; '.join(dict.fromkeys(reasons))[:300]}")
    for text in sorted(set(counter.never_match)):
        print(f"  never matches: {text[:300]}")
    for text in rows["failed"]:
        print(f"  not run: {text}")
    return 1 if retraced or counter.never_match else 0


# ----------------------------------------------------------------------------- the test suite
def pytest_configure(config: Any) -> None:
    """Loaded by `--suite` as a pytest plugin (`-p retrace_rate`): counts never-matching
    entries into the file named by DY2ST_RETRACE_OUT (one JSON line per process, written when
    its session ends, or when it exits if it stopped early)."""
    counter = Counter()
    counter.install()
    config._retrace_counter = counter
    atexit.register(_write, counter)


def pytest_sessionfinish(session: Any) -> None:
    counter = getattr(session.config, "_retrace_counter", None)
    if counter is not None:
        _write(counter)


def _write(counter: Counter) -> None:
    out = os.environ.get("DY2ST_RETRACE_OUT")
    if not out or getattr(counter, "written", False):
        return
    counter.written = True
    line = json.dumps({"built": counter.built, "never": counter.never_match,
                       "by_design": len(counter.by_design)})
    with open(out, "a", encoding="utf-8") as f:
        f.write(line + "\n")


def suite(pytest_args: List[str]) -> int:
    out = os.path.join(ROOT, ".retrace_rate.jsonl")
    if os.path.exists(out):
        os.remove(out)
    env = dict(os.environ, DY2ST_RETRACE_OUT=out,
               PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "tools"), ROOT,
                                           os.environ.get("PYTHONPATH", "")]))
    subprocess.call([sys.executable, "-m", "pytest", "-p", "retrace_rate"] + pytest_args,
                    cwd=ROOT, env=env)
    built, never, by_design = 0, [], 0
    with open(out, encoding="utf-8") as f:
        for line in f:
            data = json.loads(line)
            built += data["built"]
            never += data["never"]
            by_design += data["by_design"]
    os.remove(out)
    print(f"suite: {built} traces; entries whose guards fail right after the trace: "
          f"{len(never)}; full_graph side-effect functions (traced each call by design): "
          f"{by_design}")
    for text, n in collections.Counter(t.split(": ", 1)[1] for t in never).most_common(40):
        print(f"  {n:5d} x {text[:200]}")
    return 1 if never else 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--suite", action="store_true", help="run pytest (arguments after --)")
    p.add_argument("--calls", type=int, default=CALLS)
    p.add_argument("--checkout", default=ROOT, help="the dy2st checkout to measure")
    p.add_argument("rest", nargs=argparse.REMAINDER)
    args = p.parse_args(argv)
    if args.suite:
        return suite([a for a in args.rest if a != "--"])
    sys.path.insert(0, args.checkout)
    counter = Counter()
    counter.install()
    rows = measure(conformance_targets() + model_targets(), counter, args.calls)
    return report(counter, rows)


if __name__ == "__main__":
    sys.exit(main())
