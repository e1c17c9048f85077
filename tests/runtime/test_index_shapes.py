"""Index tensors as Paddle code builds them: gather with an [N, 1] index and tensor arrays indexed
by shape-[1] tensors (issue 13), in eager mode, through to_static and after jit.save / jit.load."""
import numpy as np

import dy2st as paddle
from tests.support import three_modes


def _gather_column(x, index):
    return paddle.gather(x, index)


def test_gather_with_column_index_is_one_dim(tmp_path):
    x = np.arange(12, dtype="float32").reshape(6, 2)
    index = np.array([[1], [4]], dtype="int64")
    expected = x[[1, 4]]
    for out in three_modes(_gather_column, [x, index], [[None, 2], [None, 1]], tmp_path):
        assert out[0].shape == (2, 2)
        np.testing.assert_array_equal(out[0], expected)


def test_gather_column_index_along_axis_one(tmp_path):
    x = np.arange(12, dtype="float32").reshape(3, 4)
    out = paddle.gather(paddle.to_tensor(x), paddle.to_tensor([[3], [0], [3]]), axis=1)
    np.testing.assert_array_equal(out.numpy(), x[:, [3, 0, 3]])


def _array_by_shape1_index(x):
    arr = paddle.tensor.create_array("float32")
    i = paddle.zeros([1], "int64")
    arr = paddle.tensor.array_write(x, i, arr)
    i = i + 1
    arr = paddle.tensor.array_write(x * 2.0, i, arr)
    first = paddle.tensor.array_read(arr, paddle.zeros([1], "int64"))
    return first + paddle.tensor.array_read(arr, i), paddle.tensor.array_length(arr)


def test_array_write_read_with_shape1_index(tmp_path):
    x = np.arange(6, dtype="float32").reshape(3, 2)
    for total, length in three_modes(_array_by_shape1_index, [x], [[None, 2]], tmp_path):
        np.testing.assert_allclose(total, 3 * x)
        assert int(length) == 2


def _array_in_loop(x, n):
    arr = paddle.tensor.create_array("float32")
    i = paddle.zeros([1], "int64")
    while i < n:
        arr = paddle.tensor.array_write(x * paddle.cast(i, "float32"), i, arr)
        i = i + 1
    return paddle.tensor.array_read(arr, i - 1)


def test_array_write_with_shape1_index_in_tensor_loop(tmp_path):
    x = np.ones((2, 3), dtype="float32")
    n = np.array([4], dtype="int64")
    for (out,) in three_modes(_array_in_loop, [x, n], [[None, 3], [1]], tmp_path):
        np.testing.assert_allclose(out, 3 * x)
