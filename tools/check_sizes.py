"""Fails when a source file passes 600 lines or a function 120 lines without an entry in
ALLOWED saying why (run by CI):

    python tools/check_sizes.py [PATH ...]      # default: dy2st tools benchmarks
"""
from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path
from typing import Dict, Iterator, List, Sequence, Tuple

MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 120
ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PATHS = ("dy2st", "tools", "benchmarks")

# "path" (a file) or "path::function" -> (the size allowed, why). An entry stops covering its
# file or function once it grows past that size, and is reported once it is no longer needed.
ALLOWED: Dict[str, Tuple[int, str]] = {
    "dy2st/runtime/executor.py": (
        830, "the Program-to-Python compiler is one unit; to be split by op family (issue 26)"),
    "dy2st/optimizer/lr.py": (
        670, "Paddle's 20 learning-rate schedulers, one public class each, as paddle.optimizer.lr"),
    "dy2st/jit/static_function.py": (
        764, "StaticFunction, its cache entry and guards; the guards to move to jit/guards.py"),
    "tools/fuzz.py": (
        800, "the differential fuzzer: generator and runner in one script (tools/fuzz_minimize.py: the minimizer)"),
}


def functions(tree: ast.AST) -> Iterator[Tuple[str, int]]:
    """(qualified name, line count) of every function and method."""
    def walk(node: ast.AST, prefix: str) -> Iterator[Tuple[str, int]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = prefix + child.name
                yield name, child.end_lineno - child.lineno + 1
                yield from walk(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                yield from walk(child, prefix + child.name + ".")
            else:
                yield from walk(child, prefix)
    return walk(tree, "")


def check(paths: Sequence[Path]) -> Tuple[List[str], List[str]]:
    """(problems, allow-list entries no longer needed)."""
    problems: List[str] = []
    used = set()
    for path in paths:
        files = [path] if path.is_file() else sorted(path.rglob("*.py"))
        for file in files:
            rel = file.resolve().relative_to(ROOT).as_posix()
            text = file.read_text(encoding="utf-8")
            sizes = [(rel, len(text.splitlines()), MAX_FILE_LINES, "file")]
            sizes += [(f"{rel}::{name}", n, MAX_FUNCTION_LINES, "function")
                      for name, n in functions(ast.parse(text, rel))]
            for key, n, limit, kind in sizes:
                if n <= limit:
                    continue
                allowed = ALLOWED.get(key)
                if allowed is not None:
                    used.add(key)
                    if n <= allowed[0]:
                        continue
                cap = allowed[0] if allowed else limit
                problems.append(f"{key}: {kind} of {n} lines (limit {cap}); split it, or add "
                                f"an entry to ALLOWED in tools/check_sizes.py saying why")
    checked = {p.resolve().relative_to(ROOT).as_posix() for p in paths}
    stale = [k for k in ALLOWED if k not in used
             and any(k == c or k.startswith(c.rstrip("/") + "/") for c in checked)]
    return problems, stale


def main(argv: Sequence[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paths", nargs="*", metavar="PATH",
                   help=f"files or folders (default: {' '.join(DEFAULT_PATHS)})")
    args = p.parse_args(argv[1:])
    paths = [Path(a).resolve() for a in args.paths] or [ROOT / d for d in DEFAULT_PATHS]
    problems, stale = check(paths)
    for line in problems:
        print(line)
    for key in stale:
        print(f"{key}: within the limits now; remove its ALLOWED entry")
    if problems or stale:
        return 1
    print(f"sizes ok: files <= {MAX_FILE_LINES} lines, functions <= {MAX_FUNCTION_LINES} lines "
          f"(allowed beyond: {len(ALLOWED)})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
