"""The import graph of a package tree, read from its source with `ast`: package sizes, import
circles, upward imports across the layers, imports inside functions and cross-module private names.

    python tools/import_graph.py [ROOT]      # ROOT defaults to this repository's dy2st/

tests/test_layering.py uses it to keep each count at or under its ceiling."""
from __future__ import annotations

import argparse
import ast
import re
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Sequence, Set, Tuple

# Packages from the bottom up: a package may import from its own layer and the ones below it;
# a lower layer reaches a higher one only through a hook it exposes (runtime/registry.hooks,
# jst.namespace.set_call_converter, ...). Top-level modules count as packages of their own.
LAYERS: Sequence[Tuple[str, ...]] = (
    ("runtime",),
    ("autograd",),
    ("format", "jst", "transformers", "linalg", "fft", "signal", "backends"),
    ("nn", "regularizer"),
    ("optimizer", "metric", "tensor", "utils", "amp", "device", "incubate", "distributed"),
    ("jit",),
    ("static", "io", "onnx"),
    ("hapi", "base", "vision"),
    ("cli", "__main__", "__init__"),
)
LAYER_OF: Dict[str, int] = {pkg: i for i, pkgs in enumerate(LAYERS) for pkg in pkgs}


@dataclass(frozen=True)
class Import:
    source: str          # the importing module, dotted (dy2st.jit.api)
    target: str          # the imported module, dotted
    names: Tuple[str, ...]
    line: int
    in_function: bool
    type_checking: bool  # under `if TYPE_CHECKING:` (never runs)
    reason: bool         # a comment (not a bare noqa) on the line or the line above says why


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def package_of(module: str, top: str) -> str:
    """The first component under `top`: dy2st.runtime.ops.math -> runtime; dy2st -> __init__."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _resolve(source: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = source.split(".")
    if not is_package:
        base = base[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _walk(node: ast.AST, in_function: bool, type_checking: bool) -> Iterator[Tuple[ast.AST, bool, bool]]:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            yield child, in_function, type_checking
            continue
        inner_fn = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        if isinstance(child, ast.If) and _is_type_checking(child.test):
            for stmt in child.body:
                yield from _walk(ast.Module(body=[stmt], type_ignores=[]), inner_fn, True)
            for stmt in child.orelse:
                yield from _walk(ast.Module(body=[stmt], type_ignores=[]), inner_fn, type_checking)
            continue
        yield from _walk(child, inner_fn, type_checking)


_BARE_NOQA = re.compile(r"#\s*noqa(:\s*[A-Z]+[0-9]*(\s*,\s*[A-Z]+[0-9]*)*)?\s*$")


def _has_reason(lines: List[str], line: int) -> bool:
    """A comment on the import's line or the line above, other than a bare `# noqa: CODE`."""
    here = lines[line - 1]
    above = lines[line - 2].strip() if line >= 2 else ""
    comment = here[here.index("#"):] if "#" in here else ""
    return bool(comment and not _BARE_NOQA.match(comment)) or above.startswith("#")


def read_imports(root: Path) -> Tuple[List[Import], Set[str], Dict[str, int]]:
    """Every import of a dy2st module from a module under root, the module names, and each
    module's line count."""
    modules: Dict[str, Path] = {module_name(root, p): p for p in sorted(root.rglob("*.py"))}
    top = root.name
    imports: List[Import] = []
    sizes: Dict[str, int] = {}
    for name, path in modules.items():
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        sizes[name] = len(lines)
        tree = ast.parse(text, str(path))
        is_package = path.name == "__init__.py"
        for node, in_function, type_checking in _walk(tree, False, False):
            reason = _has_reason(lines, node.lineno)
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name == top or alias.name.startswith(top + "."):
                        imports.append(Import(name, alias.name, (), node.lineno, in_function,
                                              type_checking, reason))
                continue
            target = _resolve(name, is_package, node)
            if not (target == top or target.startswith(top + ".")):
                continue
            names = tuple(a.name for a in node.names)
            submodules = [n for n in names if f"{target}.{n}" in modules]
            for sub in submodules:        # `from . import x` imports the module x
                imports.append(Import(name, f"{target}.{sub}", (), node.lineno, in_function,
                                      type_checking, reason))
            rest = tuple(n for n in names if n not in submodules)
            if rest or not submodules:
                imports.append(Import(name, target, rest, node.lineno, in_function,
                                      type_checking, reason))
    return imports, set(modules), sizes


def cycles(edges: Dict[str, Set[str]]) -> List[List[str]]:
    """The strongly connected components with more than one node (Tarjan, iterative)."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    on_stack: Set[str] = set()
    stack: List[str] = []
    found: List[List[str]] = []
    counter = 0
    nodes = set(edges) | {t for ts in edges.values() for t in ts}
    for start in sorted(nodes):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found, key=lambda c: (-len(c), c))


@dataclass
class Report:
    package_lines: Dict[str, int]
    module_cycles: List[List[str]]      # circles among modules, imports run at import time
    call_cycles: List[List[str]]        # circles among modules, with imports inside functions
    package_cycles: List[List[str]]     # circles among packages, any import that runs
    upward: List[Import]
    in_function: List[Import]
    in_function_without_reason: List[Import]
    private: List[Tuple[Import, str]]   # (import, the underscore name)
    unknown_packages: List[str]


def analyse(root: Path) -> Report:
    imports, modules, sizes = read_imports(root)
    top = root.name
    package_lines: Dict[str, int] = defaultdict(int)
    for name, n in sizes.items():
        package_lines[package_of(name, top)] += n
    runs = [i for i in imports if not i.type_checking]
    module_edges: Dict[str, Set[str]] = defaultdict(set)
    call_edges: Dict[str, Set[str]] = defaultdict(set)
    package_edges: Dict[str, Set[str]] = defaultdict(set)
    for imp in runs:
        target = _existing(imp.target, modules)
        if target is None or target == imp.source:
            continue
        call_edges[imp.source].add(target)
        if not imp.in_function:
            module_edges[imp.source].add(target)
        src_pkg, dst_pkg = package_of(imp.source, top), package_of(target, top)
        if src_pkg != dst_pkg and dst_pkg != "__init__":
            package_edges[src_pkg].add(dst_pkg)
    upward = [i for i in runs
              if _layer(package_of(i.source, top)) < _layer(package_of(i.target, top))
              and package_of(i.target, top) != "__init__"]
    in_function = [i for i in runs if i.in_function]
    private = [(i, n) for i in imports for n in i.names
               if n.startswith("_") and not n.startswith("__")]
    unknown = sorted({p for p in package_lines if p not in LAYER_OF})
    return Report(dict(sorted(package_lines.items())), cycles(module_edges), cycles(call_edges),
                  cycles(package_edges),
                  upward, in_function, [i for i in in_function if not i.reason], private, unknown)


def _existing(target: str, modules: Set[str]) -> Optional[str]:
    while target and target not in modules:
        target = target.rpartition(".")[0]
    return target or None


def _layer(package: str) -> int:
    return LAYER_OF.get(package, len(LAYERS))


def main(argv: Sequence[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("root", nargs="?", default=Path(__file__).resolve().parents[1] / "dy2st",
                   type=Path, help="the package tree (default: this repository's dy2st/)")
    report = analyse(p.parse_args(argv[1:]).root.resolve())
    print(f"{'package':<16}{'lines':>7}")
    for pkg, n in report.package_lines.items():
        print(f"{pkg:<16}{n:>7}")
    print(f"{'total':<16}{sum(report.package_lines.values()):>7}")
    print(f"\nmodule circles (imports run at import time): {len(report.module_cycles)}")
    for c in report.module_cycles:
        print(f"  {len(c):>3} modules: {', '.join(c[:6])}{' ...' if len(c) > 6 else ''}")
    print(f"module circles (with imports inside functions): {len(report.call_cycles)}")
    for c in report.call_cycles:
        print(f"  {len(c):>3} modules: {', '.join(c[:6])}{' ...' if len(c) > 6 else ''}")
    print(f"package circles (any import): {len(report.package_cycles)}")
    for c in report.package_cycles:
        print(f"  {' <-> '.join(c)}")
    print(f"upward imports: {len(report.upward)}")
    for i in report.upward:
        print(f"  {i.source}:{i.line} -> {i.target}{' (in a function)' if i.in_function else ''}")
    print(f"imports inside functions: {len(report.in_function)} "
          f"({len(report.in_function_without_reason)} without a comment)")
    modules_with_private = {i.source for i, _ in report.private}
    distinct = {(i.source, n) for i, n in report.private}
    print(f"cross-module private imports: {len(distinct)} names in "
          f"{len(modules_with_private)} modules")
    if report.unknown_packages:
        print(f"packages without a layer: {', '.join(report.unknown_packages)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
