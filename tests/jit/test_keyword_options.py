"""Entry points refuse a misspelled keyword with a TypeError naming it and the closest valid one,
and keep accepting Paddle's own keywords."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.jit.keywords import suggestion
from dy2st.static import InputSpec


def _double(x):
    return x * 2


@pytest.mark.parametrize("wrong, meant", [("fullgraph", "full_graph"), ("full_grpah", "full_graph"),
                                          ("input_spex", "input_spec"), ("backnd", "backend")])
def test_to_static_names_the_closest_keyword(wrong, meant):
    with pytest.raises(TypeError, match=rf"'{wrong}' \(did you mean {meant}\?\)"):
        paddle.jit.to_static(_double, **{wrong: True})


def test_to_static_as_a_decorator_factory_checks_at_once():
    with pytest.raises(TypeError, match="fullgraph"):
        paddle.jit.to_static(fullgraph=True)


def test_to_static_on_a_layer_checks_its_keywords():
    with pytest.raises(TypeError, match="did you mean full_graph"):
        paddle.jit.to_static(paddle.nn.Linear(2, 2), fullgraph=True)


def test_paddle_keywords_of_to_static_keep_working():
    fn = paddle.jit.to_static(_double, input_spec=None, build_strategy=None, property=False)
    np.testing.assert_allclose(fn(paddle.to_tensor([1.0, 2.0])).numpy(), [2.0, 4.0])
    net = paddle.jit.to_static(paddle.nn.Linear(2, 2), build_strategy=None, full_graph=True)
    assert net(paddle.ones([1, 2])).shape == [1, 2]


def test_an_unrelated_keyword_gets_no_suggestion_but_the_list():
    with pytest.raises(TypeError) as info:
        paddle.jit.to_static(_double, zzz=1)
    text = str(info.value)
    assert "did you mean" not in text and "full_graph" in text and "'zzz'" in text


def test_jit_save_refuses_a_misspelled_option_before_writing(tmp_path):
    net = paddle.nn.Linear(3, 2)
    with pytest.raises(TypeError, match=r"'input_spex' \(did you mean input_spec\?\)"):
        paddle.jit.save(net, str(tmp_path / "m"), input_spex=[InputSpec([None, 3])])
    with pytest.raises(TypeError, match=r"did you mean output_spec\?"):
        paddle.jit.save(net, str(tmp_path / "m"), [InputSpec([None, 3])], outputspec=[])
    assert list(tmp_path.iterdir()) == []


def test_jit_save_and_load_accept_paddles_options(tmp_path):
    net = paddle.nn.Linear(3, 2)
    prefix = str(tmp_path / "m")
    paddle.jit.save(net, prefix, [InputSpec([None, 3], "float32")], combine_params=True,
                    clip_extra=True, skip_prune_program=False)
    x = np.ones((2, 3), np.float32)
    loaded = paddle.jit.load(prefix, model_filename=None, params_filename=None)
    np.testing.assert_allclose(loaded(paddle.to_tensor(x)).numpy(), net(paddle.to_tensor(x)).numpy(),
                               rtol=1e-6)


def test_jit_load_refuses_a_misspelled_option(tmp_path):
    with pytest.raises(TypeError, match=r"'model_file' \(did you mean model_filename\?\)"):
        paddle.jit.load(str(tmp_path / "m"), model_file="x")


def test_onnx_export_refuses_a_misspelled_option(tmp_path):
    pytest.importorskip("onnx")
    with pytest.raises(TypeError, match=r"'opset' \(did you mean opset_version\?\)"):
        paddle.onnx.export(paddle.nn.Linear(3, 2), str(tmp_path / "m"),
                           [InputSpec([None, 3])], opset=13)
    assert list(tmp_path.iterdir()) == []


def test_onnx_export_honours_output_spec(tmp_path):
    onnx = pytest.importorskip("onnx")

    class TwoHeads(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = paddle.nn.Linear(3, 2)

        def forward(self, x):
            h = self.fc(x)
            return h, h * 2

    net = paddle.jit.to_static(TwoHeads())
    _, doubled = net(paddle.ones([1, 3]))
    paddle.onnx.export(net, str(tmp_path / "m"), output_spec=[doubled])
    model = onnx.load(str(tmp_path / "m.onnx"))
    assert len(model.graph.output) == 1


@pytest.mark.parametrize("name, valid, expected", [
    ("fullgraph", ["full_graph", "input_spec"], " (did you mean full_graph?)"),
    ("InputSpec", ["full_graph", "input_spec"], " (did you mean input_spec?)"),
    ("x", ["full_graph", "input_spec"], ""),
])
def test_suggestion(name, valid, expected):
    assert suggestion(name, valid) == expected
