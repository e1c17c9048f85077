"""linalg.eig / eigvals of general matrices: A v = v w with unit-norm eigenvectors, complex
dtypes, batches, to_static and XLA, gradients against finite differences (real and complex
input), and errors."""
import numpy as np
import pytest

import dy2st as paddle
from tests.support import numeric_gradient

RNG = np.random.default_rng(0)
A = RNG.standard_normal((2, 3, 3))
W = RNG.standard_normal((3, 3))


@pytest.mark.parametrize("dtype, out", [("float32", "complex64"), ("float64", "complex128"),
                                        ("complex64", "complex64")])
def test_eig_solves_and_keeps_precision(dtype, out):
    data = (A + 1j * A[::-1]).astype(dtype) if dtype.startswith("complex") else A.astype(dtype)
    for fn in (paddle.linalg.eig, paddle.jit.to_static(paddle.linalg.eig)):
        w, v = fn(paddle.to_tensor(data))
        assert w.dtype == out and v.dtype == out and w.shape == [2, 3] and v.shape == [2, 3, 3]
        tol = 1e-4 if out == "complex64" else 1e-10
        np.testing.assert_allclose(data @ v.numpy(), v.numpy() * w.numpy()[:, None, :],
                                   atol=tol)
        np.testing.assert_allclose(np.linalg.norm(v.numpy(), axis=-2), 1.0, atol=tol)
    np.testing.assert_allclose(np.sort_complex(paddle.linalg.eigvals(paddle.to_tensor(data))
                                               .numpy().ravel()),
                               np.sort_complex(np.linalg.eigvals(data).ravel()), atol=tol)


def _loss(x):       # independent of each eigenvector's free phase
    w, v = paddle.linalg.eig(x)
    return (paddle.abs(v) * paddle.to_tensor(W)).sum() + paddle.real(w ** 3).sum()


def test_gradient_of_a_real_matrix():
    a = A[0]
    x = paddle.to_tensor(a, stop_gradient=False)
    (g,) = paddle.grad(_loss(x), x)
    numeric = numeric_gradient(lambda m: float(_loss(paddle.to_tensor(m))), a)
    np.testing.assert_allclose(g.numpy(), numeric, atol=1e-7)
    xs = paddle.to_tensor(a, stop_gradient=False)
    paddle.jit.to_static(_loss)(xs).backward()
    np.testing.assert_allclose(xs.grad.numpy(), numeric, atol=1e-7)


def test_gradient_of_a_complex_matrix():
    z = A[0] + 1j * A[1]
    x = paddle.to_tensor(z, stop_gradient=False)
    (g,) = paddle.grad(_loss(x), x)
    numeric = numeric_gradient(lambda r: float(_loss(paddle.to_tensor(r + 1j * z.imag))), z.real) + \
        1j * numeric_gradient(lambda i: float(_loss(paddle.to_tensor(z.real + 1j * i))), z.imag)
    np.testing.assert_allclose(g.numpy(), numeric, atol=1e-7)


def test_xla_agrees():
    pytest.importorskip("jax", reason="jax is not installed (pip install 'dy2st[xla]')")
    w, v = paddle.jit.to_static(paddle.linalg.eig, backend="xla")(paddle.to_tensor(A))
    np.testing.assert_allclose(A @ v.numpy(), v.numpy() * w.numpy()[:, None, :], atol=1e-10)


@pytest.mark.parametrize("data, error, match", [
    (np.ones((2, 3)), ValueError, "square matrices"), (np.ones(3), ValueError, "square"),
    (np.ones((2, 2), "int64"), TypeError, "float32, float64"),
    (np.array([[1.0, np.nan], [0.0, 1.0]]), ValueError, "inf or nan")])
def test_bad_input(data, error, match):
    with pytest.raises(error, match=match):
        paddle.linalg.eig(paddle.to_tensor(data))
