"""paddle.base: ParamAttr, to_variable and the dygraph guard Paddle model files import."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st import base
from dy2st.base.dygraph import guard, to_variable


def test_param_attr_is_the_nn_one():
    attr = base.ParamAttr(name="w", initializer=paddle.nn.initializer.Constant(0.5))
    fc = paddle.nn.Linear(2, 3, weight_attr=attr)
    np.testing.assert_array_equal(fc.weight.numpy(), np.full([2, 3], 0.5, "float32"))
    assert base.is_compiled_with_cuda() is False
    assert base.CPUPlace() == paddle.CPUPlace()


def test_to_variable_makes_tensors():
    t = to_variable(np.arange(6, dtype="int64").reshape(2, 3))
    assert t.dtype == paddle.int64 and t.shape == [2, 3]
    f = to_variable([1.5, 2.5], dtype="float64")
    assert f.dtype == paddle.float64
    np.testing.assert_array_equal(f.numpy(), [1.5, 2.5])


def test_guard_runs_eagerly_inside_static_mode():
    paddle.enable_static()
    try:
        with guard(base.CPUPlace()):
            y = paddle.to_tensor([1.0, 2.0]) * 3
            np.testing.assert_array_equal(y.numpy(), [3.0, 6.0])    # an eager value
        assert not paddle.in_dynamic_mode()                         # static mode is back
    finally:
        paddle.disable_static()
    with guard():
        assert paddle.in_dynamic_mode()


def test_guard_restores_static_mode_after_an_error():
    paddle.enable_static()
    try:
        with pytest.raises(ZeroDivisionError):
            with guard():
                1 / 0
        assert not paddle.in_dynamic_mode()
    finally:
        paddle.disable_static()
