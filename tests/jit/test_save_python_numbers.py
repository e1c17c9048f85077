"""Numbers read from tensors and returned (`.item()`, `float(t)`, `int(t)`, `bool(t)`,
`.tolist()`, also nested in tuples and dicts): a jit.load'ed model returns the Python numbers
eager code and to_static return, not 0-d tensors (issue 24 item 2); the model file marks those
leaves (format version 3) and a hostile mark is refused naming the file."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.format import ModelFormatError
from dy2st.static import InputSpec
from tests.support import model_doc, write_model_doc

SPEC = [InputSpec([None, 3], "float32")]


def numbers(x):
    s = x.sum()
    return (x * 2.0, s.item(), float(x.max()), int(x.shape[0] + s), bool(s > 0),
            {"rows": x[0].tolist(), "pair": (x.mean().item(), int(x[0, 0] > 0))})


class Scorer(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 2)

    def forward(self, x):
        h = self.fc(x)
        if h.mean() > 0:
            return h, h.sum().item()
        return h * -1.0, float(h.min())


def _inputs():
    rng = np.random.default_rng(3)
    return [rng.standard_normal((n, 3)).astype("float32") * sign
            for n, sign in ((2, 1.0), (3, -1.0), (1, 4.0), (4, -0.5))]


def _same(got, want):
    """Equal values of the same Python types; tensors compared by value and dtype."""
    assert type(got) is type(want), (got, want)
    if isinstance(want, (list, tuple)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
    elif isinstance(want, dict):
        assert list(got) == list(want)
        for k in want:
            _same(got[k], want[k])
    elif isinstance(want, paddle.Tensor):
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    elif isinstance(want, float):
        assert got == pytest.approx(want, rel=1e-6)
    else:
        assert got == want


def _loaded(target, tmp_path, name="m"):
    paddle.jit.save(target, str(tmp_path / name), input_spec=SPEC)
    return paddle.jit.load(str(tmp_path / name))


@pytest.mark.parametrize("full_graph", [True, False])
def test_a_function_returning_numbers_agrees_in_every_mode(full_graph, tmp_path):
    static = paddle.jit.to_static(numbers, full_graph=full_graph)
    loaded = _loaded(paddle.jit.to_static(numbers), tmp_path)
    for a in _inputs():
        want = numbers(paddle.to_tensor(a))
        _same(static(paddle.to_tensor(a)), want)
        _same(loaded(paddle.to_tensor(a)), want)
        _same(loaded(a), want)


def test_a_layer_returning_a_number_on_both_paths_agrees(tmp_path):
    paddle.seed(2)
    layer = Scorer()
    loaded = _loaded(layer, tmp_path)
    static = paddle.jit.to_static(layer)
    paths = set()
    for a in _inputs():
        with paddle.no_grad():
            want = layer(paddle.to_tensor(a))
        paths.add(want[1] > 0)
        _same(static(paddle.to_tensor(a)), want)
        _same(loaded(paddle.to_tensor(a)), want)
    assert paths == {True, False}


def test_a_fine_tuned_loaded_model_still_returns_the_number(tmp_path):
    paddle.seed(2)
    layer = Scorer()
    loaded = _loaded(layer, tmp_path)
    loaded.train()
    x = paddle.to_tensor(_inputs()[0], stop_gradient=False)
    h, n = loaded(x)
    assert type(n) is float and not h.stop_gradient
    (h * h).sum().backward()
    assert x.grad is not None and loaded.parameters()[0].grad is not None


def test_the_file_marks_the_number_leaves_as_format_version_3(tmp_path):
    _loaded(paddle.jit.to_static(numbers), tmp_path)
    doc = model_doc(tmp_path / "m")
    assert doc["format_version"] == 3
    kinds = [leaf.get("number") for leaf in doc["outputs"]["leaves"]]
    assert kinds == [None, "float", "float", "int", "bool", "float", "float", "float", "float",
                     "int"]


def test_a_model_without_numbers_stays_version_1(tmp_path):
    loaded = _loaded(paddle.jit.to_static(lambda x: x.sum()), tmp_path)
    assert model_doc(tmp_path / "m")["format_version"] == 1
    assert isinstance(loaded(_inputs()[0]), paddle.Tensor)


def test_a_file_without_the_marks_loads_as_before(tmp_path):
    """An older file (version 2, no "number" fields) gives the 0-d tensors it always gave."""
    _loaded(paddle.jit.to_static(numbers), tmp_path)
    doc = model_doc(tmp_path / "m")
    for leaf in doc["outputs"]["leaves"]:
        leaf.pop("number", None)
    doc["format_version"] = 2
    write_model_doc(tmp_path / "m", doc)
    out = paddle.jit.load(str(tmp_path / "m"))(_inputs()[0])
    assert isinstance(out[1], paddle.Tensor) and out[1].shape == []


@pytest.mark.parametrize("leaf, value, fragment", [
    (1, "os.system", "unknown Python number kind"),
    (1, ["float"], "unknown Python number kind"),
    (1, None, "unknown Python number kind"),
    (1, "int", "cannot be read from"),          # a float32 variable
    (4, "float", "cannot be read from"),        # a bool variable
    (0, "float", "cannot be read from"),        # x * 2.0 is not 0-d
])
def test_a_hostile_number_mark_is_refused_naming_the_file(tmp_path, leaf, value, fragment):
    _loaded(paddle.jit.to_static(numbers), tmp_path)
    doc = model_doc(tmp_path / "m")
    doc["outputs"]["leaves"][leaf]["number"] = value
    write_model_doc(tmp_path / "m", doc)
    with pytest.raises(ModelFormatError, match=fragment) as info:
        paddle.jit.load(str(tmp_path / "m"))
    assert "m.json" in str(info.value) and "outputs.leaves" in str(info.value)


def test_a_number_mark_in_a_version_2_file_is_refused(tmp_path):
    _loaded(paddle.jit.to_static(numbers), tmp_path)
    doc = model_doc(tmp_path / "m")
    doc["format_version"] = 2
    write_model_doc(tmp_path / "m", doc)
    with pytest.raises(ModelFormatError, match="not part of format version 2"):
        paddle.jit.load(str(tmp_path / "m"))


def test_output_spec_keeps_only_tensors(tmp_path):
    paddle.seed(2)
    layer = Scorer()
    layer.eval()
    x = paddle.to_tensor(_inputs()[0])
    out = paddle.jit.to_static(layer)(x)
    paddle.jit.save(layer, str(tmp_path / "p"), input_spec=[x], output_spec=[out[0]])
    got = paddle.jit.load(str(tmp_path / "p"))(_inputs()[0])
    assert isinstance(got, paddle.Tensor) and model_doc(tmp_path / "p")["format_version"] == 1
