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
