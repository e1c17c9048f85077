"""The layering of the package (docs/architecture.md), read from the source by
tools/import_graph.py: no new upward import, no new circle, and the counts of imports inside
functions without a comment saying why and of private names imported across modules can only
fall (lower a ceiling when a change removes some)."""
from pathlib import Path

import pytest

from tools import import_graph

ROOT = Path(__file__).resolve().parents[1]

# The upward imports still left, each with why it is not a hook yet (none left; a new one is to
# be turned into a hook in the lower layer).
KNOWN_UPWARD: set = set()
# The circles among modules that run at import time (none left; a new one is to be cut).
KNOWN_MODULE_CIRCLES: list = []
# Ceilings: the counts measured when this test was written; they may only go down.
MAX_PACKAGE_CIRCLES = 0
MAX_IMPORTS_IN_FUNCTIONS_WITHOUT_REASON = 0
MAX_PRIVATE_IMPORTS = 0


@pytest.fixture(scope="module")
def report() -> import_graph.Report:
    return import_graph.analyse(ROOT / "dy2st")


def test_every_package_has_a_layer(report):
    assert report.unknown_packages == [], (
        "add the new package to LAYERS in tools/import_graph.py and to docs/architecture.md")


def test_no_new_upward_import(report):
    found = {(i.source, i.target) for i in report.upward}
    new = sorted(f"{s} -> {t}" for s, t in found if (s, t) not in KNOWN_UPWARD)
    assert new == [], ("a lower layer imports a higher one; expose a hook in the lower layer "
                       "instead (docs/architecture.md, Layers): " + "; ".join(new))


def test_no_new_module_circle(report):
    new = [c for c in report.module_cycles if c not in KNOWN_MODULE_CIRCLES]
    assert new == [], f"modules that import each other at import time: {new}"


def test_package_circles_only_fall(report):
    assert len(report.package_cycles) <= MAX_PACKAGE_CIRCLES, report.package_cycles


def test_imports_inside_functions_say_why(report):
    # a new import inside a function is fine with a one-line comment giving its reason; the
    # ones without a comment can only fall
    unexplained = report.in_function_without_reason
    assert len(unexplained) <= MAX_IMPORTS_IN_FUNCTIONS_WITHOUT_REASON, (
        "an import inside a function needs a one-line comment saying why (lazy loading of a "
        "heavy optional part, a hook); latest: "
        + ", ".join(f"{i.source}:{i.line}" for i in unexplained[-3:]))


def test_private_names_imported_across_modules_only_fall(report):
    distinct = {(i.source, name) for i, name in report.private}
    assert len(distinct) <= MAX_PRIVATE_IMPORTS, (
        "a module imports another module's underscore name: make it public or move it")


def test_the_graph_reader_sees_what_it_should(tmp_path):
    # a miniature package: a -> b at import time, b -> a inside a function, c -> b._hidden
    pkg = tmp_path / "toy"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from . import b\n")
    (pkg / "b.py").write_text("def f():\n    from .a import x  # lazy: a is heavy\n    return x\n")
    (pkg / "c.py").write_text("from .b import _hidden, f\n")
    imports, modules, _ = import_graph.read_imports(pkg)
    assert modules == {"toy", "toy.a", "toy.b", "toy.c"}
    by_source = {(i.source, i.target): i for i in imports}
    assert not by_source[("toy.a", "toy.b")].in_function
    assert by_source[("toy.b", "toy.a")].in_function and by_source[("toy.b", "toy.a")].reason
    assert by_source[("toy.c", "toy.b")].names == ("_hidden", "f")
    report = import_graph.analyse(pkg)
    assert report.module_cycles == []
    assert len(report.in_function) == 1 and report.in_function_without_reason == []
    assert [name for _, name in report.private] == ["_hidden"]
    assert import_graph.cycles({"x": {"y"}, "y": {"x", "z"}, "z": set()}) == [["x", "y"]]
