"""Paddle's debugging switches: set_code_level / set_verbosity and the TRANSLATOR_CODE_LEVEL /
TRANSLATOR_VERBOSITY environment variables log to stderr by default (stdout on request), an
explicit setting wins over the variable, and a function whose source cannot be read warns once
that it runs eagerly."""
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import dy2st as paddle
from dy2st.jit import logger

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SCRIPT = textwrap.dedent("""
    import sys
    import dy2st as paddle

    def f(x):
        if x.sum() > 0:
            return x * 2
        return x

    exec(sys.argv[1])
    sf = paddle.jit.to_static(f)
    sf(paddle.ones([2]))
    sf(paddle.ones([3]))
    print("done")
""")


@pytest.fixture(scope="module")
def script(tmp_path_factory):
    path = tmp_path_factory.mktemp("logging") / "script.py"
    path.write_text(SCRIPT)
    return str(path)


def _run(script, setup="", **env):
    full = {k: v for k, v in os.environ.items() if not k.startswith("TRANSLATOR_")}
    full.update(env, PYTHONPATH=ROOT)
    proc = subprocess.run([sys.executable, script, setup], capture_output=True, text=True,
                          env=full, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout, proc.stderr


def test_quiet_by_default(script):
    out, err = _run(script)
    assert out == "done\n" and err == ""


def test_code_level_env_logs_the_last_pass_code_to_stderr(script):
    out, err = _run(script, TRANSLATOR_CODE_LEVEL="100")
    assert out == "done\n"
    assert "f after the last pass" in err and "_jst." in err


def test_code_level_env_of_one_pass(script):
    from dy2st.transformers.pipeline import PASS_NAMES
    level = PASS_NAMES.index("ifelse") + 1
    _, err = _run(script, TRANSLATOR_CODE_LEVEL=str(level))
    assert f"after pass {level} 'ifelse'" in err and "after the last pass" not in err


def test_verbosity_env_logs_retraces_to_stderr(script):
    out, err = _run(script, TRANSLATOR_VERBOSITY="1")
    assert out == "done\n" and "tracing f again" in err


def test_set_verbosity_and_set_code_level_log_to_stderr_without_env(script):
    _, err = _run(script, "paddle.jit.set_verbosity(1); paddle.jit.set_code_level()")
    assert "tracing f again" in err and "f after the last pass" in err


def test_an_explicit_level_wins_over_the_environment(script):
    _, err = _run(script, "paddle.jit.set_verbosity(0); paddle.jit.set_code_level(0)",
                  TRANSLATOR_VERBOSITY="1", TRANSLATOR_CODE_LEVEL="100")
    assert err == ""


def test_none_goes_back_to_the_environment(script):
    _, err = _run(script, "paddle.jit.set_verbosity(0); paddle.jit.set_verbosity(None)",
                  TRANSLATOR_VERBOSITY="1")
    assert "tracing f again" in err


def test_also_to_stdout_copies_the_records_to_stdout(script):
    out, err = _run(script, "paddle.jit.set_code_level(100, also_to_stdout=True)")
    assert "f after the last pass" in out and "f after the last pass" in err


def test_records_go_to_the_applications_handlers_once_it_configured_logging(script):
    out, err = _run(script, "import logging; paddle.jit.set_verbosity(1); "
                            "logging.basicConfig(stream=sys.stdout, format='APP %(message)s')")
    assert "APP to_static: tracing f again" in out and err == ""


def test_a_bad_environment_value_is_named(monkeypatch):
    monkeypatch.setenv("TRANSLATOR_VERBOSITY", "loud")
    monkeypatch.setitem(logger._explicit, "verbosity", None)
    with pytest.raises(ValueError, match="TRANSLATOR_VERBOSITY='loud' must be an integer"):
        logger.verbosity()


@pytest.mark.parametrize("bad", ["1", 1.5, True])
def test_levels_are_ints(bad):
    with pytest.raises(TypeError, match="expects an int"):
        paddle.jit.set_verbosity(bad)
    with pytest.raises(TypeError, match="expects an int"):
        paddle.jit.set_code_level(bad)


def test_a_function_without_source_warns_once_and_runs_eagerly():
    ns = {"paddle": paddle}
    exec("def no_source_fn(x):\n    if x.sum() > 0:\n        return x * 2\n    return x\n", ns)
    sf = paddle.jit.to_static(ns["no_source_fn"])
    with pytest.warns(UserWarning, match="runs no_source_fn eagerly.*source code is not available"):
        first = sf(paddle.ones([2]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        second = sf(-paddle.ones([3]))
    np.testing.assert_allclose(first.numpy(), [2.0, 2.0])
    np.testing.assert_allclose(second.numpy(), [-1.0, -1.0, -1.0])
