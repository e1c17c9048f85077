"""F.rms_norm and F.swiglu: values against numpy, (out, invvar) shapes, float16 input, errors,
and gradients (eager, to_static, finite differences)."""
import numpy as np
import pytest

import dy2st as paddle
from tests.autograd.gradcheck import check

F = paddle.nn.functional


def _rms(x, w, axes, eps=1e-5):
    inv = 1.0 / np.sqrt((x * x).mean(axis=axes, keepdims=True) + eps)
    return x * inv * (1.0 if w is None else w), inv


@pytest.mark.parametrize("shape,norm", [((2, 3, 4), [4]), ((2, 3, 4), [3, 4]), ((5,), 5)])
def test_rms_norm_matches_numpy(shape, norm):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype("float32")
    dims = [norm] if isinstance(norm, int) else norm
    w = rng.standard_normal(dims).astype("float32")
    out, invvar = F.rms_norm(paddle.to_tensor(x), norm, paddle.to_tensor(w), eps=1e-6)
    axes = tuple(range(x.ndim - len(dims), x.ndim))
    ref, inv = _rms(x, w, axes, 1e-6)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-5, atol=1e-6)
    assert invvar.dtype == "float32" and invvar.shape == [int(np.prod(shape[:x.ndim - len(dims)]))]
    np.testing.assert_allclose(invvar.numpy(), inv.reshape(-1), rtol=1e-5)


def test_rms_norm_without_weight_and_in_float16():
    x = np.linspace(-2, 3, 12).reshape(3, 4).astype("float16")
    out, invvar = F.rms_norm(paddle.to_tensor(x), [4])
    assert out.dtype == "float16" and invvar.dtype == "float32"
    ref, _ = _rms(x.astype("float32"), None, (1,))
    np.testing.assert_allclose(out.numpy().astype("float32"), ref, rtol=2e-3, atol=2e-3)


def test_rms_norm_rejects_shapes_that_do_not_match():
    x = paddle.ones([2, 4])
    with pytest.raises(ValueError, match="normalized_shape"):
        F.rms_norm(x, [3])
    with pytest.raises(ValueError, match="weight"):
        F.rms_norm(x, [4], paddle.ones([3]))


def test_rms_norm_gradients():
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((2, 3)), rng.standard_normal(3)
    check(lambda a, b: F.rms_norm(a, [3], b)[0] * paddle.to_tensor([1.0, -2.0, 0.5]), [x, w])


def test_swiglu_two_inputs_and_one_split_input():
    rng = np.random.default_rng(2)
    x, y = rng.standard_normal((2, 4)), rng.standard_normal((2, 4))
    silu = x / (1 + np.exp(-x))
    np.testing.assert_allclose(F.swiglu(paddle.to_tensor(x), paddle.to_tensor(y)).numpy(),
                               silu * y, rtol=1e-12)
    half = F.swiglu(paddle.to_tensor(x)).numpy()
    np.testing.assert_allclose(half, silu[:, :2] * x[:, 2:], rtol=1e-12)
    with pytest.raises(ValueError, match="even"):
        F.swiglu(paddle.ones([2, 3]))


def test_swiglu_gradients():
    rng = np.random.default_rng(3)
    check(lambda a: F.swiglu(a), [rng.standard_normal((2, 4))])
    check(lambda a, b: F.swiglu(a, b), [rng.standard_normal(3), rng.standard_normal(3)])
