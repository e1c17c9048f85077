"""`paddle.jit.to_dot`: the picture of a to_static function's, Layer's or loaded model's
Program, as dot text and as a file."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec


def _net():
    return paddle.nn.Sequential(paddle.nn.Linear(3, 4), paddle.nn.ReLU())


def test_a_called_layer_draws_its_last_program():
    net = paddle.jit.to_static(_net())
    net(paddle.ones([2, 3]))
    text = paddle.jit.to_dot(net)
    assert text.startswith('digraph "Sequential"')
    assert 'label="linear"' in text and 'label="relu"' in text
    assert 'label="float32[2, 3]"' in text and "shape=note" in text   # a parameter node


def test_input_spec_traces_the_program_to_draw():
    def f(x):
        return paddle.tanh(x) * 3

    text = paddle.jit.to_dot(paddle.jit.to_static(f), input_spec=[InputSpec([None, 5], "float32")])
    assert 'label="tanh"' in text and 'label="float32[?, 5]"' in text


def test_a_loaded_model_draws_with_its_input_names(tmp_path):
    prefix = str(tmp_path / "m")
    paddle.jit.save(_net(), prefix, [InputSpec([None, 3], "float32", name="img")])
    loaded = paddle.jit.load(prefix)
    text = paddle.jit.to_dot(loaded, str(tmp_path / "m.dot"))
    assert 'label="input img"' in text
    assert (tmp_path / "m.dot").read_text() == text
    with pytest.raises(ValueError, match="keeps its saved input specs"):
        paddle.jit.to_dot(loaded, input_spec=[InputSpec([1, 3])])


def test_a_program_draws_directly():
    net = paddle.jit.to_static(_net())
    net(paddle.ones([1, 3]))
    assert 'label="linear"' in paddle.jit.to_dot(net.forward.program)


def test_an_uncalled_function_without_spec_says_what_to_do():
    sf = paddle.jit.to_static(lambda x: x + 1)
    with pytest.raises(RuntimeError, match="has not been called yet"):
        paddle.jit.to_dot(sf)


def test_other_objects_are_refused():
    with pytest.raises(TypeError, match="to_dot expects"):
        paddle.jit.to_dot(np.ones(3))
