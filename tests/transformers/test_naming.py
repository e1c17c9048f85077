"""naming: deterministic fresh names; golden files pin the transformed source of representative
functions (regenerate with DY2ST_UPDATE_GOLDEN=1)."""
import os
import subprocess
import sys
import textwrap

import gast
import pytest

import dy2st as paddle
from dy2st.transformers.naming import Namer, names_in
from tests.support import same_code

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_namer_counts_per_base():
    n = Namer(set())
    assert [n.new("true_fn"), n.new("true_fn"), n.new("false_fn")] == \
        ["true_fn_0", "true_fn_1", "false_fn_0"]


def test_namer_avoids_taken_names():
    n = Namer({"true_fn_0", "true_fn_2"})
    assert [n.new("true_fn"), n.new("true_fn"), n.new("true_fn")] == \
        ["true_fn_1", "true_fn_3", "true_fn_4"]


def test_names_in_collects_names_defs_and_imports():
    tree = gast.parse("import os.path as p\nimport numpy\ndef f(a):\n    b = a\nclass C: pass\n")
    assert {"p", "numpy", "f", "a", "b", "C"} <= names_in(tree)


# ---- representative functions pinned by golden files ------------------------------------
def golden_ifelse(x):
    if x.mean() > 0:
        y = x * 2
    elif x.mean() > -1:
        y = x - 1
    else:
        y = -x
    return y


def golden_loop(x, n):
    s = x * 0
    i = paddle.zeros([], "int64")
    while i < n:
        t = x * 2
        s = s + t
        i = i + 1
    for k in range(n):
        s = s + 1
    return s


def golden_break_return(x, n):
    for k in range(n):
        if x.sum() > 10:
            break
        x = x + 1
    if x.sum() > 0:
        return x
    return -x


def golden_user_names(x, true_fn_0, break_0):
    # parameters that look like generated names must not be clobbered
    if x.sum() > 0 and true_fn_0:
        x = x + break_0
    print(x)
    assert x.sum() != 1.5
    return int(x.sum())


GOLDEN_FUNCTIONS = [golden_ifelse, golden_loop, golden_break_return, golden_user_names]


@pytest.mark.parametrize("fn", GOLDEN_FUNCTIONS, ids=lambda f: f.__name__)
def test_golden_transformed_source(fn):
    code = paddle.jit.to_static(fn).code.rstrip() + "\n"
    path = os.path.join(GOLDEN, f"{fn.__name__}.py")
    if os.environ.get("DY2ST_UPDATE_GOLDEN"):
        with open(path, "w") as f:
            f.write(code)
    with open(path) as f:
        expected = f.read()
    assert same_code(code, expected), f"transformed source of {fn.__name__} changed; " \
                                      "rerun with DY2ST_UPDATE_GOLDEN=1 if intended"
    compile(code, path, "exec")


def test_generated_names_do_not_clobber_user_names():
    code = paddle.jit.to_static(golden_user_names).code
    assert "def true_fn_0(" not in code and "def true_fn_1(" in code
    assert code.startswith("def golden_user_names(x, true_fn_0, break_0):")
    assert "break_0 = " not in code and "true_fn_0 = " not in code
    import numpy as np
    sf = paddle.jit.to_static(golden_user_names)
    x = paddle.to_tensor(np.array([1.0, 2.0], np.float32))
    result = sf(x, True, 5.0)
    assert type(result) is int and result == golden_user_names(x, True, 5.0)


def _dump_codes():
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r})
        import importlib.util
        spec = importlib.util.spec_from_file_location("naming_mod", {os.path.abspath(__file__)!r})
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        import dy2st
        for fn in mod.GOLDEN_FUNCTIONS:
            print(dy2st.jit.to_code(fn))
    """)
    env = dict(os.environ, PYTHONPATH=REPO, PYTHONHASHSEED="random")
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_generated_names_are_stable_across_processes():
    first, second = _dump_codes(), _dump_codes()
    assert first == second
    here = "\n".join(paddle.jit.to_code(fn) for fn in GOLDEN_FUNCTIONS) + "\n"
    assert first == here
