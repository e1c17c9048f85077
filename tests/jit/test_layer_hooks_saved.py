"""Forward pre/post hooks registered on the saved Layer itself are part of the saved model, as
Layer.__call__ runs them (Paddle's test_layer_hook checks the same); sublayer hooks too."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec


class _Inner(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 3)

    def forward(self, x):
        return self.fc(x)


class _Model(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.inner = _Inner()

    def forward(self, x):
        return paddle.tanh(self.inner(x)) * 2


def _shift_inputs(layer, inputs):
    return (inputs[0] + 1.0,)


def _scale_outputs(layer, inputs, outputs):
    return outputs * 10.0 + inputs[0].sum(axis=-1, keepdim=True)


def _branchy_post(layer, inputs, outputs):
    if outputs.sum() > 0:
        return outputs - 1.0
    return outputs * -3.0


def _observer(layer, inputs, outputs):
    return None     # a hook returning None keeps the outputs


def _sub_hook(layer, inputs, outputs):
    return outputs - 3.0


HOOKS = {
    "pre": ([_shift_inputs], []),
    "post": ([], [_scale_outputs]),
    "both": ([_shift_inputs], [_scale_outputs, _observer]),
    "branchy": ([], [_branchy_post]),
}


def _model(pre, post, sub=False):
    paddle.seed(5)
    m = _Model()
    for h in pre:
        m.register_forward_pre_hook(h)
    for h in post:
        m.register_forward_post_hook(h)
    if sub:
        m.inner.register_forward_post_hook(_sub_hook)
    return m


def _inputs():
    rng = np.random.default_rng(0)
    return [paddle.to_tensor(rng.standard_normal((b, 3)).astype("float32") * s)
            for b, s in ((2, 1.0), (3, -2.0), (1, 0.1))]


@pytest.mark.parametrize("sub", [False, True])
@pytest.mark.parametrize("converted", [False, True])
@pytest.mark.parametrize("hooks", list(HOOKS))
def test_saved_model_runs_the_hooks(hooks, converted, sub, tmp_path):
    m = _model(*HOOKS[hooks], sub=sub)
    m.eval()
    want = [m(x).numpy() for x in _inputs()]
    target = paddle.jit.to_static(m) if converted else m
    if converted:
        for x, w in zip(_inputs(), want):
            np.testing.assert_allclose(target(x).numpy(), w, rtol=1e-5, atol=1e-6)
    paddle.jit.save(target, str(tmp_path / "m"), input_spec=[InputSpec([None, 3], "float32")])
    loaded = paddle.jit.load(str(tmp_path / "m"))
    for x, w in zip(_inputs(), want):
        np.testing.assert_allclose(loaded(x).numpy(), w, rtol=1e-5, atol=1e-6)


def test_removed_hook_is_not_saved(tmp_path):
    m = _model([], [])
    handle = m.register_forward_post_hook(_scale_outputs)
    handle.remove()
    m.eval()
    x = _inputs()[0]
    paddle.jit.save(m, str(tmp_path / "m"), input_spec=[InputSpec([None, 3], "float32")])
    np.testing.assert_allclose(paddle.jit.load(str(tmp_path / "m"))(x).numpy(), m(x).numpy(),
                               rtol=1e-6)


def test_saving_leaves_the_layer_alone(tmp_path):
    """The hooks run on the traced copy: the Layer's own calls are unchanged afterwards."""
    m = _model([_shift_inputs], [_scale_outputs])
    m.eval()
    x = _inputs()[1]
    before = m(x).numpy()
    paddle.jit.save(m, str(tmp_path / "m"), input_spec=[InputSpec([None, 3], "float32")])
    np.testing.assert_allclose(m(x).numpy(), before, rtol=1e-6)
    assert len(m._forward_pre_hooks) == 1 and len(m._forward_post_hooks) == 1


# Hooks returning None on some paths of a tensor `if`: Paddle keeps the value there (a post
# hook's None keeps the outputs, a pre hook's the inputs). Before, jit.save refused the
# explicit `return None` and silently returned zeros for the implicit one.
def _double_when_positive(layer, inputs, outputs):
    if outputs.mean() > 0:
        return outputs * 2.0


def _negate_when_negative(layer, inputs, outputs):
    if outputs.mean() < 0:
        return -outputs
    return None


def _triple_positive_inputs(layer, inputs):
    if inputs[0].mean() > 0:
        return inputs[0] * 3.0


def _shift_positive_inputs_tuple(layer, inputs):
    if inputs[0].sum() > 0:
        return (inputs[0] - 0.5,)


class _TwoInputs(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 3)

    def forward(self, x, y):
        return self.fc(x) - y


def _scale_second_input(layer, inputs):
    x, y = inputs
    if y.mean() > 0:
        return x, y * 10.0


NONE_HOOKS = {
    "post implicit": ([], [_double_when_positive]),
    "post explicit": ([], [_negate_when_negative]),
    "pre single": ([_triple_positive_inputs], []),
    "pre tuple": ([_shift_positive_inputs_tuple], []),
    "several in order": ([_triple_positive_inputs, _shift_positive_inputs_tuple],
                         [_double_when_positive, _negate_when_negative, _scale_outputs]),
}


def _check_three_ways(m, inputs, tmp_path, specs):
    m.eval()
    want = [m(*x).numpy() for x in inputs]
    for full_graph in (True, False):
        static = paddle.jit.to_static(m, full_graph=full_graph)
        for x, w in zip(inputs, want):
            np.testing.assert_allclose(static(*x).numpy(), w, rtol=1e-5, atol=1e-6)
    paddle.jit.save(m, str(tmp_path / "m"), input_spec=specs)
    loaded = paddle.jit.load(str(tmp_path / "m"))
    for x, w in zip(inputs, want):
        np.testing.assert_allclose(loaded(*x).numpy(), w, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("hooks", list(NONE_HOOKS))
def test_a_hook_returning_none_on_one_path_keeps_the_value(hooks, tmp_path):
    m = _model(*NONE_HOOKS[hooks])
    inputs = [(x,) for x in _inputs()] + [(-x,) for x in _inputs()]
    _check_three_ways(m, inputs, tmp_path, [InputSpec([None, 3], "float32")])


def test_a_pre_hook_changing_one_of_two_inputs_on_one_path(tmp_path):
    paddle.seed(3)
    m = _TwoInputs()
    m.register_forward_pre_hook(_scale_second_input)
    xs = _inputs()
    inputs = [(x, paddle.full([x.shape[0], 3], s, "float32")) for x, s in zip(xs, (1.0, -1.0, 2.0))]
    spec = InputSpec([None, 3], "float32")
    _check_three_ways(m, inputs, tmp_path, [spec, spec])


def test_a_removed_hook_among_several_is_not_saved(tmp_path):
    m = _model([], [_double_when_positive])
    handle = m.register_forward_post_hook(_negate_when_negative)
    m.register_forward_pre_hook(_triple_positive_inputs).remove()
    handle.remove()
    inputs = [(x,) for x in _inputs()] + [(-x,) for x in _inputs()]
    _check_three_ways(m, inputs, tmp_path, [InputSpec([None, 3], "float32")])
    assert len(m._forward_post_hooks) == 1 and not m._forward_pre_hooks
