"""paddle.autograd.jacobian / hessian against finite differences (plain and batched, tuples of
inputs and outputs), and saved_tensors_hooks around the tensors ops keep for backward."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.autograd import hessian, jacobian, saved_tensors_hooks
from tests.support import randn


def _numeric_jacobian(f, a, eps=1e-6):
    base = f(a)
    out = np.zeros(base.shape + a.shape)
    for idx in np.ndindex(*a.shape):
        d = np.zeros_like(a)
        d[idx] = eps
        out[(Ellipsis,) + idx] = (f(a + d) - f(a - d)) / (2 * eps)
    return out


def f_np(a):
    return np.stack([np.sin(a).sum() * a[0], a[1] * a[2] ** 2, np.exp(a[0] - a[2])])


def f_pd(x):
    return paddle.stack([paddle.sin(x).sum() * x[0], x[1] * x[2] ** 2, paddle.exp(x[0] - x[2])])


def test_jacobian_matches_finite_differences():
    a = randn(0, 3, dtype="float64")
    x = paddle.to_tensor(a, stop_gradient=False)
    J = jacobian(f_pd(x), x)
    assert J.shape == [3, 3]
    np.testing.assert_allclose(J[:].numpy(), _numeric_jacobian(f_np, a), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(J[1, :].numpy(), _numeric_jacobian(f_np, a)[1], rtol=1e-6)


def test_batched_jacobian_and_tuples():
    a, b = randn(1, 4, 3, dtype="float64"), randn(2, 4, 3, dtype="float64")
    x = paddle.to_tensor(a, stop_gradient=False)
    y = paddle.to_tensor(b, stop_gradient=False)
    out1, out2 = x * y, paddle.tanh(x)
    (j11, j12), (j21, j22) = jacobian((out1, out2), (x, y), batch_axis=0)
    assert j11.shape == [4, 3, 3]
    eye = np.eye(3)
    np.testing.assert_allclose(j11[:].numpy(), b[:, :, None] * eye, rtol=1e-10)
    np.testing.assert_allclose(j12[:].numpy(), a[:, :, None] * eye, rtol=1e-10)
    np.testing.assert_allclose(j21[:].numpy(), (1 - np.tanh(a) ** 2)[:, :, None] * eye,
                               rtol=1e-10)
    np.testing.assert_array_equal(j22[:].numpy(), np.zeros((4, 3, 3)))
    with pytest.raises(ValueError, match="batch_axis should be None or 0"):
        jacobian(out1, x, batch_axis=1)


def test_hessian_matches_finite_differences_of_the_gradient():
    a = randn(3, 4, dtype="float64")

    def g_np(v):      # gradient of sum(v^3) * v[0] + prod-ish term
        return _numeric_jacobian(lambda u: np.array(np.sum(u ** 3) * u[0] + u[1] * u[3]), v)

    x = paddle.to_tensor(a, stop_gradient=False)
    H = hessian((x ** 3).sum() * x[0] + x[1] * x[3], x)
    assert H.shape == [4, 4]
    np.testing.assert_allclose(H[:].numpy(), _numeric_jacobian(g_np, a, eps=1e-4), rtol=1e-4,
                               atol=1e-5)


def test_hessian_of_two_inputs_and_scalar_check():
    a, b = randn(0, 2, dtype="float64"), randn(1, 2, dtype="float64")
    x = paddle.to_tensor(a, stop_gradient=False)
    y = paddle.to_tensor(b, stop_gradient=False)
    (hxx, hxy), (hyx, hyy) = hessian((x * x * y).sum(), (x, y))
    np.testing.assert_allclose(hxx[:].numpy(), np.diag(2 * b), rtol=1e-10)
    np.testing.assert_allclose(hxy[:].numpy(), np.diag(2 * a), rtol=1e-10)
    np.testing.assert_allclose(hyx[:].numpy(), np.diag(2 * a), rtol=1e-10)
    np.testing.assert_array_equal(hyy[:].numpy(), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="should be a scalar"):
        hessian(x * 2.0, x)


def test_saved_tensors_hooks_pack_and_unpack():
    packed, unpacked = [], []

    def pack(t):
        packed.append(t.shape)
        return t.numpy().copy()

    def unpack(a):
        unpacked.append(a.shape)
        return paddle.to_tensor(a)

    x = paddle.to_tensor(randn(0, 3), stop_gradient=False)
    with saved_tensors_hooks(pack, unpack):
        y = (x * x).sum()
    assert packed                      # the multiply and the sum kept their inputs
    y.backward()
    assert len(unpacked) >= 1
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.numpy(), rtol=1e-6)


def test_unpack_hook_values_are_what_backward_reads():
    x = paddle.to_tensor(np.array([1.0, 2.0], "float32"), stop_gradient=False)
    with saved_tensors_hooks(lambda t: t, lambda t: t * 0.0 + 10.0):
        y = (x * x).sum()
    y.backward()                       # d(x*x) = 2 x with x read back as 10
    np.testing.assert_allclose(x.grad.numpy(), [20.0, 20.0])
    with pytest.raises(TypeError, match="must be callable"):
        saved_tensors_hooks(1, lambda t: t)
