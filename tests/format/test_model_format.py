"""format: round trips in a fresh process, every refusal, and atomic overwrites."""
import hashlib
import json
import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import dy2st
from dy2st import static
from dy2st.format import FORMAT_VERSION, ModelFormatError, load_concrete, save_concrete
from dy2st.format.concrete import ConcreteProgram
from dy2st.jit.load import load
from dy2st.runtime.executor import compile_program
from dy2st.runtime.pytree import flatten
from dy2st.runtime.registry import apply
from dy2st.runtime.side_effects import assert_true
from dy2st.static import InputSpec, nn as snn

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def concrete_of(program, inputs, result):
    """A ConcreteProgram returning `result` (a pytree of Variables and Python constants)."""
    leaves, tree = flatten(result)
    out, fetch = [], []
    for leaf in leaves:
        if isinstance(leaf, static.Variable):
            if leaf.name not in fetch:
                fetch.append(leaf.name)
            out.append(("var", fetch.index(leaf.name)))
        else:
            out.append(("const", leaf))
    program.fetch_names = fetch
    return ConcreteProgram(program, inputs, tree, out)


def control_flow_model():
    """cond + while + tensor array + nested cond + a captured parameter; batch dim unknown."""
    w = dy2st.Parameter(np.arange(12, dtype=np.float32).reshape(4, 3) / 10, name="w")
    b = dy2st.Tensor(np.array([1.0, -2.0, 0.5], np.float32), name="b", persistable=True)
    prog = static.Program()
    with static.program_guard(prog):
        x = static.data("x", [None, 4], "float32")
        n = static.data("n", [], "int64")
        y = dy2st.matmul(x, w) + b
        z = snn.cond(y.sum() > 0, lambda: y * 2.0, lambda: (y - 1.0).abs())
        arr = dy2st.tensor.create_array("float32")

        def body(i, z, arr):
            arr = dy2st.tensor.array_write(z, i, arr)
            z = snn.cond(i % 2 == 0, lambda: z + 1.0, lambda: z * 0.5)
            return i + 1, z, arr

        i0 = dy2st.zeros([], "int64")
        i, z, arr = snn.while_loop(lambda i, z, arr: i < n, body, [i0, z, arr])
        count = dy2st.tensor.array_length(arr)
        head = z[:, :2]
    specs = [InputSpec([None, 4], "float32", "x"), InputSpec([], "int64", "n")]
    return concrete_of(prog, specs, {"z": z, "extra": (count, head, "tag", 3, None)})


def run_original(concrete, arrays):
    p = concrete.program
    return compile_program(p, p.feed_names, p.fetch_names)(arrays)


CASES = [  # batch sizes other than any traced one, both branches, several trip counts
    (np.full((3, 4), 1.0, np.float32), 0),
    (np.full((1, 4), -5.0, np.float32), 1),
    (np.linspace(-2, 2, 28, dtype=np.float32).reshape(7, 4), 4),
    (np.full((5, 4), -5.0, np.float32), 3),
]


SUBPROCESS_SCRIPT = textwrap.dedent("""
    import importlib.util, sys
    import numpy as np
    assert importlib.util.find_spec("test_model_format") is None, "the test module is reachable"
    import dy2st
    from dy2st.jit.load import load
    layer = load(sys.argv[1])
    cases = np.load(sys.argv[2], allow_pickle=False)
    out = {}
    for k in range(len(cases.files) // 2):
        r = layer(cases[f"x{k}"], n=int(cases[f"n{k}"]))
        out[f"z{k}"] = r["z"].numpy()
        out[f"count{k}"] = r["extra"][0].numpy()
        out[f"head{k}"] = r["extra"][1].numpy()
        assert r["extra"][2:] == ("tag", 3, None), r["extra"][2:]
    np.savez(sys.argv[3], **out)
""")


def test_roundtrip_in_a_fresh_process_matches_the_original(tmp_path):
    concrete = control_flow_model()
    save_concrete(concrete, str(tmp_path / "model" / "net"))
    np.savez(tmp_path / "cases.npz", **{f"x{k}": x for k, (x, _) in enumerate(CASES)},
             **{f"n{k}": np.array(n) for k, (_, n) in enumerate(CASES)})
    script = tmp_path / "script.py"
    script.write_text(SUBPROCESS_SCRIPT)
    env = dict(os.environ, PYTHONPATH=REPO)
    proc = subprocess.run([sys.executable, str(script), str(tmp_path / "model" / "net"),
                           str(tmp_path / "cases.npz"), str(tmp_path / "out.npz")],
                          cwd=str(tmp_path), env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    got = np.load(tmp_path / "out.npz")
    for k, (x, n) in enumerate(CASES):
        z, count, head = run_original(concrete, [x, np.array(n)])
        np.testing.assert_allclose(got[f"z{k}"], z, rtol=1e-6)
        assert int(got[f"count{k}"]) == n == int(count)
        np.testing.assert_allclose(got[f"head{k}"], head, rtol=1e-6)
    assert len({int(got[f"count{k}"]) for k in range(len(CASES))}) > 2   # trip counts differ


def test_files_and_header(tmp_path):
    save_concrete(control_flow_model(), str(tmp_path / "m"), extra={"note": "hi"})
    files = sorted(os.listdir(tmp_path))
    assert len(files) == 3 and files[1:] == ["m.json", "m.lock"] and files[0].endswith(".npz")
    doc = json.loads((tmp_path / "m.json").read_text())
    # version 1 unless an argument is a container of tensors (see test_save_containers.py)
    assert doc["format"] == "dy2st.model" and doc["format_version"] == 1
    assert doc["dy2st_version"] == dy2st.__version__
    assert doc["parameters_file"]["file"] == files[0]
    assert doc["inputs"][0] == {"name": "x", "var": "x", "shape": [None, 4], "dtype": "float32"}
    assert {p["name"]: p["trainable"] for p in doc["parameters"]} == {"w": True, "b": False}
    assert doc["extra"] == {"note": "hi"}
    model = load(str(tmp_path / "m"))
    assert model.extra == {"note": "hi"}
    assert isinstance(model.parameters()[0], dy2st.Parameter)


def test_saved_dtypes_are_plain_names(tmp_path):
    # dtypes print as Paddle's (paddle.float32); the file keeps the names it always held
    save_concrete(control_flow_model(), str(tmp_path / "m"))
    text = (tmp_path / "m.json").read_text()
    assert "paddle." not in text and "DataType" not in text

    def dtypes(node):
        if isinstance(node, dict):
            for k, v in node.items():
                if k == "dtype":
                    yield v
                yield from dtypes(v)
        elif isinstance(node, list):
            for v in node:
                yield from dtypes(v)
    found = set(dtypes(json.loads(text)))
    assert "float32" in found and found - {None} <= {"float32", "bool", "int64", "int32"}


def test_load_accepts_the_json_path(tmp_path):
    save_concrete(control_flow_model(), str(tmp_path / "m"))
    assert load_concrete(str(tmp_path / "m.json")).inputs[0].name == "x"


def test_attr_tuples_nonfinite_floats_and_arrays_round_trip(tmp_path):
    prog = static.Program()
    with static.program_guard(prog):
        x = static.data("x", [2, 3], "float32")
        s = apply("sum", [x], {"axis": (0, 1), "keepdim": False, "dtype": None})
        c = apply("clip", [x], {"min": float("-inf"), "max": np.float32(0.5)})
        d = apply("clip", [x], {"min": np.array(0.25, np.float32), "max": None})
    concrete = concrete_of(prog, [InputSpec([2, 3], "float32", "x")], [s, c, d])
    save_concrete(concrete, str(tmp_path / "m"))
    loaded = load_concrete(str(tmp_path / "m"))
    ops = loaded.program.global_block().ops
    assert ops[0].attrs["axis"] == (0, 1) and isinstance(ops[0].attrs["axis"], tuple)
    assert ops[1].attrs["min"] == float("-inf")
    assert isinstance(ops[2].attrs["min"], np.ndarray) and ops[2].attrs["min"].dtype == np.float32
    x = np.arange(6, dtype=np.float32).reshape(2, 3) / 4
    for a, b in zip(run_original(concrete, [x]), run_original(loaded, [x])):
        np.testing.assert_array_equal(a, b)


def test_origins_are_kept_and_run_time_errors_point_at_the_user_line(tmp_path):
    prog = static.Program()
    with static.program_guard(prog):
        x = static.data("x", [None], "float32")
        assert_true(dy2st.all(x > 0), "x must be positive")   # ASSERT LINE
        y = x * 2.0
    concrete = concrete_of(prog, [InputSpec([None], "float32", "x")], y)
    save_concrete(concrete, str(tmp_path / "m"))
    layer = load(str(tmp_path / "m"))
    op = [o for o in layer.program().global_block().ops if o.type == "assert"][0]
    assert op.origin.file == __file__ and "ASSERT LINE" in op.origin.source
    np.testing.assert_array_equal(layer(np.ones(3, np.float32)).numpy(), [2, 2, 2])
    with pytest.raises(AssertionError) as info:
        layer(-np.ones(2, np.float32))
    assert "x must be positive" in str(info.value)
    assert f'line {op.origin.line}' in str(info.value) and "test_model_format.py" in str(info.value)


# ----------------------------------------------------------------------------- refusals
@pytest.fixture
def saved(tmp_path):
    prefix = str(tmp_path / "m")
    save_concrete(control_flow_model(), prefix)
    return prefix


def _doc(prefix):
    with open(prefix + ".json") as f:
        return json.load(f)


def _write_doc(prefix, doc):
    with open(prefix + ".json", "w") as f:
        json.dump(doc, f)


def _npz_path(prefix):
    return os.path.join(os.path.dirname(prefix), _doc(prefix)["parameters_file"]["file"])


def _replace_npz(prefix, arrays, table=None):
    """Write a new npz for the model and record its checksum, so that later checks are reached."""
    path = _npz_path(prefix)
    np.savez(path, **arrays)
    doc = _doc(prefix)
    with open(path, "rb") as f:
        doc["parameters_file"]["sha256"] = hashlib.sha256(f.read()).hexdigest()
    if table is not None:
        doc["parameters"] = table
    _write_doc(prefix, doc)


def _refused(prefix, *fragments):
    with pytest.raises(ModelFormatError) as info:
        load(prefix)
    for frag in fragments:
        assert frag in str(info.value), str(info.value)
    return str(info.value)


def test_missing_json(tmp_path):
    _refused(str(tmp_path / "nothing"), "nothing.json", "no such model file")


def test_missing_npz(saved):
    os.remove(_npz_path(saved))
    _refused(saved, ".npz", "parameters file", "is missing")


def test_truncated_json(saved):
    text = open(saved + ".json").read()
    with open(saved + ".json", "w") as f:
        f.write(text[: len(text) // 2])
    _refused(saved, "m.json", "is not valid JSON (truncated or corrupt?)")


def test_json_that_is_not_a_model(saved):
    _write_doc(saved, {"format": "something-else"})
    _refused(saved, "m.json", "is not a dy2st model", "something-else")
    with open(saved + ".json", "wb") as f:
        f.write(b"\xff\xfe\x00binary")
    _refused(saved, "m.json", "not UTF-8")


def test_truncated_npz(saved):
    path = _npz_path(saved)
    data = open(path, "rb").read()
    with open(path, "wb") as f:
        f.write(data[: len(data) // 2])
    _refused(saved, path, "does not match the checksum")


def test_corrupt_npz_with_a_matching_checksum(saved):
    path = _npz_path(saved)
    data = open(path, "rb").read()
    with open(path, "wb") as f:
        f.write(data[:200])                       # still starts like a zip archive
    doc = _doc(saved)
    doc["parameters_file"]["sha256"] = hashlib.sha256(data[:200]).hexdigest()
    _write_doc(saved, doc)
    _refused(saved, path, "cannot be read as an .npz")


def test_foreign_file_as_npz(saved):
    with open(_npz_path(saved), "w") as f:
        f.write("hello")
    _refused(saved, "is not an .npz archive")


def test_object_arrays_are_refused(saved):
    arrays = {"arr_0": np.array([{"a": 1}], dtype=object), "arr_1": np.zeros(3, np.float32)}
    path = _npz_path(saved)
    np.savez(path, **arrays)        # numpy pickles object arrays into an npz by default
    doc = _doc(saved)
    doc["parameters_file"]["sha256"] = hashlib.sha256(open(path, "rb").read()).hexdigest()
    _write_doc(saved, doc)
    _refused(saved, path, "allow_pickle=False")


def test_missing_and_extra_parameter_arrays(saved):
    with np.load(_npz_path(saved)) as npz:
        arrays = {k: npz[k] for k in npz.files}
    _replace_npz(saved, dict(arrays, arr_9=np.zeros(1, np.float32)))
    _refused(saved, "holds arrays ['arr_9']")
    del arrays["arr_1"]
    _replace_npz(saved, arrays)
    _refused(saved, "lacks the parameter arrays ['arr_1']")


def test_parameter_shape_mismatch(saved):
    arrays = {"arr_0": np.zeros((3, 3), np.float32), "arr_1": np.zeros(3, np.float32)}
    _replace_npz(saved, arrays)
    _refused(saved, "parameter 'w' is float32[3, 3]", "says float32[4, 3]")
    table = _doc(saved)["parameters"]
    table[0]["shape"] = [3, 3]
    _replace_npz(saved, arrays, table)       # npz and table agree, the graph does not
    _refused(saved, "parameter 'w' is float32[3, 3] in the parameters file but float32[4, 3] "
                    "in the graph")


def test_parameter_dtype_mismatch(saved):
    arrays = {"arr_0": np.zeros((4, 3), np.float64), "arr_1": np.zeros(3, np.float32)}
    table = _doc(saved)["parameters"]
    table[0]["dtype"] = "float64"
    _replace_npz(saved, arrays, table)
    _refused(saved, "parameter 'w' is float64[4, 3]", "but float32[4, 3] in the graph")


def test_unknown_op_type(saved):
    doc = _doc(saved)
    doc["program"]["blocks"][0]["ops"][0]["type"] = "frobnicate"
    _write_doc(saved, doc)
    _refused(saved, "m.json", "unknown op type 'frobnicate'")


def test_newer_format_version(saved):
    doc = _doc(saved)
    doc["format_version"] = FORMAT_VERSION + 1
    doc["dy2st_version"] = "9.0"
    _write_doc(saved, doc)
    _refused(saved, f"format version {FORMAT_VERSION + 1}", "dy2st 9.0",
             f"reads format versions up to {FORMAT_VERSION}")


@pytest.mark.parametrize("edit, message", [
    (lambda d: d["program"]["blocks"][0]["ops"][0]["inputs"].__setitem__(0, "nope"),
     "input 'nope' is not a variable of block 0"),
    (lambda d: d["program"]["blocks"][0]["ops"][0]["attrs"].__setitem__("a=1)\nimport os#", 1),
     "is not a Python identifier"),
    (lambda d: d["program"]["blocks"][0]["ops"][0]["attrs"].__setitem__("extra", 1),
     "do not fit the matmul kernel"),
    (lambda d: d["program"]["blocks"][0]["ops"][0]["attrs"].__setitem__("transpose_x", {"$x": 1}),
     "unknown or malformed marker object '$x'"),
    (lambda d: d["program"]["blocks"][0]["vars"][0].__setitem__("name", 5),
     "expected str, got int"),
    (lambda d: d["program"]["blocks"][0]["vars"][0].__setitem__("dtype", "complex32"),
     "unknown dtype 'complex32'"),
    (lambda d: d["parameters_file"].__setitem__("file", "../elsewhere.npz"),
     "must be a plain .npz file name"),
    (lambda d: d["program"]["blocks"][1].__setitem__("parent", 3),
     "bad block index"),
    (lambda d: d["program"]["fetch_names"].append("ghost"),
     "feed/fetch 'ghost' is not a variable"),
    (lambda d: d["outputs"]["leaves"].pop(),
     "leaves but"),
    (lambda d: d["inputs"][0].__setitem__("shape", [None, 5]),
     "does not fit feed variable 'x'"),
])
def test_inconsistent_graphs_are_refused(saved, edit, message):
    doc = _doc(saved)
    edit(doc)
    _write_doc(saved, doc)
    _refused(saved, message)


def test_duplicate_json_keys_are_refused(saved):
    text = open(saved + ".json").read()
    with open(saved + ".json", "w") as f:
        f.write(text.replace('"format": "dy2st.model"', '"format": "dy2st.model", "format": "x"', 1))
    _refused(saved, "duplicate key")


class _Marker:
    """Unpickling this creates a file: proof that a loader ran pickle code."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


@pytest.mark.parametrize("target", ["json", "npz", "prefix"])
def test_pickles_under_the_model_name_are_never_unpickled(saved, tmp_path, target):
    marker = tmp_path / "UNPICKLED"
    payload = pickle.dumps(_Marker(str(marker)), protocol=4)
    path = {"json": saved + ".json", "npz": _npz_path(saved), "prefix": saved + ".pkl"}[target]
    with open(path, "wb") as f:
        f.write(payload)
    message = _refused(saved if target != "prefix" else path, "pickle")
    assert path in message
    assert not marker.exists()


# ----------------------------------------------------------------------------- saving
def _model_b():
    prog = static.Program()
    w = dy2st.Tensor(np.full((4, 3), 7.0, np.float32), name="w", persistable=True)
    with static.program_guard(prog):
        x = static.data("x", [None, 4], "float32")
        y = dy2st.matmul(x, w)
    return concrete_of(prog, [InputSpec([None, 4], "float32", "x")], y)


def test_overwrite_replaces_the_model_and_removes_the_old_parameters(saved):
    save_concrete(_model_b(), saved)
    files = os.listdir(os.path.dirname(saved))
    assert len([f for f in files if f.endswith(".npz")]) == 1 and len(files) == 3
    out = load(saved)(np.ones((2, 4), np.float32))
    np.testing.assert_array_equal(out.numpy(), np.full((2, 3), 28.0, np.float32))


def test_interrupted_overwrite_leaves_the_old_model_loadable(saved, monkeypatch):
    x = np.ones((2, 4), np.float32)
    before = load(saved)(x, 2)["z"].numpy()
    real_replace = os.replace
    calls = []

    def crash_after_first(src, dst):
        calls.append(dst)
        if len(calls) > 1:
            raise OSError("simulated crash")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", crash_after_first)
    with pytest.raises(OSError, match="simulated crash"):
        save_concrete(_model_b(), saved)
    monkeypatch.setattr(os, "replace", real_replace)
    assert calls[0].endswith(".npz") and calls[1].endswith("m.json")
    np.testing.assert_array_equal(load(saved)(x, 2)["z"].numpy(), before)
    leftovers = [f for f in os.listdir(os.path.dirname(saved)) if f.endswith(".tmp")]
    assert leftovers == []


def test_save_refuses_values_json_cannot_hold(tmp_path):
    prog = static.Program()
    with static.program_guard(prog):
        x = static.data("x", [2], "float32")
        y = apply("scale", [x], {"scale": object(), "bias": 0.0, "bias_after_scale": True})
    with pytest.raises(ModelFormatError, match="cannot be stored"):
        save_concrete(concrete_of(prog, [InputSpec([2], "float32", "x")], y), str(tmp_path / "m"))
    assert os.listdir(tmp_path) == []


def _unsqueezed_total(x):
    return dy2st.unsqueeze(x.sum(), [0, 1]) * x


def test_unsqueeze_of_several_axes_saves_and_loads(tmp_path):
    """Each listed axis adds an output dim: axis 1 of a 0-d input's unsqueeze([0, 1]) is valid
    (the attribute check refused it, so jit.save failed, e.g. on a backward's gradient)."""
    sf = dy2st.jit.to_static(_unsqueezed_total, input_spec=[InputSpec([None, 3], "float32")])
    dy2st.jit.save(sf, str(tmp_path / "m"))
    x = dy2st.to_tensor(np.arange(6, dtype="float32").reshape(2, 3))
    got = dy2st.jit.load(str(tmp_path / "m"))(x)
    np.testing.assert_allclose(got.numpy(), _unsqueezed_total(x).numpy())
