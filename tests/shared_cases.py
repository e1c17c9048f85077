"""The conformance corpus in ../shared/conformance/cases (read-only, beside the repository),
loaded as its Case objects with dy2st as the backend."""
import importlib.util
import os
import sys
from pathlib import Path

import dy2st

# DY2ST_SHARED points elsewhere when the repository is not beside shared/ (a git worktree)
CONFORMANCE = Path(os.environ.get("DY2ST_SHARED") or
                   Path(__file__).resolve().parents[2] / "shared") / "conformance"


def load_cases():
    """Every Case of the corpus, in file order; fails loudly when the corpus is missing."""
    cases_dir = CONFORMANCE / "cases"
    if not cases_dir.is_dir():
        raise FileNotFoundError(f"the conformance corpus is missing: {cases_dir} (shared/ must "
                                "sit beside the repository)")
    if str(CONFORMANCE) not in sys.path:
        sys.path.insert(0, str(CONFORMANCE))
    import casekit
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
