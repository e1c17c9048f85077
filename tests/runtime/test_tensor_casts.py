"""The Tensor cast methods of Paddle 3 (`x.float()`, `.int()`, `.long()`, `.bool()`, `.double()`,
`.half()`, `.bfloat16()`, `.cfloat()`, `.cdouble()`, ...): the dtype and values of astype, in eager mode, under to_static and after
jit.save / jit.load, with gradients through the float casts."""
import numpy as np
import pytest

import dy2st as paddle
from tests.support import check_grad, randn, three_modes

CASTS = [("float", np.float32), ("double", np.float64), ("half", np.float16),
         ("int", np.int32), ("long", np.int64), ("short", np.int16), ("char", np.int8),
         ("byte", np.uint8), ("bool", np.bool_), ("cfloat", np.complex64),
         ("cdouble", np.complex128)]


@pytest.mark.parametrize("method, dtype", CASTS)
def test_cast_method_matches_astype(method, dtype):
    a = np.array([[0.0, 1.7, -2.2], [3.5, 0.2, 9.9]], dtype=np.float32)
    if dtype == np.uint8:
        a = np.abs(a)
    out = getattr(paddle.to_tensor(a), method)()
    assert out.numpy().dtype == dtype
    np.testing.assert_array_equal(out.numpy(), a.astype(dtype))


@pytest.mark.parametrize("method, dtype", [("long", np.int64), ("float", np.float32),
                                           ("bool", np.bool_), ("double", np.float64)])
def test_cast_methods_in_every_mode(method, dtype, tmp_path):
    a = randn(0, 3, 4) * 3

    def fn(x):
        return getattr(x, method)()

    for got in three_modes(fn, [a], [[None, 4]], tmp_path):
        assert got[0].dtype == dtype
        np.testing.assert_array_equal(got[0], a.astype(dtype))


def test_float_casts_pass_gradients():
    check_grad(lambda x: x.double() ** 2, randn(2, 4, dtype="float64"))
    x = paddle.to_tensor(randn(1, 2, 3, dtype="float64"), stop_gradient=False)
    (g,) = paddle.grad((x.float() * 3.0).sum(), [x])
    assert g.numpy().dtype == np.float64
    np.testing.assert_array_equal(g.numpy(), np.full((2, 3), 3.0))


def test_int_cast_of_a_float_stops_gradients():
    x = paddle.to_tensor(randn(3, 4), stop_gradient=False)
    assert x.long().stop_gradient


@pytest.mark.skipif(not paddle.amp.is_bfloat16_supported(), reason="ml_dtypes not installed")
def test_bfloat16_cast_method_rounds_like_astype():
    a = np.array([1.7, -2.2, 3.0e5], dtype=np.float32)
    out = paddle.to_tensor(a).bfloat16()
    assert out.dtype == paddle.bfloat16
    np.testing.assert_array_equal(out.astype("float32").numpy(),
                                  paddle.to_tensor(a).astype("bfloat16").astype("float32").numpy())
