"""A forward that updates a buffer (`paddle.assign(h, output=self.buf)`, on one path of a tensor
`if` and read on the other): a jit.load'ed model carries the new value into its next call, as
eager code, to_static and Paddle 3.3.1's loaded models do (it read the value of save time on
every call before); the model file lists the writes (`persistable_writes`, format version 3)."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.format import ModelFormatError
from dy2st.static import InputSpec
from tests.support import model_doc, write_model_doc

SPEC = [InputSpec([None, 3], "float32")]


class Remember(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 3)
        self.register_buffer("last", paddle.zeros([3]))

    def forward(self, x):
        h = self.fc(x)
        if h.mean() > 0:
            paddle.assign(h.mean(axis=0), output=self.last)
            return h
        return h + self.last


def _inputs():
    return [np.full((2, 3), v, "float32") for v in (-1.0, 1.0, -2.0, 3.0, -1.0, 0.5)]


def _fresh():
    paddle.seed(4)
    m = Remember()
    m.eval()
    return m


def _run(call):
    return [call(paddle.to_tensor(a)).numpy() for a in _inputs()]


def _buffer(loaded):
    (name,) = [k for k in loaded.state_dict() if k.endswith(".last")]
    return loaded.state_dict()[name]


def _save(tmp_path, name="m"):
    paddle.jit.save(_fresh(), str(tmp_path / name), input_spec=SPEC)
    return str(tmp_path / name)


def test_a_loaded_model_carries_the_buffer_across_calls(tmp_path):
    want = _run(_fresh())
    positive = [bool(w.mean() > 0) for w in want]
    assert True in positive and False in positive[positive.index(True):]
    for full_graph in (True, False):
        got = _run(paddle.jit.to_static(_fresh(), full_graph=full_graph))
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-6)
    loaded = paddle.jit.load(_save(tmp_path))
    for g, w in zip(_run(loaded), want):
        np.testing.assert_allclose(g, w, rtol=1e-6)
    # a loaded model saved again keeps its writes (and the value its calls left)
    paddle.jit.save(loaded, str(tmp_path / "again"))
    again = paddle.jit.load(str(tmp_path / "again"))
    np.testing.assert_allclose(again.parameters()[-1].numpy(), loaded.parameters()[-1].numpy())
    assert model_doc(tmp_path / "again")["persistable_writes"]


def test_a_fine_tuning_call_updates_the_buffer_too(tmp_path):
    eager = _fresh()
    loaded = paddle.jit.load(_save(tmp_path))
    loaded.train()
    for a in _inputs():
        x = paddle.to_tensor(a, stop_gradient=False)
        got = loaded(x)
        np.testing.assert_allclose(got.numpy(), eager(paddle.to_tensor(a)).numpy(), rtol=1e-6)
        (got * got).sum().backward()
    np.testing.assert_allclose(_buffer(loaded).numpy(), eager.last.numpy(), rtol=1e-6)


def test_the_file_lists_the_writes_as_format_version_3(tmp_path):
    doc = model_doc(_save(tmp_path))
    assert doc["format_version"] == 3
    (write,) = doc["persistable_writes"]
    assert write["param"].endswith(".last") and write["value"] in doc["program"]["fetch_names"]


def _corrupt(tmp_path, edit):
    prefix = _save(tmp_path)
    doc = model_doc(prefix)
    edit(doc)
    write_model_doc(prefix, doc)
    return prefix


@pytest.mark.parametrize("edit, fragment", [
    (lambda d: d["persistable_writes"][0].__setitem__("param", "nope"), "not a parameter"),
    (lambda d: d["persistable_writes"].append(dict(d["persistable_writes"][0])), "written twice"),
    (lambda d: d["persistable_writes"][0].__setitem__("value", "x"), "not a fetched variable"),
    (lambda d: d["persistable_writes"][0].__setitem__("value", d["program"]["fetch_names"][0]),
     "does not fit the parameter"),
    (lambda d: d["persistable_writes"][0].__setitem__("code", "os.system"), "expected {'param'"),
    (lambda d: d.__setitem__("persistable_writes", {"last": 1}), "persistable_writes"),
    (lambda d: d.__setitem__("format_version", 2), "not part of format version 2"),
])
def test_a_hostile_write_is_refused_naming_the_file(tmp_path, edit, fragment):
    prefix = _corrupt(tmp_path, edit)
    with pytest.raises(ModelFormatError, match=fragment) as info:
        paddle.jit.load(prefix)
    assert "m.json" in str(info.value)


def test_a_file_without_the_writes_loads_as_before(tmp_path):
    """An older file (version 2, no persistable_writes) reads its buffer's saved value."""
    prefix = _corrupt(tmp_path, lambda d: (d.pop("persistable_writes"),
                                           d.__setitem__("format_version", 2)))
    loaded = paddle.jit.load(prefix)
    before = _buffer(loaded).numpy().copy()
    _run(loaded)
    np.testing.assert_array_equal(_buffer(loaded).numpy(), before)


class RunningMean(paddle.nn.Layer):
    """A running mean kept by `buf.set_value(expr)` in forward (audit round 5: a traced value
    given to set_value failed in one graph, "numpy cannot use the symbolic tensor")."""

    def __init__(self):
        super().__init__()
        self.register_buffer("mean", paddle.zeros([3]))

    def forward(self, x):
        self.mean.set_value(self.mean * 0.5 + x.mean(0) * 0.5)
        return x - self.mean


@pytest.mark.parametrize("full_graph", [True, False])
def test_set_value_of_a_traced_value_updates_the_buffer_without_a_gradient(full_graph):
    eager, layer = RunningMean(), RunningMean()
    static = paddle.jit.to_static(layer, full_graph=full_graph)
    for k, data in enumerate(_inputs()[:4]):
        xs = [paddle.to_tensor(data * (k + 1), stop_gradient=False) for _ in range(2)]
        want, got = eager(xs[0]), static(xs[1])
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
        np.testing.assert_allclose(layer.mean.numpy(), eager.mean.numpy(), rtol=1e-6)
        want.sum().backward()
        got.sum().backward()
        # eagerly set_value records nothing: x's gradient is the identity's
        np.testing.assert_allclose(xs[1].grad.numpy(), xs[0].grad.numpy())


def test_set_value_of_a_traced_value_of_another_shape_is_refused():
    class Wrong(RunningMean):
        def forward(self, x):
            self.mean.set_value(x)
            return x

    with pytest.raises(ValueError, match=r"set_value: shape \[2, 3\] does not match"):
        paddle.jit.to_static(Wrong(), full_graph=True)(paddle.to_tensor(_inputs()[0]))
