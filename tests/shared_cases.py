"""The conformance corpus (`shared/conformance` beside the repository, or `$DY2ST_SHARED`),
loaded as its Case objects with dy2st as the backend; absent on a fresh clone, where the tests
that use it skip (or fail when `DY2ST_REQUIRE_CORPUS=1`, as CI sets)."""
import importlib.util
import os
import sys
from pathlib import Path

import pytest

import dy2st

# DY2ST_SHARED points elsewhere when the repository is not beside shared/ (a git worktree)
CONFORMANCE = Path(os.environ.get("DY2ST_SHARED") or
                   Path(__file__).resolve().parents[2] / "shared") / "conformance"

# One reason for every corpus-backed test, so a fresh clone's summary shows a single skip line.
MISSING_REASON = (f"the conformance corpus is not at {CONFORMANCE} (set DY2ST_SHARED to the "
                  "directory holding conformance/; CI sets DY2ST_REQUIRE_CORPUS=1 to make this "
                  "an error)")


def require_corpus() -> Path:
    """The corpus directory; skips the calling test module when it is absent, unless
    DY2ST_REQUIRE_CORPUS is set to a true value, which makes the absence an error."""
    if (CONFORMANCE / "cases").is_dir():
        return CONFORMANCE
    if os.environ.get("DY2ST_REQUIRE_CORPUS", "").strip().lower() not in ("", "0", "false", "no"):
        raise FileNotFoundError(MISSING_REASON)
    pytest.skip(MISSING_REASON, allow_module_level=True)


def load_cases():
    """Every Case of the corpus, in file order (see require_corpus for a missing corpus)."""
    corpus = require_corpus()
    cases_dir = corpus / "cases"
    if str(corpus) not in sys.path:
        sys.path.insert(0, str(corpus))
    import casekit  # lives in the corpus, importable only once its directory is on sys.path
    casekit.paddle = dy2st
    found = []
    for path in sorted(cases_dir.glob("cases_*.py")):
        name = f"_shared_{path.stem}"
        mod = sys.modules.get(name)
        if mod is None:
            spec = importlib.util.spec_from_file_location(name, path)
            mod = importlib.util.module_from_spec(spec)
            sys.modules[name] = mod
            spec.loader.exec_module(mod)
        found.extend(mod.CASES)
    return found
