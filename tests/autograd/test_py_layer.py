"""paddle.autograd.PyLayer: the user's backward gives the gradients, eagerly and inside
to_static (one py_layer op whose gradient traces the user's backward); ctx.save_for_backward,
mark_non_differentiable, set_materialize_grads; saving and exporting for inference."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.autograd import PyLayer, py_layer as py_layer_module
from dy2st.static import InputSpec
from tests.support import onnx_outputs, randn


class ScaledCube(PyLayer):
    """y = k x^3, with a backward scaled by `boost` so a test can tell it was used."""

    @staticmethod
    def forward(ctx, x, k=1.0, boost=1.0):
        ctx.save_for_backward(x)
        ctx.k, ctx.boost = k, boost
        return x ** 3 * k

    @staticmethod
    def backward(ctx, dy):
        (x,) = ctx.saved_tensor()
        return dy * 3.0 * x ** 2 * ctx.k * ctx.boost


class StraightThroughSign(PyLayer):
    """sign(x) forward, identity gradient: the classic case autodiff cannot give."""

    @staticmethod
    def forward(ctx, x):
        return paddle.sign(x)

    @staticmethod
    def backward(ctx, dy):
        return dy


class MulAdd(PyLayer):
    """(x * y + b, x - y); b gets no gradient (None)."""

    @staticmethod
    def forward(ctx, x, y, b):
        ctx.save_for_backward(x, y)
        return x * y + b, x - y

    @staticmethod
    def backward(ctx, d1, d2):
        x, y = ctx.saved_tensor()
        return d1 * y + d2, d1 * x - d2, None


def test_eager_gradient_comes_from_the_users_backward():
    a = randn(0, 5)
    x = paddle.to_tensor(a, stop_gradient=False)
    y = ScaledCube.apply(x, k=2.0, boost=10.0)
    np.testing.assert_allclose(y.numpy(), 2.0 * a ** 3, rtol=1e-6)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 10.0 * 6.0 * a ** 2, rtol=1e-5)


def test_straight_through_estimator():
    a = randn(1, 6)
    x = paddle.to_tensor(a, stop_gradient=False)
    w = paddle.to_tensor(randn(2, 6))
    (StraightThroughSign.apply(x) * w).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), w.numpy())


def test_several_inputs_and_outputs_with_a_none_gradient():
    xa, ya, ba = randn(0, 4), randn(1, 4), randn(2, 4)
    x = paddle.to_tensor(xa, stop_gradient=False)
    y = paddle.to_tensor(ya, stop_gradient=False)
    b = paddle.to_tensor(ba, stop_gradient=False)
    s, d = MulAdd.apply(x, y, b)
    (s * 2.0 + d * 3.0).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * ya + 3.0, rtol=1e-6)
    np.testing.assert_allclose(y.grad.numpy(), 2.0 * xa - 3.0, rtol=1e-6)
    assert b.grad is None


def test_unused_output_gets_zeros_or_none():
    seen = []

    class Two(PyLayer):
        @staticmethod
        def forward(ctx, x, materialize):
            ctx.set_materialize_grads(materialize)
            return x * 2.0, x * 3.0

        @staticmethod
        def backward(ctx, d1, d2):
            seen.append(d2)
            return d1 * 2.0

    for materialize in (True, False):
        x = paddle.to_tensor(randn(0, 3), stop_gradient=False)
        a, _ = Two.apply(x, materialize)
        a.sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), np.full(3, 2.0))
    assert isinstance(seen[0], paddle.Tensor) and not seen[0].numpy().any()
    assert seen[1] is None


def test_mark_non_differentiable():
    class SortWithIndex(PyLayer):
        @staticmethod
        def forward(ctx, x):
            values = paddle.sort(x)
            index = paddle.argsort(x).astype("float32")
            ctx.mark_non_differentiable(index)
            ctx.save_for_backward(paddle.argsort(x))
            return values, index

        @staticmethod
        def backward(ctx, dv, di):
            assert not di.numpy().any()
            (order,) = ctx.saved_tensor()
            out = np.zeros(dv.shape, "float32")
            out[order.numpy()] = dv.numpy()
            return paddle.to_tensor(out)

    x = paddle.to_tensor(np.array([3.0, 1.0, 2.0], "float32"), stop_gradient=False)
    values, index = SortWithIndex.apply(x)
    assert index.stop_gradient and not values.stop_gradient
    (values * paddle.to_tensor([1.0, 10.0, 100.0])).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [100.0, 1.0, 10.0])


def test_wrong_number_of_gradients_is_explained():
    class Bad(PyLayer):
        @staticmethod
        def forward(ctx, x, y):
            return x + y

        @staticmethod
        def backward(ctx, dy):
            return dy

    x = paddle.to_tensor(randn(0, 2), stop_gradient=False)
    with pytest.raises(paddle.autograd.GradientError, match="returned 1 gradient.*2 tensor"):
        Bad.apply(x, x * 1.0).sum().backward()


def test_missing_backward_is_refused():
    class NoBackward(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x

    with pytest.raises(NotImplementedError, match="both forward and backward"):
        NoBackward.apply(paddle.ones([2]))


def test_no_gradient_needed_runs_forward_only():
    x = paddle.to_tensor(randn(0, 3))
    y = ScaledCube.apply(x, k=1.0)
    assert y.stop_gradient
    with paddle.no_grad():
        z = ScaledCube.apply(paddle.to_tensor(randn(0, 3), stop_gradient=False))
    assert z.stop_gradient


class CubeNet(paddle.nn.Layer):
    def __init__(self, boost):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 3)
        self.boost = boost

    def forward(self, x):
        return ScaledCube.apply(self.fc(x), k=0.5, boost=self.boost).mean(axis=-1)


def test_to_static_gradients_use_the_users_backward():
    paddle.seed(0)
    eager = CubeNet(boost=7.0)
    paddle.seed(0)
    net = CubeNet(boost=7.0)
    static = paddle.jit.to_static(net, full_graph=True)
    a = randn(3, 5, 4)
    xe = paddle.to_tensor(a, stop_gradient=False)
    xs = paddle.to_tensor(a, stop_gradient=False)
    eager(xe).sum().backward()
    out = static(xs)
    np.testing.assert_allclose(out.numpy(), eager(paddle.to_tensor(a)).numpy(), rtol=1e-5)
    out.sum().backward()
    np.testing.assert_allclose(xs.grad.numpy(), xe.grad.numpy(), rtol=1e-4, atol=1e-6)
    for p, q in zip(net.parameters(), eager.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-4, atol=1e-6)
    # boost 7 is in the gradient: autodiff of forward alone would give a seventh of it
    x1 = paddle.to_tensor(a, stop_gradient=False)
    paddle.seed(0)
    plain = CubeNet(boost=1.0)
    plain(x1).sum().backward()
    np.testing.assert_allclose(xs.grad.numpy(), 7.0 * x1.grad.numpy(), rtol=1e-4, atol=1e-6)


def test_straight_through_inside_to_static():
    def fn(x, w):
        return (StraightThroughSign.apply(x) * w).sum()

    sf = paddle.jit.to_static(fn, full_graph=True)
    x = paddle.to_tensor(randn(0, 6), stop_gradient=False)
    w = paddle.to_tensor(randn(1, 6))
    sf(x, w).backward()
    np.testing.assert_allclose(x.grad.numpy(), w.numpy())


def test_saves_loads_and_exports_for_inference(tmp_path):
    paddle.seed(1)
    net = CubeNet(boost=3.0)
    net.eval()
    a = randn(4, 6, 4)
    want = net(paddle.to_tensor(a)).numpy()
    path = str(tmp_path / "cube")
    paddle.jit.save(net, path, input_spec=[InputSpec([None, 4], "float32")])
    loaded = paddle.jit.load(path)
    assert "py_layer" in str(loaded.program())
    with paddle.no_grad():
        np.testing.assert_allclose(loaded(paddle.to_tensor(a)).numpy(), want, rtol=1e-5)
    paddle.onnx.export(net, path, input_spec=[InputSpec([None, 4], "float32")])
    np.testing.assert_allclose(onnx_outputs(path + ".onnx", a)[0], want, rtol=1e-5, atol=1e-6)


def test_loaded_py_layer_from_another_process_explains_why_it_cannot_train(tmp_path,
                                                                           monkeypatch):
    paddle.seed(2)
    net = CubeNet(boost=1.0)
    path = str(tmp_path / "cube")
    paddle.jit.save(net, path, input_spec=[InputSpec([None, 4], "float32")])
    monkeypatch.setattr(py_layer_module, "_CALLS", {})
    loaded = paddle.jit.load(path)
    with pytest.raises(paddle.autograd.GradientError, match="traced in another process"):
        loaded(paddle.to_tensor(randn(0, 2, 4))).sum().backward()
