"""The `dy2st` command run in the test process: what a fresh `python -m dy2st` would report,
without the second of CPU a fresh process costs."""
import contextlib
import importlib
import io
import os
import sys
import tempfile
import traceback
import types
import warnings

from dy2st.cli import main

# pytest's temporary folders (tmp_path): CI's virtualenv may live under the temp dir too
PYTEST_TEMP = os.path.join(os.path.realpath(tempfile.gettempdir()), "pytest-of-")


def earlier_user_modules() -> dict:
    """Modules another test imported from its tmp_path (`user_net` of a saved-model test): a
    fresh process has none, and a module of that name would shadow the command's."""
    found = {}
    for name, module in list(sys.modules.items()):
        where = os.path.realpath(getattr(module, "__file__", None) or "")
        if where.startswith(PYTEST_TEMP):
            found[name] = module
    return found


def run_cli(*args, cwd) -> types.SimpleNamespace:
    """`dy2st ARGS` run by dy2st.cli.main in this process, in `cwd`, with what a fresh process
    would show: the exit status (argparse's SystemExit, an uncaught exception's traceback and
    status 1), stdout, and stderr with every warning printed (filter "default", stricter than a
    fresh process's, which hides deprecations). The user modules and sys.path entries the
    command adds are taken away afterwards, as the process's end would."""
    out, err = io.StringIO(), io.StringIO()
    set_aside = earlier_user_modules()
    for name in set_aside:
        del sys.modules[name]
    modules, path, here = set(sys.modules), list(sys.path), os.getcwd()
    importlib.invalidate_caches()
    os.chdir(cwd)
    try:
        with warnings.catch_warnings(record=True) as seen, contextlib.redirect_stdout(out), \
                contextlib.redirect_stderr(err):
            warnings.simplefilter("default")
            try:
                status = main([str(a) for a in args])
            except SystemExit as e:
                status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
            except Exception:  # noqa: BLE001 - the interpreter would print it and exit with 1
                traceback.print_exc()
                status = 1
        for w in seen:
            err.write(warnings.formatwarning(w.message, w.category, w.filename, w.lineno, w.line))
    finally:
        os.chdir(here)
        sys.path[:] = path
        # the user's modules go; the libraries it imported stay (one copy of each per process)
        folder = os.path.realpath(cwd) + os.sep
        for name in set(sys.modules) - modules:
            where = getattr(sys.modules[name], "__file__", None) or ""
            if os.path.realpath(where).startswith(folder) or name.startswith("_dy2st_user_"):
                del sys.modules[name]
        sys.modules.update(set_aside)
    return types.SimpleNamespace(returncode=status, stdout=out.getvalue(), stderr=err.getvalue())
