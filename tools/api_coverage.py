"""Which of Paddle 3.3.1's public names dy2st has, per namespace (have / total / %), and the
missing ones. Usage: python tools/api_coverage.py [--missing] [--json]"""
from __future__ import annotations

import argparse
import ast
import importlib
import inspect
import json
import os
import sys
import textwrap
from typing import Any, Dict, List, NamedTuple

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tools.paddle_api_names import ISSUE_13, NAMESPACES, is_excluded  # noqa: E402

# where each Paddle namespace lives in dy2st
MODULES = {
    "paddle": "dy2st",
    "paddle.nn": "dy2st.nn",
    "paddle.nn.functional": "dy2st.nn.functional",
    "paddle.linalg": "dy2st.linalg",
    "paddle.optimizer": "dy2st.optimizer",
    "paddle.io": "dy2st.io",
    "paddle.metric": "dy2st.metric",
    "paddle.amp": "dy2st.amp",
    "paddle.autograd": "dy2st.autograd",
    "paddle.device": "dy2st.device",
    "paddle.static": "dy2st.static",
    "paddle.static.nn": "dy2st.static.nn",
    "paddle.incubate.nn": "dy2st.incubate.nn",
    "paddle.tensor": "dy2st.tensor",
    "paddle.fft": "dy2st.fft",
    "paddle.signal": "dy2st.signal",
    "paddle.vision": "dy2st.vision",
    "paddle.vision.ops": "dy2st.vision.ops",
    "paddle.vision.transforms": "dy2st.vision.transforms",
    "paddle.vision.models": "dy2st.vision.models",
    "paddle.vision.datasets": "dy2st.vision.datasets",
    "paddle.distributed": "dy2st.distributed",
}


class Coverage(NamedTuple):
    namespace: str
    have: List[str]
    missing: List[str]
    excluded: List[str]

    @property
    def total(self) -> int:
        return len(self.have) + len(self.missing)

    @property
    def percent(self) -> float:
        return 100.0 * len(self.have) / self.total if self.total else 100.0


def _target(namespace: str) -> Any:
    if namespace == "Tensor methods":
        return importlib.import_module("dy2st").Tensor
    try:
        return importlib.import_module(MODULES[namespace])
    except ModuleNotFoundError:     # a namespace dy2st does not have yet: every name missing
        return None


def _raises_not_implemented(func: Any) -> bool:
    """Whether `func`'s body (after any docstring) is only `raise NotImplementedError...`."""
    func = inspect.unwrap(func)
    if not (inspect.isfunction(func) or inspect.ismethod(func)):
        return False
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    except (OSError, TypeError, SyntaxError):
        return False
    body = tree.body[0].body if tree.body and hasattr(tree.body[0], "body") else []
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]
    if len(body) != 1 or not isinstance(body[0], ast.Raise) or body[0].exc is None:
        return False
    exc = body[0].exc.func if isinstance(body[0].exc, ast.Call) else body[0].exc
    return isinstance(exc, ast.Name) and exc.id == "NotImplementedError"


# classes Paddle itself defines as bases whose forward / step subclasses supply
ABSTRACT_BASES = {"Layer", "LayerList", "Optimizer", "Metric", "RNNCellBase", "PyLayer"}


def is_stub(obj: Any) -> bool:
    """A placeholder: a function that only raises NotImplementedError, or a class whose own
    __init__ / __call__ does (or forward / step, unless it is one of Paddle's abstract bases)."""
    if isinstance(obj, type):
        methods = ["__init__", "__call__"]
        if obj.__name__ not in ABSTRACT_BASES:
            methods += ["forward", "step"]
        return any(_raises_not_implemented(obj.__dict__[m]) for m in methods
                   if m in obj.__dict__)
    return _raises_not_implemented(obj)


def has_name(namespace: str, name: str) -> bool:
    """Whether dy2st has `name` in `namespace` (a Tensor method for 'Tensor methods') as a
    working object, not a placeholder raising NotImplementedError."""
    target = _target(namespace)
    if target is None or not hasattr(target, name):
        return False
    raw = inspect.getattr_static(target, name)
    if isinstance(raw, (staticmethod, classmethod)):
        raw = raw.__func__
    if isinstance(raw, property):
        raw = raw.fget
    return not is_stub(raw)


def measure() -> List[Coverage]:
    out = []
    for ns, names in NAMESPACES.items():
        # an excluded name dy2st has anyway counts: exclusions only excuse what is missing
        have = [n for n in names if has_name(ns, n)]
        excluded = [n for n in names if is_excluded(ns, n) and n not in have]
        missing = [n for n in names if n not in have and n not in excluded]
        out.append(Coverage(ns, have, missing, excluded))
    return out


def missing_issue_names() -> Dict[str, List[str]]:
    """The names issue 13 asks for that dy2st does not have, per namespace."""
    gaps = {ns: [n for n in names if not has_name(ns, n)] for ns, names in ISSUE_13.items()}
    return {ns: names for ns, names in gaps.items() if names}


def main(argv: Any = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--missing", action="store_true", help="list the missing names")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    report = measure()
    if args.json:
        print(json.dumps({c.namespace: {"have": len(c.have), "total": c.total,
                                        "percent": round(c.percent, 1), "missing": c.missing}
                          for c in report}, indent=1))
        return 0
    print(f"{'namespace':24} {'have':>5} {'total':>6} {'%':>6}   (excluded)")
    for c in report:
        print(f"{c.namespace:24} {len(c.have):5d} {c.total:6d} {c.percent:6.1f}   "
              f"({len(c.excluded)})")
    gaps = missing_issue_names()
    print("issue 13 names missing: " + ("none" if not gaps else
                                        "; ".join(f"{ns}: {', '.join(v)}" for ns, v in
                                                  gaps.items())))
    if args.missing:
        for c in report:
            if c.missing:
                print(f"\nmissing in {c.namespace} ({len(c.missing)}):")
                print("  " + " ".join(c.missing))
    return 0


if __name__ == "__main__":
    sys.exit(main())
