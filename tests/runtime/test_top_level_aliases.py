"""Paddle 3.3.1's torch-style top-level names: dtype aliases, asarray, from_numpy, greater,
manual_seed, the functional aliases (conv2d, layer_norm, ...), autograd.Function and
linalg.lu_solve."""
import numpy as np
import pytest

import dy2st as paddle

F = paddle.nn.functional


def test_dtype_aliases():
    assert (paddle.double, paddle.float, paddle.half) == (paddle.float64, paddle.float32,
                                                          paddle.float16)
    assert (paddle.cfloat, paddle.cdouble) == (paddle.complex64, paddle.complex128)
    assert paddle.ones([2], dtype=paddle.double).dtype == "float64"


def test_asarray_and_from_numpy():
    t = paddle.asarray([[0.5, 1.5]], requires_grad=True)
    assert t.dtype == "float32" and t.shape == [1, 2] and t.stop_gradient is False
    u = paddle.asarray(t)
    assert u.stop_gradient is True and np.array_equal(u.numpy(), t.numpy())
    assert paddle.asarray(3).dtype == "int64"
    assert paddle.asarray([1, 2], dtype="float64").dtype == "float64"
    a = np.arange(6, dtype="int32").reshape(2, 3)
    f = paddle.from_numpy(a)
    assert f.dtype == "int32" and np.array_equal(f.numpy(), a)
    with pytest.raises(TypeError, match="numpy.ndarray"):
        paddle.from_numpy([1, 2])


def test_greater_and_manual_seed():
    x, y = paddle.to_tensor([1, 3, 2]), paddle.to_tensor([2, 2, 2])
    assert paddle.greater(x, y).numpy().tolist() == [False, True, False]
    assert x.greater(y).numpy().tolist() == [False, True, False]
    paddle.manual_seed(7)
    a = paddle.rand([3]).numpy()
    paddle.seed(7)
    assert np.array_equal(paddle.rand([3]).numpy(), a)


def test_functional_aliases_are_the_functional_ones():
    for name in ("conv1d", "conv2d", "conv3d", "group_norm", "layer_norm", "adaptive_avg_pool1d"):
        assert getattr(paddle, name) is getattr(F, name), name


def test_autograd_function_is_pylayer():
    assert paddle.autograd.Function is paddle.autograd.PyLayer

    class Cube(paddle.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensor()
            return 3 * x * x * g

    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    Cube.apply(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 12.0])


@pytest.mark.parametrize("trans", ["N", "T", "C"])
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4)])
def test_lu_solve(trans, shape):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(shape)
    b = rng.standard_normal(shape[:-1] + (2,))
    lu, piv = paddle.linalg.lu(paddle.to_tensor(a))
    x = paddle.linalg.lu_solve(paddle.to_tensor(b), lu, piv, trans=trans).numpy()
    lhs = a if trans == "N" else np.swapaxes(a, -1, -2)
    np.testing.assert_allclose(lhs @ x, b, atol=1e-10)
    with pytest.raises(ValueError, match="trans"):
        paddle.linalg.lu_solve(paddle.to_tensor(b), lu, piv, trans="X")


def test_lu_solve_under_to_static_and_its_gradient():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 3)) + 3 * np.eye(3)
    b = rng.standard_normal((3, 1))

    def solve(a_, b_):
        lu, piv = paddle.linalg.lu(a_)
        return paddle.linalg.lu_solve(b_, lu, piv)

    static = paddle.jit.to_static(solve, full_graph=True)
    np.testing.assert_allclose(static(paddle.to_tensor(a), paddle.to_tensor(b)).numpy(),
                               np.linalg.solve(a, b), atol=1e-10)
    bt = paddle.to_tensor(b, stop_gradient=False)
    solve(paddle.to_tensor(a), bt).sum().backward()
    # d sum(A^-1 b) / db = A^-T 1
    np.testing.assert_allclose(bt.grad.numpy(), np.linalg.solve(a.T, np.ones((3, 1))),
                               atol=1e-8)
