"""Bytecode caches for the test run even under PYTHONDONTWRITEBYTECODE=1: in a folder of the
temp dir, so the source tree stays as clean as the variable asked (docs/testing.md)."""
import os
import sys
import tempfile

# Without caches every xdist worker and every `python -m dy2st` subprocess a test starts compiles
# the package again, and pytest re-rewrites the asserts of all test modules: a worker's collection
# took 19 s of CPU instead of 8 s.
PREFIX_ENV = "DY2ST_TEST_PYCACHE_PREFIX"


def enable() -> None:
    """Write bytecode caches for this process and its children. Where the caller forbade them in
    the tree (PYTHONDONTWRITEBYTECODE), they go under DY2ST_TEST_PYCACHE_PREFIX or the temp
    dir instead (sys.pycache_prefix, which pytest's rewritten test modules follow too)."""
    if not sys.dont_write_bytecode:
        return
    prefix = sys.pycache_prefix or os.environ.get(PREFIX_ENV) or os.path.join(
        tempfile.gettempdir(), f"dy2st-test-pycache-{os.getuid() if hasattr(os, 'getuid') else 0}")
    sys.pycache_prefix = prefix
    sys.dont_write_bytecode = False
    # the subprocesses a test starts (the CLI, examples, distributed launches) read them too
    os.environ["PYTHONPYCACHEPREFIX"] = prefix
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


enable()
