"""layer_norm's kernel (rows of float32 / float64 through einsum sums, written into a buffer or
new) against a float64 reference: odd shapes, size-1 and empty dims, NaN / inf rows, the
general path for float16 and integers, and the gradient against finite differences."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.nn.functional.norm import layer_norm_array
from tests.support import numeric_gradient


def _reference(x, w, b, axes, eps=1e-5):
    x = x.astype(np.float64)
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    out = (x - mean) / np.sqrt(var + eps)
    tail = x.shape[axes[0]:]
    if w is not None:
        out = out * w.reshape(tail)
    if b is not None:
        out = out + b.reshape(tail)
    return out


@pytest.mark.parametrize("dtype, tol", [("float32", 2e-6), ("float64", 1e-12)])
@pytest.mark.parametrize("shape, begin", [((3, 7), 1), ((2, 3, 5), 1), ((4, 1), 1), ((1, 3, 1300), 2),
                                          ((2, 0, 6), 2), ((5,), 0)])
def test_layer_norm_matches_float64(dtype, tol, shape, begin):
    rng = np.random.default_rng(7)
    x = (rng.standard_normal(shape) * 3 + 1).astype(dtype)
    tail = shape[begin:]
    w = rng.standard_normal(tail).astype(dtype).reshape(-1)
    b = rng.standard_normal(tail).astype(dtype).reshape(-1)
    axes = tuple(range(begin, len(shape)))
    for aff, (hw, hb) in (((w, b), (True, True)), ((w,), (True, False)), ((), (False, False))):
        want = _reference(x, w if hw else None, b if hb else None, axes)
        out = layer_norm_array(x, aff, begin, 1e-5, hw, hb)
        assert out.dtype == np.dtype(dtype) and out.shape == x.shape
        np.testing.assert_allclose(out, want, rtol=tol, atol=tol)
        buf = np.empty_like(x)
        into = layer_norm_array(x.copy(), aff, begin, 1e-5, hw, hb, out=buf)
        assert into is buf
        np.testing.assert_array_equal(into, out)
        same = x.copy()                   # writing into the input itself
        np.testing.assert_array_equal(layer_norm_array(same, aff, begin, 1e-5, hw, hb, out=same), out)


def test_layer_norm_propagates_nan_and_inf_by_row_and_keeps_float16_and_int_paths():
    x = np.array([[1.0, np.nan, 2.0], [1.0, np.inf, 2.0], [1.0, 2.0, 4.0]], np.float32)
    with np.errstate(invalid="ignore"):
        out = layer_norm_array(x, (), 1, 1e-5, False, False)
    assert np.isnan(out[0]).all() and np.isnan(out[1]).all()
    np.testing.assert_allclose(out[2], _reference(x[2:], None, None, (1,))[0], rtol=2e-6)
    h = np.random.default_rng(1).standard_normal((4, 6)).astype(np.float16)
    assert layer_norm_array(h, (), 1, 1e-5, False, False).dtype == np.float16
    np.testing.assert_allclose(layer_norm_array(h, (), 1, 1e-5, False, False),
                               _reference(h, None, None, (1,)), atol=4e-3)
    i = np.arange(12, dtype=np.int32).reshape(3, 4)
    out = layer_norm_array(i, (), 1, 1e-5, False, False)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, _reference(i, None, None, (1,)), rtol=1e-5, atol=1e-5)


def test_layer_norm_gradient_matches_finite_differences():
    rng = np.random.default_rng(2)
    x0 = rng.standard_normal((2, 3, 4))
    w0, b0 = rng.standard_normal(4), rng.standard_normal(4)
    g = rng.standard_normal((2, 3, 4))

    def f(x, w, b):
        return float((_reference(x, w, b, (2,)) * g).sum())
    x, w, b = (paddle.to_tensor(a, stop_gradient=False) for a in (x0, w0, b0))
    (paddle.nn.functional.layer_norm(x, 4, w, b) * paddle.to_tensor(g)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), numeric_gradient(lambda a: f(a, w0, b0), x0), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(w.grad.numpy(), numeric_gradient(lambda a: f(x0, a, b0), w0), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(b.grad.numpy(), numeric_gradient(lambda a: f(x0, w0, a), b0), rtol=1e-6, atol=1e-7)
