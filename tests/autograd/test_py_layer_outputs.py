"""PyLayer with several outputs (and several inputs, some not tensors) inside to_static: one
backward call with a cotangent per output, zeros or None for outputs that got no gradient
(set_materialize_grads), mark_non_differentiable, gradients against finite differences and
eager mode, retracing when a Python argument changes, and jit.save / jit.load for inference."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.autograd import PyLayer
from dy2st.static import InputSpec
from tests.support import numeric_gradient

SEEN = []


class ProdDiff(PyLayer):
    """(x * w * scale, x - w, argmax(x)): two float outputs and an int one."""

    @staticmethod
    def forward(ctx, x, w, scale, mode="plain", materialize=True):
        ctx.save_for_backward(x, w)
        ctx.scale = scale
        ctx.set_materialize_grads(materialize)
        if mode == "frozen":
            ctx.mark_non_differentiable(None)
        return x * w * scale, x - w, paddle.argmax(x, axis=-1)

    @staticmethod
    def backward(ctx, g_prod, g_diff, g_arg):
        x, w = ctx.saved_tensor()
        SEEN.append((g_prod is None, g_diff is None))
        gx = gw = 0.0
        if g_prod is not None:
            gx, gw = g_prod * w * ctx.scale, g_prod * x * ctx.scale
        if g_diff is not None:
            gx, gw = gx + g_diff, gw - g_diff
        return gx, gw


class Frozen(PyLayer):
    """(x * 2, x * 3) with the second output marked non-differentiable."""

    @staticmethod
    def forward(ctx, x):
        a, b = x * 2.0, x * 3.0
        ctx.mark_non_differentiable(b)
        return a, b

    @staticmethod
    def backward(ctx, ga, gb):
        SEEN.append(float(gb.abs().sum()) if not isinstance(gb, paddle.static.Variable)
                    else "traced")
        return ga * 2.0 + gb


def randn(seed, *shape):
    return np.random.default_rng(seed).standard_normal(shape)


def loss_of(x, w, scale):
    p, d, arg = ProdDiff.apply(x, w, scale)
    return (p * p).sum() + (d * paddle.sin(d)).sum() + arg.astype("float64").sum() * 0.0


def test_two_outputs_match_finite_differences_and_eager():
    xa, wa = randn(0, 3, 4), randn(1, 3, 4)
    static = paddle.jit.to_static(loss_of, full_graph=True)
    x = paddle.to_tensor(xa, stop_gradient=False)
    w = paddle.to_tensor(wa, stop_gradient=False)
    SEEN.clear()
    static(x, w, 0.5).backward()
    assert SEEN == [(False, False)]
    xe = paddle.to_tensor(xa, stop_gradient=False)
    we = paddle.to_tensor(wa, stop_gradient=False)
    loss_of(xe, we, 0.5).backward()
    np.testing.assert_allclose(x.grad.numpy(), xe.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(w.grad.numpy(), we.grad.numpy(), rtol=1e-12)
    def loss_at(xv, wv):
        return float(loss_of(paddle.to_tensor(xv), paddle.to_tensor(wv), 0.5))
    np.testing.assert_allclose(x.grad.numpy(), numeric_gradient(lambda v: loss_at(v, wa), xa),
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(w.grad.numpy(), numeric_gradient(lambda v: loss_at(xa, v), wa),
                               rtol=1e-6, atol=1e-8)


def test_a_python_argument_change_retraces():
    static = paddle.jit.to_static(loss_of, full_graph=True)
    xa, wa = randn(2, 5), randn(3, 5)
    for scale in (0.5, 2.0, 0.5):
        x = paddle.to_tensor(xa, stop_gradient=False)
        static(x, paddle.to_tensor(wa), scale).backward()
        xe = paddle.to_tensor(xa, stop_gradient=False)
        loss_of(xe, paddle.to_tensor(wa), scale).backward()
        np.testing.assert_allclose(x.grad.numpy(), xe.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("materialize,want", [(True, (False, False)), (False, (False, True))])
def test_an_unused_output_gets_zeros_or_none(materialize, want):
    def only_first(x, w):
        return ProdDiff.apply(x, w, 1.5, materialize=materialize)[0].sum()
    xa, wa = randn(4, 4), randn(5, 4)
    static = paddle.jit.to_static(only_first, full_graph=True)
    x = paddle.to_tensor(xa, stop_gradient=False)
    SEEN.clear()
    static(x, paddle.to_tensor(wa)).backward()
    assert SEEN == [want]
    np.testing.assert_allclose(x.grad.numpy(), wa * 1.5, rtol=1e-12)


def test_a_non_differentiable_output_stops_gradients_and_backward_sees_zeros():
    def f(x):
        a, b = Frozen.apply(x)
        assert b.stop_gradient
        return (a + b).sum()
    static = paddle.jit.to_static(f, full_graph=True)
    x = paddle.to_tensor(randn(6, 3), stop_gradient=False)
    SEEN.clear()
    static(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 2.0))   # 2 * ga + zeros
    xe = paddle.to_tensor(randn(6, 3), stop_gradient=False)
    f(xe).backward()
    np.testing.assert_allclose(xe.grad.numpy(), x.grad.numpy())
    assert SEEN[-1] == 0.0          # eager: zeros for the frozen output

    def both(x):
        a, b = Frozen.apply(x)
        return a + b
    out = paddle.jit.to_static(both, full_graph=True)(paddle.to_tensor(randn(7, 3)))
    np.testing.assert_allclose(out.numpy(), 5.0 * randn(7, 3))   # one live output, shape [3]


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 4)

    def forward(self, x, w):
        p, d, arg = ProdDiff.apply(self.fc(x), w, 2.0)
        return p + d, arg


def test_save_and_load_for_inference(tmp_path):
    paddle.seed(3)
    net = Net()
    net.eval()
    x = paddle.to_tensor(randn(7, 2, 4).astype("float32"))
    w = paddle.to_tensor(randn(8, 2, 4).astype("float32"))
    want = [t.numpy() for t in net(x, w)]
    path = str(tmp_path / "net")
    paddle.jit.save(net, path, input_spec=[InputSpec([None, 4], "float32"),
                                           InputSpec([None, 4], "float32")])
    loaded = paddle.jit.load(path)
    assert "py_layer_multi" in str(loaded.program())
    with paddle.no_grad():
        got = [t.numpy() for t in loaded(x, w)]
    np.testing.assert_allclose(got[0], want[0], rtol=1e-6)
    np.testing.assert_array_equal(got[1], want[1])
