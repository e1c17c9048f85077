"""Functions and forwards whose arguments are lists / tuples / dicts of tensors (issue 13):
to_static takes nested InputSpecs (and Python values among them), jit.save keeps the structure,
and the loaded model is called as the function was (`loaded([a, b])`)."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.format import ModelFormatError
from dy2st.jit.translated_layer import InputMismatchError
from dy2st.static import InputSpec
from tests.support import model_doc, randn, write_model_doc

S3 = InputSpec([None, 3], "float32")


def list_arg(xs):
    if xs[0].sum() > xs[1].sum():
        return xs[0] * 2.0 + xs[1]
    return xs[1] - xs[0]


def tuple_and_dict(x, pair, d):
    a, b = pair
    return x + a * d["w"] - b, d["w"].mean()


def nested_with_scale(groups, scale):
    (a, b), rest = groups
    out = (a + b) * scale
    for t in rest:
        out = out + t
    return out


class ListForward(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 2)

    def forward(self, inputs):
        h = self.fc(inputs[0]) + self.fc(inputs[1])
        if h.mean() > 0:
            h = h * 2.0
        return [h, inputs[1]]


def _np(out):
    if isinstance(out, (list, tuple)):
        return [_np(o) for o in out]
    return out.numpy()


def _close(got, want):
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want)
        for g, w in zip(got, want):
            _close(g, w)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-6)


def _t(a):
    return paddle.to_tensor(a)


@pytest.mark.parametrize("batch", [2, 5])
def test_list_argument_round_trip(batch, tmp_path):
    a, b = randn(1, batch, 3), randn(2, batch, 3)
    for x, y in ((a, b), (b, a)):                   # both branches
        want = list_arg([_t(x), _t(y)]).numpy()
        sf = paddle.jit.to_static(list_arg, input_spec=[[S3, S3]], full_graph=True)
        np.testing.assert_allclose(sf([_t(x), _t(y)]).numpy(), want, rtol=1e-6)
        path = str(tmp_path / "list")
        paddle.jit.save(sf, path)
        loaded = paddle.jit.load(path)
        np.testing.assert_allclose(loaded([_t(x), _t(y)]).numpy(), want, rtol=1e-6)
        np.testing.assert_allclose(loaded((x, y)).numpy(), want, rtol=1e-6)    # a tuple too
        np.testing.assert_allclose(loaded(xs=[x, y]).numpy(), want, rtol=1e-6)
    assert [tuple(s.shape) for s in loaded.input_spec[0]] == [(None, 3), (None, 3)]


def test_list_argument_keeps_one_program_for_every_batch_size():
    sf = paddle.jit.to_static(list_arg, input_spec=[[S3, S3]], full_graph=True)
    for batch in (1, 4, 7):
        sf([_t(randn(batch, batch, 3)), _t(randn(batch + 9, batch, 3))])
    assert sf.num_programs == 1
    assert [tuple(v.shape) for v in sf.concrete_program.inputs] == [(None, 3), (None, 3)]


def test_tuple_and_dict_arguments(tmp_path):
    x, a, b, w = randn(1, 4, 3), randn(2, 4, 3), randn(3, 4, 3), randn(4, 1, 3)
    spec = [S3, (S3, S3), {"w": InputSpec([1, 3], "float32")}]
    want = _np(tuple_and_dict(_t(x), (_t(a), _t(b)), {"w": _t(w)}))
    sf = paddle.jit.to_static(tuple_and_dict, input_spec=spec, full_graph=True)
    _close(_np(sf(_t(x), (_t(a), _t(b)), {"w": _t(w)})), want)
    paddle.jit.save(sf, str(tmp_path / "td"))
    loaded = paddle.jit.load(str(tmp_path / "td"))
    _close(_np(loaded(x, (a, b), {"w": w})), want)
    _close(_np(loaded(_t(x), pair=[_t(a), _t(b)], d={"w": _t(w)})), want)
    with pytest.raises(InputMismatchError, match=r"`d` must be a dict with the keys \['w'\]"):
        loaded(x, (a, b), {"v": w})
    with pytest.raises(InputMismatchError, match=r"`pair` must be a tuple of 2 items"):
        loaded(x, (a,), {"w": w})
    with pytest.raises(InputMismatchError, match=r"missing `d\['w'\]`"):
        loaded(x, (a, b))
    with pytest.raises(InputMismatchError, match=r"input 'pair\[1\]' expects float32\[None, 3\]"):
        loaded(x, (a, b.astype("float64")), {"w": w})


def test_nested_specs_with_a_python_value(tmp_path):
    a, b, c, d = (randn(k, 3, 3) for k in range(4))
    spec = [[(S3, S3), [S3, S3]], 0.5]
    want = nested_with_scale([(_t(a), _t(b)), [_t(c), _t(d)]], 0.5).numpy()
    sf = paddle.jit.to_static(nested_with_scale, input_spec=spec, full_graph=True)
    paddle.jit.save(sf, str(tmp_path / "n"))
    loaded = paddle.jit.load(str(tmp_path / "n"))
    np.testing.assert_allclose(loaded([(a, b), [c, d]]).numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(loaded([(a, b), [c, d]], 0.5).numpy(), want, rtol=1e-6)
    with pytest.raises(InputMismatchError, match="`scale` was 0.5 when the model was saved"):
        loaded([(a, b), [c, d]], 2.0)
    assert model_doc(tmp_path / "n")["format_version"] == 2


def test_layer_forward_with_a_list_and_save_after_a_call(tmp_path):
    paddle.seed(1)
    net = ListForward()
    x, y = randn(5, 2, 3), randn(6, 2, 3, shift=1.0)
    want = _np(net([_t(x), _t(y)]))
    static = paddle.jit.to_static(net, full_graph=True)
    _close(_np(static([_t(x), _t(y)])), want)
    # no input_spec: the structure of the last call is kept
    paddle.jit.save(static, str(tmp_path / "layer"))
    loaded = paddle.jit.load(str(tmp_path / "layer"))
    _close(_np(loaded([x, y])), want)
    # Paddle's loaded models take the tensors flattened, too
    _close(_np(loaded(x, y)), want)
    with pytest.raises(InputMismatchError, match="takes 1 argument"):
        loaded(x, y, x)


def test_layer_forward_saved_with_nested_specs_and_none_batch(tmp_path):
    paddle.seed(2)
    net = ListForward()
    paddle.jit.save(net, str(tmp_path / "layer"), input_spec=[[S3, S3]])
    loaded = paddle.jit.load(str(tmp_path / "layer"))
    for batch in (1, 6):
        x, y = randn(batch, batch, 3), randn(batch + 1, batch, 3, shift=-1.0)
        _close(_np(loaded([x, y])), _np(net([_t(x), _t(y)])))


def test_flat_arguments_still_write_format_version_1(tmp_path):
    sf = paddle.jit.to_static(lambda x, y: x + y, input_spec=[S3, S3])
    paddle.jit.save(sf, str(tmp_path / "flat"))
    doc = model_doc(tmp_path / "flat")
    assert doc["format_version"] == 1 and "input_structure" not in doc


# ----------------------------------------------------------------------------- untrusted files
@pytest.fixture
def saved(tmp_path):
    sf = paddle.jit.to_static(list_arg, input_spec=[[S3, S3]], full_graph=True)
    prefix = tmp_path / "m"
    paddle.jit.save(sf, str(prefix))
    return prefix


def _refused(prefix, *fragments):
    with pytest.raises(ModelFormatError) as info:
        paddle.jit.load(str(prefix))
    text = str(info.value)
    assert f"{prefix}.json" in text, text
    for f in fragments:
        assert f in text, text


@pytest.mark.parametrize("corrupt,fragment", [
    (lambda s: s["leaves"].__setitem__(1, {"input": 0}), "unused input index"),
    (lambda s: s["leaves"].__setitem__(1, {"input": 7}), "unused input index"),
    (lambda s: s["leaves"].pop(), "describes 1 leaves"),
    (lambda s: s["leaves"].__setitem__(0, {"pickle": "gASV"}), "expected {'input'"),
    (lambda s: s["leaves"].__setitem__(0, {"const": {"$object": "os.system"}}), "input_structure"),
    (lambda s: s["tree"].__setitem__("kind", "list"), "must be a tuple of 1 arguments"),
    (lambda s: s["tree"]["items"][0].__setitem__("kind", "set"), "unknown structure kind"),
    (lambda s: s.__setitem__("arguments", ["xs", "xs"]), "must be distinct identifiers"),
    (lambda s: s.__setitem__("arguments", ["import os"]), "must be distinct identifiers"),
    (lambda s: s.__setitem__("arguments", ["xs", "ys"]), "tree must be a tuple of 2"),
    (lambda s: s.__setitem__("code", "print(1)"), "expected the fields"),
])
def test_corrupt_input_structure_is_refused(saved, corrupt, fragment):
    doc = model_doc(saved)
    corrupt(doc["input_structure"])
    write_model_doc(saved, doc)
    _refused(saved, fragment)


def test_input_structure_in_a_version_1_file_is_refused(saved):
    doc = model_doc(saved)
    doc["format_version"] = 1
    write_model_doc(saved, doc)
    _refused(saved, "not part of format version 1")


def test_input_structure_that_is_not_an_object_is_refused(saved):
    doc = model_doc(saved)
    doc["input_structure"] = [1, 2]
    write_model_doc(saved, doc)
    _refused(saved, "input_structure")
