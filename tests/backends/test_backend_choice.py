"""Choosing a backend: to_static(backend=...), jit.load(backend=...), $DY2ST_BACKEND, and the
errors for unknown names and a missing jax."""
import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import dy2st as paddle
from dy2st.runtime.executor import CompiledProgram

ROOT = Path(__file__).resolve().parents[2]
HAS_JAX = importlib.util.find_spec("jax") is not None
needs_jax = pytest.mark.skipif(not HAS_JAX, reason="jax is not installed (pip install 'dy2st[xla]')")


def double(x):
    return x * 2.0 + 1.0


def test_default_and_numpy_keep_the_numpy_executor(monkeypatch):
    monkeypatch.delenv("DY2ST_BACKEND", raising=False)
    x = paddle.ones([2, 3])
    for backend in (None, "numpy", "NumPy"):
        sf = paddle.jit.to_static(double, backend=backend)
        np.testing.assert_allclose(sf(x).numpy(), double(x).numpy())
        assert sf.backend == "numpy"
        assert isinstance(sf._last.compiled, CompiledProgram)


def test_unknown_backend_lists_the_known_ones():
    with pytest.raises(ValueError) as info:
        paddle.jit.to_static(double, backend="cinn")
    text = str(info.value)
    assert "'cinn'" in text and "'numpy'" in text and "'xla'" in text


def test_unknown_backend_from_the_environment_names_the_variable(monkeypatch):
    monkeypatch.setenv("DY2ST_BACKEND", "tpu9")
    with pytest.raises(ValueError, match=r"DY2ST_BACKEND"):
        paddle.jit.to_static(double)


def test_backend_must_be_a_string():
    with pytest.raises(TypeError, match="backend"):
        paddle.jit.to_static(double, backend=3)


def test_xla_without_jax_says_how_to_install_it(tmp_path):
    # a child interpreter where `import jax` finds nothing
    (tmp_path / "jax").mkdir()
    code = textwrap.dedent("""
        import importlib.util, sys
        real = importlib.util.find_spec
        importlib.util.find_spec = lambda name, *a: None if name == "jax" else real(name, *a)
        import dy2st as paddle
        try:
            paddle.jit.to_static(lambda x: x, backend="xla")
        except ImportError as e:
            print("IMPORT-ERROR", e)
    """)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert 'pip install "dy2st[xla]"' in out.stdout, out.stdout + out.stderr


@needs_jax
def test_environment_variable_sets_the_default(monkeypatch):
    monkeypatch.setenv("DY2ST_BACKEND", "xla")
    sf = paddle.jit.to_static(double)
    x = paddle.to_tensor(np.arange(6, dtype="float32").reshape(2, 3))
    np.testing.assert_allclose(sf(x).numpy(), double(x).numpy())
    assert sf.backend == "xla"
    assert type(sf._last.compiled).__name__ == "XlaProgram"
    # an explicit choice wins over the environment
    assert paddle.jit.to_static(double, backend="numpy").backend == "numpy"


@needs_jax
def test_layer_and_method_keep_the_backend():
    layer = paddle.nn.Linear(3, 2)
    static = paddle.jit.to_static(layer, backend="xla")
    x = paddle.ones([4, 3])
    out = static(x)
    assert layer.forward.backend == "xla"
    np.testing.assert_allclose(out.numpy(), x.numpy() @ layer.weight.numpy() + layer.bias.numpy(),
                               rtol=1e-6)


@needs_jax
def test_jit_load_runs_a_saved_model_on_xla(tmp_path):
    layer = paddle.nn.Sequential(paddle.nn.Linear(4, 8), paddle.nn.ReLU(), paddle.nn.Linear(8, 2))
    layer.eval()
    path = str(tmp_path / "model")
    paddle.jit.save(layer, path, input_spec=[paddle.static.InputSpec([None, 4], "float32")])
    x = paddle.to_tensor(np.random.default_rng(0).standard_normal((5, 4)).astype("float32"))
    expected = layer(x).numpy()
    loaded = paddle.jit.load(path, backend="xla")
    with paddle.no_grad():
        np.testing.assert_allclose(loaded(x).numpy(), expected, rtol=1e-5, atol=1e-6)
    assert type(loaded._compiled).__name__ == "XlaProgram"
    # with gradients on (fine-tuning a loaded model), the training programs run on XLA too
    out = loaded(x)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5, atol=1e-6)
    out.sum().backward()
    grad_programs = loaded._training_entry.grad_state.programs.values()
    assert all(type(gp.backward).__name__ == "XlaProgram" for gp in grad_programs)
    with pytest.raises(ValueError, match="known backends"):
        paddle.jit.load(path, backend="gpu")


def test_only_the_xla_package_imports_jax():
    offenders = []
    for path in (ROOT / "dy2st").rglob("*.py"):
        rel = path.relative_to(ROOT / "dy2st").as_posix()
        if rel.startswith("backends/xla/"):
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            words = line.strip().split()
            if words[:1] in (["import"], ["from"]) and len(words) > 1 and \
                    words[1].split(".")[0] == "jax":
                offenders.append(f"{rel}: {line.strip()}")
    assert offenders == []


def test_import_dy2st_and_a_numpy_to_static_do_not_load_jax():
    code = textwrap.dedent("""
        import sys, dy2st as paddle
        f = paddle.jit.to_static(lambda x: x + 1)
        f(paddle.ones([2]))
        print("jax" in sys.modules, "dy2st.backends.xla" in sys.modules)
    """)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         timeout=120, env={k: v for k, v in os.environ.items()
                                           if k != "DY2ST_BACKEND"})
    assert out.stdout.split() == ["False", "False"], out.stderr
