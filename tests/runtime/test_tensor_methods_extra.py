"""The Tensor methods without an op function of their own: ndimension, mT, to, contiguous,
repeat, rank, is_tensor, is_same_shape, concat / stack on a tensor, split_with_sizes,
retain_grads, inplace_version, copy_ and set_; the comparison aliases as methods."""
import numpy as np
import pytest

import dy2st as paddle
from tests.support import run_static

A = np.arange(24.0).reshape(2, 3, 4)


def test_shape_methods_eager_and_static():
    x = paddle.to_tensor(A)
    assert x.ndimension() == 3 and x.is_contiguous() and x.contiguous() is x and x.is_tensor()
    np.testing.assert_array_equal(x.mT.numpy(), np.swapaxes(A, -1, -2))
    np.testing.assert_array_equal(x.repeat(1, 2, 1).numpy(), np.tile(A, (1, 2, 1)))
    np.testing.assert_array_equal(x.concat(axis=1).numpy(), np.concatenate(list(A), 1))
    np.testing.assert_array_equal(x.stack(axis=1).numpy(), np.stack(list(A), 1))
    parts = x.split_with_sizes([1, 3], dim=2)
    np.testing.assert_array_equal(parts[1].numpy(), A[:, :, 1:])
    assert x.is_same_shape(paddle.zeros([2, 3, 4])) and not x.is_same_shape(paddle.zeros([3]))
    out = run_static(lambda t: [t.mT, t.repeat([2, 1, 1]), t.swapaxes(0, 1), t.gt(10.0)], A,
                     shapes=[[None, 3, 4]])
    np.testing.assert_array_equal(out[0], np.swapaxes(A, -1, -2))
    np.testing.assert_array_equal(out[1], np.tile(A, (2, 1, 1)))
    np.testing.assert_array_equal(out[2], np.swapaxes(A, 0, 1))
    np.testing.assert_array_equal(out[3], A > 10)


def test_comparison_methods():
    x, y = paddle.to_tensor([1, 2, 3]), paddle.to_tensor([3, 2, 1])
    for name, ref in (("eq", np.equal), ("ne", np.not_equal), ("lt", np.less),
                      ("le", np.less_equal), ("gt", np.greater), ("ge", np.greater_equal)):
        np.testing.assert_array_equal(getattr(x, name)(y).numpy(), ref([1, 2, 3], [3, 2, 1]))


def test_to_casts_and_refuses_other_devices():
    x = paddle.to_tensor([1.5, 2.5])
    assert x.to("float64").dtype == paddle.float64
    assert x.to("cpu") is x and x.to(paddle.CPUPlace(), "int32").dtype == paddle.int32
    assert x.to(paddle.zeros([1], "int64")).dtype == paddle.int64
    assert x.to(dtype="float16").dtype == paddle.float16
    with pytest.raises(ValueError, match="CPU only"):
        x.to("gpu:0")


def test_retain_grads_and_inplace_version():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    y = x * 3
    y.retain_grads()
    (y * y).sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), [6.0, 12.0])
    np.testing.assert_allclose(x.grad.numpy(), [18.0, 36.0])
    z = paddle.ones([2])
    assert z.inplace_version == 0
    z.add_(paddle.ones([2]))
    z.scale_(2.0)
    assert z.inplace_version == 2


def test_copy_and_set():
    x = paddle.zeros([2, 3])
    assert x.copy_(paddle.to_tensor([1.0, 2.0, 3.0])) is x
    np.testing.assert_array_equal(x.numpy(), [[1, 2, 3], [1, 2, 3]])
    x.set_(paddle.arange(6, dtype="float32"), shape=[3, 2])
    assert x.shape == [3, 2] and x.numpy()[2, 1] == 5
    x.set_()
    assert x.shape == [0]
    with pytest.raises(ValueError, match="stride"):
        x.set_(paddle.ones([2]), [2], stride=[1])
