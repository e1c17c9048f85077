"""Source found in linecache under a pseudo-file name is used only when it is the function's own:
Python 3.13 puts the text of `python -c "..."` (how pytest-xdist starts its workers) into
linecache as "<string>", the name every function exec'd from a string has too."""
import ast
import linecache
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import dy2st as paddle
from dy2st.jit.source_match import is_source_of

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
X = np.array([[1.0, -2.0], [3.0, 0.5]], np.float32)


def _other_text_as_string(monkeypatch, text):
    lines = text.splitlines(True)
    monkeypatch.setitem(linecache.cache, "<string>", (len(text), None, lines, "<string>"))


def _calling(fn):
    def run(x):
        return fn(x) * 2.0
    return paddle.jit.to_static(run, full_graph=True)


@pytest.mark.parametrize("other", [
    "import sys;exec(eval(sys.stdin.readline()))\n",     # an xdist worker's command line
    "f = lambda h: h * 100.0\n",                          # a lambda with the same parameters
], ids=["xdist_command_line", "same_parameters"])
def test_a_lambda_execd_from_a_string_is_not_read_from_another_strings_text(monkeypatch, other):
    _other_text_as_string(monkeypatch, other)
    ns = {}
    exec("g = lambda h: h + 1.0", ns)
    out = _calling(ns["g"])(paddle.to_tensor(X))
    np.testing.assert_allclose(out.numpy(), (X + 1.0) * 2.0)


def test_a_def_execd_from_a_string_is_not_read_from_another_strings_text(monkeypatch):
    _other_text_as_string(monkeypatch, "def g(h):\n    return h * 100.0\n")
    ns = {}
    exec("def g(h):\n    return h + 1.0\n", ns)
    out = _calling(ns["g"])(paddle.to_tensor(X))
    np.testing.assert_allclose(out.numpy(), (X + 1.0) * 2.0)


def test_a_notebook_cells_own_text_still_converts(monkeypatch):
    filename = "<ipython-input-3-5d1e>"
    source = textwrap.dedent("""
        class Cell(paddle.nn.Layer):
            def __init__(self):
                super().__init__()
                self.__k = 3.0

            def forward(self, x):
                if x.sum() > 0:
                    return self.forward_pre(x) * (3.0 + len(super().parameters()))
                return x - 3.0

            def forward_pre(self, x):
                return x

            def peek(self):
                return self.__k
        cube = lambda h: h * h * h
    """)
    monkeypatch.setitem(linecache.cache, filename,
                        (len(source), None, source.splitlines(True), filename))
    ns = {"paddle": paddle}
    exec(compile(source, filename, "exec"), ns)
    layer = paddle.jit.to_static(ns["Cell"](), full_graph=True)
    for sign in (1.0, -1.0):
        np.testing.assert_allclose(layer(paddle.to_tensor(X * sign)).numpy(),
                                   X * sign * 3.0 if sign > 0 else X * sign - 3.0)
    assert "cond(" in str(layer.forward.program)
    tree = ast.parse(source)
    lam = next(n for n in ast.walk(tree) if isinstance(n, ast.Lambda))
    assert is_source_of(lam, ns["cube"].__code__)
    defs = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    forward = defs["forward"]
    assert is_source_of(forward, ns["Cell"].forward.__code__)      # super()
    assert is_source_of(defs["peek"], ns["Cell"].peek.__code__)    # a mangled name
    assert not is_source_of(lam, (lambda h: h * h * 2).__code__)
    assert not is_source_of(forward, ns["Cell"].forward_pre.__code__)


def test_in_a_process_started_with_dash_c(tmp_path):
    # the real case: Python 3.13 fills linecache["<string>"] with this command line itself
    (tmp_path / "model.py").write_text(textwrap.dedent("""
        import numpy as np
        import dy2st as paddle
        ns = {}
        exec("g = lambda h: h + 1.0", ns)


        def run(x):
            return ns["g"](x) * 2.0


        out = paddle.jit.to_static(run, full_graph=True)(paddle.to_tensor(np.ones([2], "f4")))
        print(out.numpy().tolist())
    """))
    proc = subprocess.run([sys.executable, "-c", "import model"], capture_output=True, text=True,
                          timeout=120, cwd=str(tmp_path),
                          env={**os.environ, "PYTHONPATH": ROOT})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "[4.0, 4.0]"
