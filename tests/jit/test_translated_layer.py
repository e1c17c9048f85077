"""TranslatedLayer: calling conventions, input checks, outputs, parameters and description."""
import numpy as np
import pytest

import dy2st
from dy2st import static
from dy2st.format import save_concrete
from dy2st.format.concrete import ConcreteProgram
from dy2st.jit.load import load
from dy2st.jit.translated_layer import InputMismatchError, TranslatedLayer
from dy2st.runtime.pytree import flatten
from dy2st.static import InputSpec, nn as snn


def saved_model(tmp_path, build, specs):
    """Save the program built by build(*inputs) -> result pytree and load it back."""
    prog = static.Program()
    with static.program_guard(prog):
        ins = [static.data(s.name, [None if d is None else d for d in s.shape], s.dtype)
               for s in specs]
        result = build(*ins)
    leaves, tree = flatten(result)
    out = []
    for leaf in leaves:
        if isinstance(leaf, static.Variable):
            prog.fetch_names.append(leaf.name)
            out.append(("var", len(prog.fetch_names) - 1))
        else:
            out.append(("const", leaf))
    save_concrete(ConcreteProgram(prog, specs, tree, out), str(tmp_path / "m"))
    return load(str(tmp_path / "m"))


@pytest.fixture
def affine(tmp_path):
    w = dy2st.Parameter(np.eye(4, 3, dtype=np.float32), name="w")

    def build(x, k):
        y = dy2st.matmul(x, w)
        y = snn.cond(k > 0, lambda: y * 2.0, lambda: y)
        return {"y": y, "k": k, "note": ("scaled", 2)}

    return saved_model(tmp_path, build, [InputSpec([None, 4], "float32", "x"),
                                         InputSpec([], "int64", "k")])


X = np.arange(8, dtype=np.float32).reshape(2, 4)


def test_positional_keyword_and_tensor_inputs(affine):
    expected = X[:, :3] * 2
    out = affine(X, np.array(1))
    assert isinstance(out["y"], dy2st.Tensor)
    np.testing.assert_array_equal(out["y"].numpy(), expected)
    assert out["note"] == ("scaled", 2) and int(out["k"]) == 1
    np.testing.assert_array_equal(affine(k=np.array(0), x=X)["y"].numpy(), X[:, :3])
    np.testing.assert_array_equal(affine(dy2st.to_tensor(X), k=1)["y"].numpy(), expected)


def test_batch_sizes_other_than_any_example(affine):
    for n in (1, 5, 17):
        x = np.ones((n, 4), np.float32)
        assert affine(x, 0)["y"].shape == [n, 3]


@pytest.mark.parametrize("args, kwargs, message", [
    ((X,), {}, "missing 'k' (int64[])"),
    ((X, 1, 2), {}, "takes 2 input(s) (x: float32[None, 4], k: int64[]), got 3"),
    ((np.zeros((3, 7), np.float32), 1), {}, "input 'x' expects float32[None, 4], got float32[3, 7]"),
    ((np.zeros((3, 4)), 1), {}, "input 'x' expects float32[None, 4], got float64[3, 4]"),
    ((np.zeros(4, np.float32), 1), {}, "input 'x' expects float32[None, 4], got float32[4]"),
    ((X, np.array([1])), {}, "input 'k' expects int64[], got int64[1]"),
    ((X, 1.5), {}, "input 'k' expects int64[], got the Python float 1.5"),
    ((X, np.int32(1)), {}, "input 'k' expects int64[], got int32[]"),
    (([[1.0] * 4], 1), {}, "input 'x' expects float32[None, 4], got list"),
    ((X,), {"q": 1}, "no input named 'q'"),
    ((X, 1), {"x": X}, "input 'x' is given twice"),
])
def test_calls_that_do_not_fit_the_specs(affine, args, kwargs, message):
    with pytest.raises(InputMismatchError) as info:
        affine(*args, **kwargs)
    assert message in str(info.value)
    assert isinstance(info.value, TypeError) and isinstance(info.value, ValueError)


def test_parameters_state_dict_and_weights_read_at_run_time(affine):
    (name, p), = affine.named_parameters()
    assert name == "w" and affine.parameters()[0] is p
    assert list(affine.state_dict()) == ["w"]
    affine.set_state_dict({"w": np.full((4, 3), 0.5, np.float32)})
    np.testing.assert_array_equal(affine(X, 0)["y"].numpy(), np.full((2, 3), X.sum(1)[:, None] / 2))
    with pytest.raises(ValueError, match="is float32\\[4, 3\\], got float32\\[2\\]"):
        affine.set_state_dict({"w": np.zeros(2, np.float32)})


def test_modes_description_and_layer_base(affine):
    assert affine.training is False
    assert affine.train() is affine and affine.training
    assert affine.eval().training is False
    assert isinstance(affine, dy2st.nn.Layer)
    assert affine.input_spec == [InputSpec([None, 4], "float32", "x"), InputSpec([], "int64", "k")]
    text = str(affine.program())
    assert "matmul" in text and "cond" in text and "true_block" in text
    r = repr(affine)
    assert "x: float32[None, 4]" in r and "parameters=1" in r


def test_outputs_never_alias_inputs_or_parameters(tmp_path):
    w = dy2st.Tensor(np.ones(3, np.float32), name="w", persistable=True)
    layer = saved_model(tmp_path, lambda x: (x, w * 1.0, dy2st.assign(w)),
                        [InputSpec([3], "float32", "x")])
    x = np.zeros(3, np.float32)
    a, _, c = layer(x)
    a.numpy()[:] = 9
    c.numpy()[:] = 9
    assert x.sum() == 0 and layer.parameters()[0].numpy().sum() == 3


def test_tensor_array_outputs_become_lists_of_tensors(tmp_path):
    def build(x, n):
        arr = dy2st.tensor.create_array("float32")
        i0 = dy2st.zeros([], "int64")

        def body(i, arr):
            return i + 1, dy2st.tensor.array_write(x * i.astype("float32"), i, arr)

        _, arr = snn.while_loop(lambda i, arr: i < n, body, [i0, arr])
        return arr

    layer = saved_model(tmp_path, build, [InputSpec([2], "float32", "x"), InputSpec([], "int64", "n")])
    out = layer(np.array([1.0, 2.0], np.float32), 3)
    assert isinstance(out, list) and len(out) == 3 and all(isinstance(t, dy2st.Tensor) for t in out)
    np.testing.assert_array_equal(out[2].numpy(), [2.0, 4.0])
    assert layer(np.zeros(2, np.float32), 0) == []


def test_a_translated_layer_can_wrap_a_concrete_program_directly(tmp_path):
    prog = static.Program()
    with static.program_guard(prog):
        x = static.data("x", [None], "float32")
        y = x + 1.0
    prog.fetch_names = [y.name]
    layer = TranslatedLayer(ConcreteProgram(prog, [InputSpec([None], "float32", "x")], flatten(y)[1],
                                            [("var", 0)]))
    np.testing.assert_array_equal(layer(np.zeros(2, np.float32)).numpy(), [1.0, 1.0])


NET_SOURCE = '''
import dy2st
import dy2st.nn as nn
import dy2st.nn.functional as F


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.norm = nn.LayerNorm(3)

    def forward(self, x, n):
        h = self.norm(self.fc(x))
        outs = []
        i = 0
        while i < n:
            if h.mean() > 0:
                h = F.relu(h) + 1.0
            else:
                h = F.softmax(h, axis=-1)
            outs.append(h)
            i += 1
            if i > 5:
                break
        if len(outs) == 0:
            return {"h": h, "k": 0}
        return {"h": h[:, ::2], "k": i}
'''

RUN_SAVED = '''
import importlib.util, sys
import numpy as np
import dy2st
assert importlib.util.find_spec("user_net") is None
layer = dy2st.jit.load(sys.argv[1])
cases = np.load(sys.argv[2])
out = {}
for k in range(len(cases.files) // 2):
    r = layer(cases[f"x{k}"], int(cases[f"n{k}"]))
    out[f"h{k}"], out[f"k{k}"] = r["h"].numpy(), np.asarray(r["k"])
    out[f"type{k}"] = type(r["k"]).__name__
np.savez(sys.argv[3], **out)
'''


@pytest.mark.skipif(not hasattr(dy2st.jit, "save"), reason="dy2st.jit.save is not available yet")
def test_a_converted_layer_saved_by_jit_save_runs_in_a_fresh_process(tmp_path, monkeypatch):
    import os
    import subprocess
    import sys
    src = tmp_path / "src"
    src.mkdir()
    (src / "user_net.py").write_text(NET_SOURCE)
    monkeypatch.syspath_prepend(str(src))
    import user_net
    # the module of a temporary folder must not outlive the test under its common name
    del sys.modules["user_net"]
    net = user_net.Net()
    net.eval()
    dy2st.jit.save(net, str(tmp_path / "model" / "net"),
                   input_spec=[InputSpec([None, 4], "float32", "x"), InputSpec([], "int64", "n")])
    rng = np.random.RandomState(0)
    cases = [(rng.randn(b, 4).astype(np.float32), n) for b, n in ((3, 0), (1, 2), (6, 9), (2, 4))]
    np.savez(tmp_path / "cases.npz", **{f"x{k}": x for k, (x, _) in enumerate(cases)},
             **{f"n{k}": np.array(n) for k, (_, n) in enumerate(cases)})
    (tmp_path / "run_saved.py").write_text(RUN_SAVED)
    proc = subprocess.run([sys.executable, str(tmp_path / "run_saved.py"), str(tmp_path / "model" / "net"),
                           str(tmp_path / "cases.npz"), str(tmp_path / "out.npz")], cwd=str(tmp_path),
                          env=dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(
                              os.path.dirname(os.path.abspath(__file__))))),
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    got = np.load(tmp_path / "out.npz")
    for k, (x, n) in enumerate(cases):
        eager = net(dy2st.to_tensor(x), dy2st.to_tensor(n))      # the original, run eagerly
        np.testing.assert_allclose(got[f"h{k}"], eager["h"].numpy(), rtol=1e-5, atol=1e-6)
        assert int(got[f"k{k}"]) == int(eager["k"]) == min(n, 6)
        # a Python int in eager code (a counter the tensor loop carries), and in the loaded model
        assert type(eager["k"]) is int and str(got[f"type{k}"]) == "int"


def test_complex_models_save_their_complex_constants_and_take_python_scalars(tmp_path):
    # z * s + 1.0 on complex values stores the fill value 1+0j ($complex in the JSON); a Python
    # complex, float or int fits a complex spec (no value is lost), a complex never a real one
    model = saved_model(tmp_path, lambda z, s: z * s + 1.0,
                        [InputSpec([2], "complex64", "z"), InputSpec([], "complex64", "s")])
    z = np.array([1 + 1j, 2 - 1j], np.complex64)
    for s in (2 + 3j, 2.0, 2, np.complex64(2 + 3j)):
        np.testing.assert_allclose(model(z, s).numpy(), z * s + 1.0, rtol=1e-6)
    with pytest.raises(InputMismatchError, match="expects int64\\[\\], got the Python complex"):
        saved_model(tmp_path / "r", lambda k: k + 1, [InputSpec([], "int64", "k")])(1j)
