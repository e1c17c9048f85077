"""Export errors: a non-exportable op (named with the user's file and line), a function that
cannot be converted to one graph, a missing `onnx` package, a bad opset; no file is left behind."""
import os
import subprocess
import sys

import numpy as np
import pytest

import dy2st as paddle
from dy2st.onnx import NotExportableError, OnnxMissingError

SPEC = [paddle.static.InputSpec([None, 3], "float32", "x")]
HERE = os.path.basename(__file__)


def products(x):
    y = x * 2
    return paddle.cumprod(y, dim=-1)  # the line the error must name


def line_of(fn, text):
    import inspect
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, ln in enumerate(lines) if text in ln)


def listing(folder):
    return sorted(os.listdir(folder))


def test_non_exportable_op_names_op_file_and_line(tmp_path):
    with pytest.raises(NotExportableError) as info:
        paddle.onnx.export(products, str(tmp_path / "m"), input_spec=SPEC)
    msg = str(info.value)
    assert "op cumprod" in msg and HERE in msg
    assert f"line {line_of(products, 'paddle.cumprod(y')}" in msg
    assert "paddle.cumprod(y, dim=-1)" in msg and "no cumulative product" in msg
    assert listing(tmp_path) == []


def test_non_exportable_op_inside_a_branch(tmp_path):
    def f(x):
        if x.sum() > 0:
            x = x + paddle.rand([3])
        return x
    with pytest.raises(NotExportableError,
                       match=r"op uniform_random .*line \d+: x = x \+ paddle.rand.*random"):
        paddle.onnx.export(f, str(tmp_path / "m"), input_spec=SPEC)
    assert listing(tmp_path) == []


def graph_break(x):
    y = np.asarray(x) + 1  # numpy on a symbolic tensor: no single graph
    return y


@pytest.mark.parametrize("full_graph", [True, False])
def test_function_that_breaks_the_graph_is_refused(tmp_path, full_graph):
    fn = paddle.jit.to_static(graph_break, full_graph=full_graph)
    with pytest.raises(TypeError) as info:
        paddle.onnx.export(fn, str(tmp_path / "m"), input_spec=SPEC)
    msg = str(info.value)
    assert "numpy" in msg and HERE in msg and "np.asarray(x) + 1" in msg
    assert listing(tmp_path) == []


def test_missing_onnx_package(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "onnx", None)      # `import onnx` now raises ImportError
    with pytest.raises(OnnxMissingError, match=r'pip install "dy2st\[onnx\]"'):
        paddle.onnx.export(lambda x: x + 1, str(tmp_path / "m"), input_spec=SPEC)
    assert listing(tmp_path) == []


def test_importing_dy2st_does_not_import_onnx():
    code = "import sys, dy2st; print(hasattr(dy2st.onnx, 'export'), 'onnx' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    assert out.stdout.split() == ["True", "False"], out.stderr


@pytest.mark.parametrize("opset, error", [(9, ValueError), (10 ** 4, ValueError),
                                          ("18", TypeError)])
def test_unsupported_opset_versions(tmp_path, opset, error):
    with pytest.raises(error, match="opset"):
        paddle.onnx.export(lambda x: x + 1, str(tmp_path / "m"), input_spec=SPEC,
                           opset_version=opset)
    assert listing(tmp_path) == []


def test_op_that_an_older_opset_cannot_express(tmp_path):
    def f(x):
        return paddle.bitwise_and(x, x * 2)  # integer BitwiseAnd arrived in opset 18
    spec = [paddle.static.InputSpec([3], "int64", "x")]
    with pytest.raises(NotExportableError, match=r"op bitwise_and .*opset 18"):
        paddle.onnx.export(f, str(tmp_path / "m"), input_spec=spec, opset_version=17)
    paddle.onnx.export(f, str(tmp_path / "m"), input_spec=spec, opset_version=18)
    assert listing(tmp_path) == ["m.onnx"]


def test_failed_export_keeps_an_existing_model(tmp_path):
    path = str(tmp_path / "m")
    paddle.onnx.export(lambda x: x + 1, path, input_spec=SPEC)
    before = open(path + ".onnx", "rb").read()
    with pytest.raises(NotExportableError):
        paddle.onnx.export(products, path, input_spec=SPEC)
    assert open(path + ".onnx", "rb").read() == before
    assert listing(tmp_path) == ["m.onnx"]


def test_run_time_checks_are_left_out_with_a_warning(tmp_path):
    def f(x):
        assert x.sum() > -100.0, "too small"  # checked by dy2st, not by the ONNX model
        return x * 2
    from dy2st.onnx.ops_side_effects import UncheckedWarning
    with pytest.warns(UncheckedWarning, match=r"assertion .*line \d+"):
        paddle.onnx.export(f, str(tmp_path / "m"), input_spec=SPEC)
    assert listing(tmp_path) == ["m.onnx"]


def _cli(tmp_path, *args, extra_path=()):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([*extra_path, root]))
    return subprocess.run([sys.executable, "-m", "dy2st", *args], cwd=str(tmp_path), env=env,
                          capture_output=True, text=True, timeout=120)


def test_cli_refuses_a_non_exportable_function(tmp_path):
    (tmp_path / "model.py").write_text(
        "import dy2st as paddle\n\n\ndef f(x):\n    return paddle.cumprod(x * 2, dim=-1)\n")
    p = _cli(tmp_path, "export", "model.py:f", "--format", "onnx", "--input-spec",
             "x:float32[None,3]", "-o", "out")
    assert p.returncode == 2
    assert "op cumprod" in p.stderr and "model.py" in p.stderr and "line 5" in p.stderr
    # nothing written but the bytecode cache of importing model.py (where Python writes one)
    assert sorted(n for n in os.listdir(tmp_path) if n != "__pycache__") == ["model.py"]


def test_cli_without_the_onnx_package(tmp_path):
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / "onnx.py").write_text("raise ImportError('onnx is not installed here')\n")
    (tmp_path / "model.py").write_text("def f(x):\n    return x + 1\n")
    p = _cli(tmp_path, "export", "model.py:f", "--format", "onnx", "--input-spec",
             "x:float32[3]", "-o", "out", extra_path=[str(fake)])
    assert p.returncode == 2 and 'pip install "dy2st[onnx]"' in p.stderr
    assert not os.path.exists(tmp_path / "out.onnx")


def bce(x):
    target = paddle.ones_like(x)
    return paddle.nn.functional.binary_cross_entropy(paddle.nn.functional.sigmoid(x), target)


def test_a_training_only_op_is_refused_as_such(tmp_path):
    with pytest.raises(NotExportableError) as info:
        # (a static batch dim: the loss's shape check reads x.shape, symbolic for a None dim)
        paddle.onnx.export(bce, str(tmp_path / "m"),
                           input_spec=[paddle.static.InputSpec([2, 3], "float32", "x")])
    msg = str(info.value)
    assert "op bce_loss" in msg and "training-only" in msg
    assert f"line {line_of(bce, 'binary_cross_entropy(')}" in msg and HERE in msg
    assert listing(tmp_path) == []
