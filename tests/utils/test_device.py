"""Device queries answer for a CPU-only build, and Tensor.cpu() is a differentiable copy."""
import numpy as np

import dy2st as paddle
from tests.support import check_grad, randn, three_modes


def test_is_compiled_with_accelerators_is_false():
    assert paddle.is_compiled_with_cuda() is False
    assert paddle.is_compiled_with_rocm() is False
    assert paddle.is_compiled_with_xpu() is False
    assert paddle.is_compiled_with_custom_device("npu") is False
    # the usual guard in Paddle scripts picks the CPU place
    place = "cuda" if paddle.is_compiled_with_cuda() else paddle.CPUPlace()
    assert place == paddle.CPUPlace()


def test_cpu_returns_an_equal_copy():
    x = paddle.to_tensor(randn(0, 2, 3))
    y = x.cpu()
    assert y is not x
    np.testing.assert_array_equal(y.numpy(), x.numpy())
    y.add_(paddle.ones([2, 3]))     # the copy does not alias the original
    np.testing.assert_array_equal(x.numpy(), randn(0, 2, 3))


def test_cpu_in_every_mode(tmp_path):
    a = randn(1, 3, 4)
    eager, static, loaded = three_modes(lambda x: x.cpu() * 2.0, [a], [[None, 4]], tmp_path)
    for got in (eager, static, loaded):
        np.testing.assert_allclose(got[0], a * 2.0, rtol=1e-6)


def test_cpu_passes_gradients():
    check_grad(lambda x: (x.cpu() * x).sum(), randn(2, 3, 2, dtype="float64"))
