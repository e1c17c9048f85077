"""Program inputs are named after the function's parameters (read from its code object, in
inspect.signature's order) and typed from the arrays or the given InputSpecs; an InputSpec's own
name wins and names the saved model's input."""
import functools
import inspect
import json
import subprocess
import sys

import numpy as np
import pytest

import dy2st as paddle
from dy2st.jit.static_function import _parameter_names
from dy2st.static import InputSpec


def _all_kinds(a, b, /, c, *args, k, m=1, **kw):
    return a


def _kw_only(*, k):
    return k


@functools.wraps(_all_kinds)
def _wrapped(*args, **kwargs):
    return _all_kinds(*args, **kwargs)


class _Holder:
    def method(self, x, *rest):
        return x


def test_parameter_names_are_those_of_inspect_signature():
    for fn in (_all_kinds, _kw_only, _wrapped, _Holder.method, _Holder().method,
               lambda x, y=2: x, functools.partial(_all_kinds, 1)):
        assert _parameter_names(fn) == list(inspect.signature(fn).parameters), fn


def test_inputs_are_named_after_parameters_and_typed_from_arrays():
    def fn(image, label):
        return image + 1, label

    sf = paddle.jit.to_static(fn)
    sf(paddle.to_tensor(np.zeros((2, 3), "float32")), np.arange(2, dtype="int64"))
    specs = sf.last_input_spec
    assert [(s.name, s.shape, s.dtype) for s in specs] == [
        ("image", (2, 3), paddle.float32), ("label", (2,), paddle.int64)]


def test_a_matching_input_spec_keeps_its_unknown_dims():
    def fn(x):
        return x * 2

    sf = paddle.jit.to_static(fn, input_spec=[InputSpec([None, 3], "float32")])
    sf(paddle.to_tensor(np.ones((4, 3), "float32")))
    assert [(s.name, s.shape) for s in sf.last_input_spec] == [("x", (None, 3))]


class _Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 2)

    def forward(self, x, scale):
        return self.fc(x) * scale


_SPECS = [InputSpec([None, 3], "float32", name="img"), InputSpec([1], "float32")]


def _saved(tmp_path, **kw):
    net = _Net()
    prefix = str(tmp_path / "m")
    paddle.jit.save(net, prefix, _SPECS, **kw)
    return net, prefix


def test_input_spec_name_names_the_saved_input_and_the_parameter_is_the_fallback(tmp_path):
    net, prefix = _saved(tmp_path)
    with open(prefix + ".json") as f:
        inputs = json.load(f)["inputs"]
    assert [i["name"] for i in inputs] == ["img", "scale"]
    loaded = paddle.jit.load(prefix)
    assert "img: float32[None, 3]" in repr(loaded) and "scale: float32[1]" in repr(loaded)
    x, s = np.ones((2, 3), np.float32), np.full([1], 2.0, np.float32)
    expected = net(paddle.to_tensor(x), paddle.to_tensor(s)).numpy()
    np.testing.assert_allclose(loaded(img=x, scale=s).numpy(), expected, rtol=1e-6)
    with pytest.raises(TypeError):
        loaded(x=x, scale=s)


def test_dy2st_inspect_shows_the_spec_name(tmp_path):
    _, prefix = _saved(tmp_path)
    out = subprocess.run([sys.executable, "-m", "dy2st", "inspect", prefix], capture_output=True,
                         text=True, check=True).stdout
    assert "img: float32[None, 3]" in out and "scale: float32[1]" in out


def test_to_static_input_spec_names_survive_a_save_without_specs(tmp_path):
    net = paddle.jit.to_static(_Net(), input_spec=_SPECS)
    net(paddle.ones([2, 3]), paddle.ones([1]))
    paddle.jit.save(net, str(tmp_path / "m"))
    loaded = paddle.jit.load(str(tmp_path / "m"))
    assert "img: float32[None, 3]" in repr(loaded)


def test_a_function_saved_twice_with_other_names_gets_each_name(tmp_path):
    def fn(x):
        return x + 1

    sf = paddle.jit.to_static(fn)
    for name in ("a", "b"):
        paddle.jit.save(sf, str(tmp_path / name), [InputSpec([2], "float32", name=name)])
        with open(str(tmp_path / name) + ".json") as f:
            assert json.load(f)["inputs"][0]["name"] == name


def test_two_inputs_of_one_name_are_refused(tmp_path):
    with pytest.raises(ValueError, match="both named 'img'"):
        paddle.jit.save(_Net(), str(tmp_path / "m"), [_SPECS[0], InputSpec([1], "float32", "img")])


def test_the_onnx_graph_input_takes_the_spec_name(tmp_path):
    onnx = pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    net = _Net()
    paddle.onnx.export(net, str(tmp_path / "m"), _SPECS)
    model = onnx.load(str(tmp_path / "m.onnx"))
    assert [i.name for i in model.graph.input] == ["img", "scale"]
    x, s = np.ones((2, 3), np.float32), np.full([1], 2.0, np.float32)
    session = ort.InferenceSession(str(tmp_path / "m.onnx"), providers=["CPUExecutionProvider"])
    got = session.run(None, {"img": x, "scale": s})[0]
    np.testing.assert_allclose(got, net(paddle.to_tensor(x), paddle.to_tensor(s)).numpy(),
                               rtol=1e-5)
