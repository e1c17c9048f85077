"""Result dtypes of binary arithmetic / comparison ops and common reductions in dy2st against the
installed PaddlePaddle: prints the cells that differ (a dtype, or the error raised) and their
count. Usage: python tools/dtype_parity.py [--all] [--static] [--json FILE]
(--static also checks that a to_static program infers eager's dtype or raises eager's error)."""
from __future__ import annotations

import argparse
import json
import os
import sys
import warnings
from typing import Any, Callable, Dict, List, Tuple

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64", "complex64"]
BINARY: Dict[str, Callable[[Any, Any, Any], Any]] = {
    "+": lambda p, a, b: a + b, "-": lambda p, a, b: a - b, "*": lambda p, a, b: a * b,
    "/": lambda p, a, b: a / b, "//": lambda p, a, b: a // b, "%": lambda p, a, b: a % b,
    "**": lambda p, a, b: a ** b, "==": lambda p, a, b: a == b, "!=": lambda p, a, b: a != b,
    "<": lambda p, a, b: a < b, "<=": lambda p, a, b: a <= b, ">": lambda p, a, b: a > b,
    ">=": lambda p, a, b: a >= b,
    "maximum": lambda p, a, b: p.maximum(a, b), "minimum": lambda p, a, b: p.minimum(a, b),
}
# Paddle's CPU build lacks the kernel (float16 `add`, bool `cumsum`): not a promotion rule
NO_KERNEL = "raises (no CPU kernel)"
SCALARS = {"True": True, "2": 2, "2.5": 2.5}
REDUCTIONS: Dict[str, Callable[[Any, Any], Any]] = {
    "sum": lambda p, a: p.sum(a), "mean": lambda p, a: p.mean(a),
    "cumsum": lambda p, a: p.cumsum(a), "prod": lambda p, a: p.prod(a),
    "max": lambda p, a: p.max(a),
}


def _tensor(p: Any, dtype: str) -> Any:
    values = [1 + 1j, 2 + 0j] if dtype.startswith("complex") else (
        [True, True] if dtype == "bool" else [1, 2])
    return p.to_tensor(np.array(values)).astype(dtype)


def _outcome(fn: Callable[[], Any]) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = fn()
        except Exception as e:  # noqa: BLE001 - the cell records whichever error either raised
            if "is not registered" in str(e):
                return NO_KERNEL
            return f"raises {type(e).__name__}"
    return str(out.dtype).replace("paddle.", "")


def cells(p: Any) -> Dict[Tuple[str, ...], Callable[[], Any]]:
    """(form, op, left, right) -> a function computing that cell with framework `p`."""
    out: Dict[Tuple[str, ...], Callable[[], Any]] = {}
    for op, fn in BINARY.items():
        for a in DTYPES:
            for b in DTYPES:
                out[("tensor op tensor", op, a, b)] = (
                    lambda fn=fn, a=a, b=b: fn(p, _tensor(p, a), _tensor(p, b)))
            for text, s in SCALARS.items():
                out[("tensor op scalar", op, a, text)] = (
                    lambda fn=fn, a=a, s=s: fn(p, _tensor(p, a), s))
                out[("scalar op tensor", op, text, a)] = (
                    lambda fn=fn, a=a, s=s: fn(p, s, _tensor(p, a)))
    for op, fn in REDUCTIONS.items():
        for a in DTYPES:
            out[("reduction", op, a, "")] = lambda fn=fn, a=a: fn(p, _tensor(p, a))
    return out


def survey(p: Any) -> Dict[Tuple[str, ...], str]:
    return {key: _outcome(fn) for key, fn in cells(p).items()}


def _refuses(outcome: str) -> bool:
    return outcome.startswith("raises")


def compare(ours: str, theirs: str) -> str:
    """"same"; "kernel" when only Paddle's CPU build lacks the kernel; else "differs" (another
    dtype, or one of the two refuses; which error each raises does not matter)."""
    if ours == theirs or (_refuses(ours) and _refuses(theirs)):
        return "same"
    return "kernel" if theirs == NO_KERNEL else "differs"


def static_mismatches(dy: Any, eager: Dict[Tuple[str, ...], str]) -> List[str]:
    """Cells where a to_static program's inferred dtype (or error) is not eager dy2st's."""
    bad = []
    for key, fn in cells(dy).items():
        form, op, a, b = key
        if form == "reduction":
            static = dy.jit.to_static(lambda x, fn=REDUCTIONS[op]: fn(dy, x), full_graph=True)
            args = [_tensor(dy, a)]
        elif form == "tensor op tensor":
            static = dy.jit.to_static(lambda x, y, fn=BINARY[op]: fn(dy, x, y), full_graph=True)
            args = [_tensor(dy, a), _tensor(dy, b)]
        else:
            s = SCALARS[b if form == "tensor op scalar" else a]
            fn = BINARY[op]
            static = dy.jit.to_static(
                (lambda x, fn=fn, s=s: fn(dy, x, s)) if form == "tensor op scalar"
                else (lambda x, fn=fn, s=s: fn(dy, s, x)), full_graph=True)
            args = [_tensor(dy, a if form == "tensor op scalar" else b)]
        got = _outcome(lambda static=static, args=args: static(*args))
        if got != eager[key] and not (got.startswith("raises") and eager[key].startswith("raises")):
            bad.append(f"{form:17} {op:8} {a:10} {b:10} eager {eager[key]:20} static {got}")
    return bad


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--all", action="store_true", help="print every cell, not only differences")
    ap.add_argument("--static", action="store_true", help="check to_static programs too")
    ap.add_argument("--json", help="write both tables to this file")
    args = ap.parse_args()
    import dy2st
    ours = survey(dy2st)
    try:
        import paddle
    except ImportError:
        print("PaddlePaddle is not installed: nothing to compare with")
        theirs = None
    else:
        theirs = survey(paddle)
        verdict = {k: compare(ours[k], theirs[k]) for k in ours}
        marks = {"same": "  ", "kernel": "~ ", "differs": "!="}
        for key in ours:
            if args.all or verdict[key] != "same":
                form, op, a, b = key
                print(f"{marks[verdict[key]]} {form:17} {op:8} {a:10} {b:10} "
                      f"paddle {theirs[key]:24} dy2st {ours[key]}")
        n = {v: sum(1 for x in verdict.values() if x == v) for v in marks}
        print(f"{n['differs']} of {len(ours)} cells differ (!=); in {n['kernel']} more (~) "
              "dy2st computes what Paddle's CPU build has no kernel for")
    if args.static:
        bad = static_mismatches(dy2st, ours)
        print("\n".join(bad))
        print(f"{len(bad)} cells where to_static differs from eager dy2st")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"dy2st": {" | ".join(k): v for k, v in ours.items()},
                       "paddle": theirs and {" | ".join(k): v for k, v in theirs.items()}}, f,
                      indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
