"""Audit rounds 4, 5 and 6 (issue 24's follow-ups): programs in the forms earlier rounds did not
write, each run eagerly, through to_static (full_graph True and False) and jit.save / jit.load by
tools/equivalence.py, and compared with eager mode, with Python state changed between calls:
`python tools/audit_cases.py [-k NAME] [--group N] [--round 4|5|6] [-v]
[--modes full_graph,breaks,saved]` (docs/fuzzing.md)."""
import argparse
import collections
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import dy2st as paddle  # noqa: E402
from tools import (  # noqa: E402
    audit_cases_builtins,
    audit_cases_calls,
    audit_cases_dtypes,
    audit_cases_exceptions,
    audit_cases_iteration,
    audit_cases_layer_state,
    audit_cases_layers,
    audit_cases_library_state,
    audit_cases_loops,
    audit_cases_models,
    audit_cases_numpy,
    audit_cases_printing,
    audit_cases_python,
    audit_cases_scatter,
    audit_cases_sequences,
    audit_cases_state,
    audit_cases_tensors,
)
from tools.equivalence import MODES, report  # noqa: E402

CASES = audit_cases_python.CASES + audit_cases_tensors.CASES + audit_cases_layers.CASES + \
    audit_cases_builtins.CASES + audit_cases_models.CASES + audit_cases_numpy.CASES + \
    audit_cases_dtypes.CASES + audit_cases_state.CASES + audit_cases_library_state.CASES + \
    audit_cases_sequences.CASES + audit_cases_exceptions.CASES + audit_cases_iteration.CASES + \
    audit_cases_calls.CASES + audit_cases_loops.CASES + audit_cases_layer_state.CASES + \
    audit_cases_scatter.CASES + audit_cases_printing.CASES
GROUPS = {1: "try/except/finally", 2: "with / context managers", 3: "generators",
          4: "*args/**kwargs", 5: "classes, super, properties, callables", 6: "global/nonlocal",
          7: "del", 8: "in-place on views / item assignment", 9: "where / masked_fill",
          10: "shapes, len, enumerate, zip", 11: "loops, returns, recursion",
          12: "formatting, print, assert, isinstance", 13: "dtypes, int division, lists",
          14: "Layer state between calls", 15: "builtins over tensors", 16: "indexing",
          17: "structured outputs", 18: "shapes in Python code", 19: "Layers (shared, buffers)",
          # round 5
          20: "masking with -inf, softmax, losses", 21: "top-k, decoding and beam search",
          22: "padding / unpadding, lists of tensors", 23: "caches in dicts, stateful Layers",
          24: ".numpy() round trips", 25: "numpy scalars and arrays as operands",
          26: "numpy state changed between calls",
          27: "int32 / int64 arithmetic, signs", 28: "bool masks, float16",
          29: "to_tensor of Python lists", 30: "0-d and 0-size tensors",
          31: "None batch dims through jit.save", 32: "globals of another module",
          33: "class attributes, functools.partial", 34: "default arguments",
          35: "closures, dispatch tables, global tensors",
          36: "library calls changing Python state", 37: "sequence models",
          # round 6
          38: "try/except/finally around tensor control flow",
          39: "with and context managers of the user's own",
          40: "generators, yield in helpers, iterators", 41: "zip / enumerate / map / filter",
          42: "*args/**kwargs, keyword-only, decorators", 43: "properties, class/static methods, super",
          44: "recursion with a Python depth", 45: "global / nonlocal in nested functions",
          46: "break / continue / loop else at depth", 47: "early returns in nested loops",
          48: "LayerList / LayerDict / Sequential", 49: "train() / eval() between calls",
          50: "buffers written in forward, lazy parameters", 51: "item assignment by index and mask",
          52: "where / gather / scatter / index_put gradients", 53: "print, f-strings, assert"}
ROUNDS = {4: (1, 19), 5: (20, 37), 6: (38, 99)}     # the groups of each round


# errors that are refusals by design (tools/equivalence.py counts only TypeError as one)
REFUSALS = ("TypeError", "ConversionError", "HiddenStateError", "ValueError", "RecursionError")


def _kind(result, refusal_ok: bool = False) -> str:
    """agrees / refused / silent (a different value, no error) / error (eager works) / lenient
    (eager raises, the converted function does not). An error
    is a refusal in a mode where the case allows one and its message names the user's line."""
    if result in (None, "skip"):
        return "agrees"
    text = str(result)
    if text.startswith("refused"):
        return "refused"
    if refusal_ok and any(e in text for e in REFUSALS) and ("HERE" in text or "line" in text):
        return "refused"
    if refusal_ok and "GraphBreakError" in text:
        return "refused"        # jit.save lists each break's file and line (cut off here)
    if re.search(r"call \d+: raise\(", text):
        return "lenient"        # eager raises, the converted function gives a value
    if "vs raise(" in text or text.startswith(("build", "Traceback")) or ": raise " in text:
        return "error"
    return "silent"


def caller_view(modes=("full_graph", "breaks")) -> int:
    """Run the ARG_CASES (functions changing their argument in place) and compare the caller's
    tensor after each call with eager's; prints the cases and modes that differ."""
    bad = 0
    for fn in audit_cases_tensors.ARG_CASES:
        for mode in modes:
            sf = paddle.jit.to_static(fn, full_graph=(mode == "full_graph"))
            for k, (x,) in enumerate(audit_cases_tensors.XS[:3]):
                mine, theirs = paddle.to_tensor(x), paddle.to_tensor(x)
                out, want = sf(mine), fn(theirs)
                if not np.allclose(out.numpy(), want.numpy()) or \
                        not np.allclose(mine.numpy(), theirs.numpy()):
                    print(f"   caller's tensor after {fn.__name__} ({mode}, call {k}) differs")
                    bad += 1
                    break
    print(f"{len(audit_cases_tensors.ARG_CASES)} argument cases: {bad} case-modes differ")
    return bad


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-k", default="", help="only cases whose name contains this")
    parser.add_argument("--group", type=int, default=0)
    parser.add_argument("--round", type=int, default=0, choices=(0, 4, 5, 6),
                        help="only the cases of audit round 4 (groups 1-19), 5 (20-37) or 6 (38-)")
    parser.add_argument("-v", action="store_true", help="print every outcome")
    parser.add_argument("--modes", default=",".join(MODES))
    args = parser.parse_args()
    chosen = [c for c in CASES if args.k in c.name and (not args.group or c.item == args.group)
              and (not args.round or ROUNDS[args.round][0] <= c.item <= ROUNDS[args.round][1])]
    rows = report(chosen, tuple(args.modes.split(",")), verbose=args.v)
    worst = collections.Counter()
    allowed = {c.name: c.refusal_ok for c in chosen}
    for _group, name, res, _status in rows:
        kinds = {_kind(r, mode in allowed[name]) for mode, r in res.items()}
        if kinds - {"agrees", "refused"}:
            print(f"   {name}: " + ", ".join(f"{m} {_kind(r, m in allowed[name])}"
                                             for m, r in res.items()))
        worst[next(k for k in ("silent", "error", "lenient", "refused", "agrees")
                   if k in kinds)] += 1
    if args.v:
        for group, title in GROUPS.items():
            mine = [r for r in rows if r[0] == group]
            if mine:
                print(f"group {group:>2} {title:<40} {len(mine):>3} cases, "
                      f"{sum(r[3] == 'agrees' for r in mine)} agree or refuse clearly")
    if not args.k and not args.group and args.round in (0, 4):
        caller_view()
    if not args.k and not args.group and args.round in (0, 6):
        audit_cases_printing.print_view()
    print(f"{len(rows)} cases: " + ", ".join(f"{k} {worst[k]}" for k in
                                             ("agrees", "refused", "silent", "error",
                                              "lenient")))


if __name__ == "__main__":
    main()
