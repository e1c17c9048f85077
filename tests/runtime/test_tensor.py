"""Eager Tensor basics: creation dtype rules, operators, indexing and the Python protocol."""
import numpy as np
import pytest

import dy2st as paddle


def test_to_tensor_scalar_dtypes():
    assert paddle.to_tensor(1.5).dtype == "float32"
    assert paddle.to_tensor(3).dtype == "int64"
    assert paddle.to_tensor(True).dtype == "bool"
    assert paddle.to_tensor([1.0, 2.0]).dtype == "float32"
    assert paddle.to_tensor([1, 2]).dtype == "int64"


def test_to_tensor_numpy_keeps_dtype():
    assert paddle.to_tensor(np.zeros(2)).dtype == "float64"
    assert paddle.to_tensor(np.zeros(2, "int32")).dtype == "int32"
    assert paddle.to_tensor(np.zeros(2, "float16")).dtype == paddle.float16


def test_to_tensor_explicit_dtype_and_copy():
    src = np.array([1, 2, 3])
    t = paddle.to_tensor(src, dtype="float32")
    assert t.dtype == paddle.float32
    src[0] = 100
    assert t.tolist() == [1.0, 2.0, 3.0]


def test_attributes():
    t = paddle.to_tensor(np.arange(6, dtype="float32").reshape(2, 3))
    assert t.shape == [2, 3]
    assert isinstance(t.shape, list)
    assert t.ndim == 2 and t.size == 6 and t.numel() == 6 and t.dim() == 2
    # numel() is a 0-d int64 tensor, as Paddle's and as a traced one (it was an int in eager)
    assert isinstance(t.numel(), paddle.Tensor) and t.numel().shape == [] and \
        t.numel().dtype == paddle.int64
    assert t.stop_gradient is True
    assert "cpu" in str(t.place).lower()
    assert t.numpy().dtype == np.float32
    assert paddle.to_tensor(7).item() == 7
    assert t.astype("int32").dtype == "int32"
    assert t.cast(paddle.float64).dtype == "float64"
    assert t.T.shape == [3, 2]


@pytest.mark.parametrize("dtype", ["int32", "float16", "float64", "uint8"])
def test_scalar_arithmetic_keeps_tensor_dtype(dtype):
    t = paddle.to_tensor(np.array([1, 2, 3], dtype=dtype))
    assert (t + 1).dtype == dtype
    assert (2 * t).dtype == dtype
    assert (t - True).dtype == dtype


def test_float_scalar_with_int_tensor_gives_float32():
    t = paddle.to_tensor(np.array([1, 2], "int32"))
    out = t * 2.5
    assert out.dtype == "float32"
    np.testing.assert_allclose(out.numpy(), [2.5, 5.0])


def test_binary_operators_and_reflected_forms():
    x = paddle.to_tensor([6.0, 9.0])
    y = paddle.to_tensor([2.0, 4.0])
    np.testing.assert_allclose((x + y).numpy(), [8, 13])
    np.testing.assert_allclose((x - y).numpy(), [4, 5])
    np.testing.assert_allclose((x * y).numpy(), [12, 36])
    np.testing.assert_allclose((x / y).numpy(), [3, 2.25])
    np.testing.assert_allclose((x // y).numpy(), [3, 2])
    np.testing.assert_allclose((x % y).numpy(), [0, 1])
    np.testing.assert_allclose((y ** 2).numpy(), [4, 16])
    np.testing.assert_allclose((10 - x).numpy(), [4, 1])
    np.testing.assert_allclose((12 / x).numpy(), [2, 12 / 9], rtol=1e-6)
    np.testing.assert_allclose((2 ** y).numpy(), [4, 16])
    np.testing.assert_allclose((20 // x).numpy(), [3, 2])
    np.testing.assert_allclose((20 % x).numpy(), [2, 2])
    m = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose((m @ m).numpy(), [[7, 10], [15, 22]])


def test_unary_comparison_and_bitwise_operators():
    x = paddle.to_tensor([-2, 3])
    assert (-x).tolist() == [2, -3]
    assert (+x).tolist() == [-2, 3]
    assert abs(x).tolist() == [2, 3]
    assert (~paddle.to_tensor([True, False])).tolist() == [False, True]
    assert (x < 0).tolist() == [True, False]
    assert (x <= 3).tolist() == [True, True]
    assert (x > 0).tolist() == [False, True]
    assert (x >= 3).tolist() == [False, True]
    assert (x == 3).tolist() == [False, True]
    assert (x != 3).tolist() == [True, False]
    assert (x == 3).dtype == "bool"
    b = paddle.to_tensor([6, 5])
    assert (b & 3).tolist() == [2, 1]
    assert (b | 1).tolist() == [7, 5]
    assert (b ^ 3).tolist() == [5, 6]
    assert (3 & b).tolist() == [2, 1]
    assert (1 | b).tolist() == [7, 5]


def test_augmented_assignment_rebinds():
    x = paddle.to_tensor([1.0, 2.0])
    alias = x
    x += 1
    x *= 3
    x -= 1
    x /= 2
    np.testing.assert_allclose(x.numpy(), [2.5, 4.0])
    assert x.dtype == "float32"
    assert alias.tolist() == [1.0, 2.0]       # `x += y` rebinds x, as for immutable values


def test_inplace_methods_keep_identity():
    y = paddle.to_tensor([1.0])
    assert y.add_(paddle.to_tensor([2.0])) is y
    assert y.tolist() == [3.0]


def test_getitem_ints_slices_none_ellipsis():
    a = paddle.to_tensor(np.arange(24).reshape(2, 3, 4))
    ref = np.arange(24).reshape(2, 3, 4)
    assert a[1].tolist() == ref[1].tolist()
    assert a[-1, 2, 3].item() == 23
    assert a[:, 1:].tolist() == ref[:, 1:].tolist()
    assert a[::-1, ::2].tolist() == ref[::-1, ::2].tolist()
    assert a[None].shape == [1, 2, 3, 4]
    assert a[..., 0].tolist() == ref[..., 0].tolist()
    assert a[0, ..., None].shape == [3, 4, 1]


def test_getitem_lists_int_tensors_and_masks():
    a = paddle.to_tensor(np.arange(12).reshape(3, 4))
    ref = np.arange(12).reshape(3, 4)
    assert a[[2, 0]].tolist() == ref[[2, 0]].tolist()
    assert a[paddle.to_tensor([1, 1])].tolist() == ref[[1, 1]].tolist()
    assert a[a > 8].tolist() == [9, 10, 11]
    assert a[paddle.to_tensor([True, False, True])].tolist() == ref[[0, 2]].tolist()


def test_setitem():
    a = paddle.to_tensor(np.zeros((2, 3), "float32"))
    a[0] = 1.0
    a[1, 2] = paddle.to_tensor(5.0)
    a[:, 0] = paddle.to_tensor([7.0, 8.0])
    assert a.tolist() == [[7, 1, 1], [8, 0, 5]]
    a[a > 4] = 0.0
    assert a.tolist() == [[0, 1, 1], [0, 0, 0]]
    assert a.dtype == "float32"


def test_bool_of_multi_element_tensor_raises_like_numpy():
    with pytest.raises(ValueError) as np_err:
        bool(np.array([1, 2]))
    with pytest.raises(type(np_err.value), match="ambiguous"):
        bool(paddle.to_tensor([1, 2]))
    assert bool(paddle.to_tensor([3])) is True
    assert bool(paddle.to_tensor(0)) is False


def test_int_float_index_len_iter():
    assert int(paddle.to_tensor(3.7)) == 3
    assert float(paddle.to_tensor(2)) == 2.0
    assert ["a", "b", "c"][paddle.to_tensor(2)] == "c"
    with pytest.raises(TypeError):
        ["a", "b"][paddle.to_tensor(1.0)]
    t = paddle.to_tensor([[1, 2], [3, 4], [5, 6]])
    assert len(t) == 3
    rows = list(t)
    assert len(rows) == 3 and all(isinstance(r, paddle.Tensor) for r in rows)
    assert rows[2].tolist() == [5, 6]
    with pytest.raises(TypeError):
        len(paddle.to_tensor(1))


def test_repr_is_paddle_like():
    text = repr(paddle.to_tensor([1.5, 2.0]))
    assert text.startswith("Tensor(shape=[2], dtype=float32, place=")
    assert "stop_gradient=True" in text
    assert "1.5" in text
