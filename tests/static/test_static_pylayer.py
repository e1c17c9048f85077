"""paddle.static.nn.static_pylayer (a forward with the user's backward, in a program and
eagerly) and paddle.static.device_guard."""
import numpy as np
import pytest

import dy2st as paddle
from tests.support import randn


def test_static_pylayer_uses_backward_fn_in_a_program():
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        x = paddle.static.data("x", [3], "float32")
        x.stop_gradient = False
        y = paddle.static.nn.static_pylayer(lambda t: paddle.exp(t), [x],
                                            backward_fn=lambda dy: dy * 5.0)
        loss = y.sum()
        (gx,) = paddle.static.gradients([loss], [x])
    a = randn(0, 3)
    out, g = paddle.static.Executor().run(main, feed={"x": a}, fetch_list=[y, gx])
    np.testing.assert_allclose(out, np.exp(a), rtol=1e-6)
    np.testing.assert_allclose(g, np.full(3, 5.0))


def test_static_pylayer_eagerly_and_without_backward():
    x = paddle.to_tensor(randn(1, 4), stop_gradient=False)
    y = paddle.static.nn.static_pylayer(lambda t: t * 2.0, [x], lambda dy: dy * 7.0)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(4, 7.0))
    z = paddle.static.nn.static_pylayer(lambda t: t * 2.0, [x])
    assert z.stop_gradient
    with pytest.raises(TypeError, match="forward_fn must be callable"):
        paddle.static.nn.static_pylayer(3, [x])


def test_device_guard():
    with paddle.static.device_guard("cpu"):
        assert paddle.device.get_device() == "cpu"
    with paddle.static.device_guard():
        pass
    with pytest.raises(ValueError, match="not compiled with CUDA"):
        with paddle.static.device_guard("gpu"):
            pass
