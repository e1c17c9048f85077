"""What `import dy2st` and a first to_static call load (structure, not time: see
benchmarks/cold_start.py): heavy subpackages wait until first used, and every public name still
resolves. Each check runs in a fresh interpreter, since this process has imported everything."""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import dy2st

ROOT = Path(__file__).resolve().parents[1]

# Subpackages and modules that `import dy2st` must not load (each is loaded on first use).
NOT_AT_IMPORT = [
    "dy2st.nn", "dy2st.static", "dy2st.jit", "dy2st.optimizer", "dy2st.io", "dy2st.onnx",
    "dy2st.metric", "dy2st.cli", "dy2st.transformers", "dy2st.tensor", "dy2st.regularizer",
    "gast",
    "dy2st.hapi",
]
# ... nor a first conversion of a small function (saving, loading, layers, graph breaks,
# exporting and the passes the function does not need are not on its path).
NOT_AT_FIRST_CALL = [
    "dy2st.nn", "dy2st.optimizer", "dy2st.io", "dy2st.onnx", "dy2st.cli",
    "dy2st.jit.translated_layer", "dy2st.format.files",
    "dy2st.format.build", "dy2st.jit.graph_break.dispatch",
    "dy2st.jit.graph_break.outline", "dy2st.transformers.loop", "dy2st.transformers.ifelse",
    "dy2st.static.inference_model", "dy2st.static.io", "dy2st.metric",
]


def run_child(code: str, tmp_path: Path) -> dict:
    """Run code in a fresh interpreter from the repository root; it prints one JSON line."""
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=str(tmp_path)))
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_import_dy2st_leaves_heavy_subpackages_unloaded(tmp_path):
    out = run_child("""
        import json, sys
        import numpy
        numpy_loaded = set(sys.modules)
        import dy2st
        print(json.dumps({"loaded": sorted(sys.modules), "numpy": sorted(numpy_loaded)}))
    """, tmp_path)
    loaded = set(out["loaded"])
    assert "dy2st.runtime" in loaded and "dy2st.autograd" in loaded
    assert sorted(m for m in NOT_AT_IMPORT if m in loaded) == []
    # numpy.random only when a random number is first drawn
    if "numpy.random" not in out["numpy"]:
        assert "numpy.random" not in loaded


def test_first_conversion_loads_only_what_it_needs(tmp_path):
    (tmp_path / "user_fn.py").write_text("def f(x):\n    return x + 1\n")
    out = run_child("""
        import json, sys
        import dy2st
        import user_fn
        y = dy2st.jit.to_static(user_fn.f)(dy2st.to_tensor([1.0]))
        print(json.dumps({"loaded": sorted(sys.modules), "y": float(y.numpy()[0]),
                          "programs": dy2st.jit.to_static(user_fn.f).num_programs}))
    """, tmp_path)
    assert out["y"] == 2.0
    loaded = set(out["loaded"])
    assert "dy2st.jit.static_function" in loaded and "dy2st.transformers.pipeline" in loaded
    assert sorted(m for m in NOT_AT_FIRST_CALL if m in loaded) == []


def test_the_first_tensor_that_needs_a_gradient_records_it(tmp_path):
    out = run_child("""
        import json
        import dy2st
        w = dy2st.to_tensor([1.0, 2.0], stop_gradient=False)
        (w * w).sum().backward()
        print(json.dumps({"grad": w.grad.numpy().tolist()}))
    """, tmp_path)
    assert out["grad"] == [2.0, 4.0]


def test_lazy_names_resolve_and_are_listed(tmp_path):
    out = run_child("""
        import json
        import dy2st
        lazy = sorted(dy2st._LAZY)
        listed = set(dir(dy2st))
        kinds = {n: type(getattr(dy2st, n)).__name__ for n in lazy}
        star = {}
        exec("from dy2st import *", star)
        print(json.dumps({"lazy": lazy, "unlisted": sorted(set(lazy) - listed), "kinds": kinds,
                          "star_missing": sorted(n for n in listed
                                                 if not n.startswith("_") and n not in star)}))
    """, tmp_path)
    assert len(out["lazy"]) >= 10
    assert out["unlisted"] == [] and out["star_missing"] == []
    assert out["kinds"]["nn"] == "module" and out["kinds"]["save"] == "function"
    assert out["kinds"]["ParamAttr"] == "type"


@pytest.mark.parametrize("name", sorted(dy2st._LAZY))
def test_lazy_name_is_the_object_its_module_defines(name):
    module, _, attribute = dy2st._LAZY[name].partition(":")
    import importlib
    owner = importlib.import_module(f"dy2st.{module}")
    assert getattr(dy2st, name) is (getattr(owner, attribute) if attribute else owner)


def test_unknown_attribute_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'not_a_dy2st_name'"):
        dy2st.not_a_dy2st_name  # noqa: B018


def test_submodules_named_like_functions_keep_the_function():
    # importing the submodule binds it on its package; the public function must still win
    import dy2st.jit.graph_break.dump_explain  # noqa: F401 - imports graph_break/explain.py
    import dy2st.jit.load  # noqa: F401
    from dy2st.jit import graph_break
    assert callable(graph_break.explain) and graph_break.explain.__module__.endswith("explain")
    assert type(dy2st.jit.load).__name__ == "function"




SUBMODULE_NAMES = """
    import importlib, json, pkgutil, sys
    import dy2st, dy2st.nn, dy2st.static, dy2st.static.nn, dy2st.vision, dy2st.jit
    packages = (dy2st, dy2st.static, dy2st.vision, dy2st.nn, dy2st.jit)
    names = [(p, i.name) for p in packages for i in pkgutil.iter_modules(p.__path__)
             if i.name in getattr(p, "__all__", ())]
    if sys.argv[-1] == "submodules first":
        for p, name in names:
            importlib.import_module(f"{p.__name__}.{name}")
    print(json.dumps({f"{p.__name__}.{name}": type(getattr(p, name)).__name__
                      for p, name in names}))
"""


def test_no_public_name_is_shadowed_by_a_submodule_import(tmp_path):
    """Importing a submodule sets the package attribute of its name, so a public name served
    lazily from a submodule of the same name became that module when the submodule was
    imported first (paddle.static.py_func was a module after paddle.static.nn.py_func)."""
    names_first = run_child(SUBMODULE_NAMES, tmp_path)
    modules_first = run_child(SUBMODULE_NAMES.replace("sys.argv[-1]", "'submodules first'"),
                              tmp_path)
    assert names_first["dy2st.static.nn"] == "module"
    assert modules_first == names_first


def test_static_functions_stay_functions_after_static_nn_is_used():
    dy2st.static.nn.py_func
    assert callable(dy2st.static.py_func) and callable(dy2st.static.auc)
