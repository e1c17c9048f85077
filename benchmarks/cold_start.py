"""Cold start of dy2st in fresh processes: `import dy2st` and the first conversion (issue 14).

Run with `python benchmarks/cold_start.py [--runs N]`. Every figure is the median over N fresh
interpreters, measured inside the child with perf_counter. Two bytecode states are measured:

- "cached": compiled bytecode exists, as after `pip install` (a private PYTHONPYCACHEPREFIX,
  warmed by one untimed run);
- "source": PYTHONDONTWRITEBYTECODE=1 and no bytecode for dy2st, so every dy2st module is
  compiled from source at import (how this workplace's shells run).

Baselines measured in the same run: `import numpy` alone and the first call of a plain Python
function in a fresh process; the dy2st figures are also printed as excess over `import numpy`.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from typing import Dict, List

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET_IMPORT_MS = 150.0
TARGET_FIRST_CONVERSION_MS = 15.0

# Each child prints one JSON line of milliseconds.
DY2ST_CHILD = r"""
import json, sys, time
c0, t0 = time.process_time(), time.perf_counter()
import dy2st
c1, t1 = time.process_time(), time.perf_counter()
f = dy2st.jit.to_static(lambda x: x + 1)
x = dy2st.to_tensor([1.0])
y = f(x)
c2, t2 = time.process_time(), time.perf_counter()
assert float(y.numpy()[0]) == 2.0

def g(x):
    if x.sum() > 0:
        x = x * 2
    for i in range(3):
        x = x + i
    return x

t3 = time.perf_counter()
z = dy2st.jit.to_static(g)(x)
t4 = time.perf_counter()
assert float(z.numpy()[0]) == 5.0
print(json.dumps({"import": 1e3 * (t1 - t0), "first": 1e3 * (t2 - t1),
                  "second": 1e3 * (t4 - t3), "modules": len(sys.modules),
                  "import_cpu": 1e3 * (c1 - c0), "first_cpu": 1e3 * (c2 - c1)}))
"""

NUMPY_CHILD = r"""
import json, time
c0, t0 = time.process_time(), time.perf_counter()
import numpy
c1, t1 = time.process_time(), time.perf_counter()

def plain(x):
    return x + 1

t2 = time.perf_counter()
plain(numpy.ones(1))
t3 = time.perf_counter()
print(json.dumps({"import": 1e3 * (t1 - t0), "first": 1e3 * (t3 - t2),
                  "import_cpu": 1e3 * (c1 - c0)}))
"""


def run_child(script: str, env: Dict[str, str]) -> Dict[str, float]:
    proc = subprocess.run([sys.executable, script], cwd=ROOT, env=env, capture_output=True,
                          text=True)
    if proc.returncode:
        raise RuntimeError(f"{script} failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def write_child(directory: str, name: str, code: str) -> str:
    """Children are files, not `-c` strings: to_static reads the converted function's source."""
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write(f"import sys\nsys.path.insert(0, {ROOT!r})\n{code}")
    return path


def medians(script: str, env: Dict[str, str], runs: int) -> Dict[str, float]:
    samples: List[Dict[str, float]] = [run_child(script, env) for _ in range(runs)]
    return {k: statistics.median(s[k] for s in samples) for k in samples[0]}


def environments(cache_dir: str) -> Dict[str, Dict[str, str]]:
    base = {k: v for k, v in os.environ.items()
            if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    cached = dict(base, PYTHONPYCACHEPREFIX=cache_dir)
    source = dict(base, PYTHONDONTWRITEBYTECODE="1")
    return {"cached": cached, "source": source}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="fresh processes per figure")
    args = parser.parse_args()
    if os.path.isdir(os.path.join(ROOT, "dy2st", "__pycache__")):
        print("note: dy2st/__pycache__ exists, so the 'source' rows read some cached bytecode")
    print(f"cold start, median of {args.runs} fresh processes each (ms; {os.cpu_count()} cpus, "
          "a shared machine: compare with the numpy baseline of the same run)")
    print(f"{'bytecode':<9}{'numpy':>8}{'plain 1st':>10}{'import dy2st':>13}{'- numpy':>8}"
          f"{'target':>7}{'1st conv':>9}{'target':>7}{'2nd fn':>7}{'modules':>8}  ok")
    with tempfile.TemporaryDirectory(prefix="dy2st-cold-") as tmp:
        cache_dir = os.path.join(tmp, "pyc")
        dy2st_child = write_child(tmp, "dy2st_child.py", DY2ST_CHILD)
        numpy_child = write_child(tmp, "numpy_child.py", NUMPY_CHILD)
        all_ok = True
        for label, env in environments(cache_dir).items():
            if label == "cached":       # warm the private bytecode cache, untimed
                run_child(dy2st_child, env)
                run_child(numpy_child, env)
            base = medians(numpy_child, env, args.runs)
            dy = medians(dy2st_child, env, args.runs)
            ok = dy["import"] <= TARGET_IMPORT_MS and dy["first"] <= TARGET_FIRST_CONVERSION_MS
            all_ok &= ok
            print(f"{label:<9}{base['import']:8.1f}{base['first']:10.3f}{dy['import']:13.1f}"
                  f"{dy['import'] - base['import']:8.1f}{TARGET_IMPORT_MS:7.0f}"
                  f"{dy['first']:9.1f}{TARGET_FIRST_CONVERSION_MS:7.0f}{dy['second']:7.1f}"
                  f"{dy['modules']:8.0f}  {'yes' if ok else 'NO'}")
            print(f"{'  cpu':<9}{base['import_cpu']:8.1f}{'':10}{dy['import_cpu']:13.1f}"
                  f"{dy['import_cpu'] - base['import_cpu']:8.1f}{'':7}{dy['first_cpu']:9.1f}")
    print("Rows give wall-clock medians; the cpu rows give process CPU time, all threads "
          "(numpy's BLAS threads may spin: it can exceed the wall time).")
    print("1st conv: to_static(lambda x: x + 1) built, to_tensor and the first call, including "
          "everything dy2st imports for it; 2nd fn: first call of a later function with a "
          "tensor `if` and a `for`.")
    sys.exit(0 if all_ok else 1)


if __name__ == "__main__":
    main()
