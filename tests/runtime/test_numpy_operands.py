"""numpy values next to tensors, as Paddle has them: an array or numpy scalar on either side of
an operator gives a tensor (the array keeps its own dtype and promotes, a numpy scalar takes the
tensor's), eagerly and in a traced program with an unknown batch dim; `Tensor.numpy()` is a
copy that writing into does not change the tensor."""
import numpy as np
import pytest

import dy2st as paddle

X = np.arange(6, dtype="float32").reshape(2, 3) + 1.0
SPEC = [paddle.static.InputSpec([None, 3], "float32")]


def f64_scalar_left(x):
    return np.float64(2.0) * x


def f32_scalar_left_divide(x):
    return np.float32(3.0) / x


def array_left_add(x):
    return np.array([1.0, -2.0, 0.5], "float32") + x


def array_right_multiply(x):
    return x * np.array([1.0, -2.0, 0.5], "float32")


def float64_array_left_subtract(x):
    return np.array([1.0, 2.0, 3.0]) - x


def array_left_compare(x):
    return np.array([2.0, 2.0, 2.0], "float32") > x


def array_left_matmul(x):
    return np.ones((2, 2), "float32") @ x


def int_array_right_add_to_int_tensor(x):
    # an array of another integer dtype would be refused, as by Paddle (a tensor of its dtype)
    return x.astype("int64") + np.array([1, 2, 3], "int64")


def test_an_array_of_another_integer_dtype_is_refused_as_paddle():
    with pytest.raises(TypeError, match="int64 and int32"):
        paddle.to_tensor(X).astype("int64") + np.array([1, 2, 3], "int32")


# (function, Paddle 3.3.1's result dtype)
CASES = [(f64_scalar_left, "float32"), (f32_scalar_left_divide, "float32"),
         (array_left_add, "float32"), (array_right_multiply, "float32"),
         (float64_array_left_subtract, "float64"), (array_left_compare, "bool"),
         (array_left_matmul, "float32"), (int_array_right_add_to_int_tensor, "int64")]


@pytest.mark.parametrize("fn,dtype", CASES, ids=[c[0].__name__ for c in CASES])
def test_numpy_operands_give_tensors_of_paddles_dtype(fn, dtype):
    expected = fn(paddle.to_tensor(X))
    assert isinstance(expected, paddle.Tensor) and str(expected.dtype) == f"paddle.{dtype}"
    for static in (paddle.jit.to_static(fn, full_graph=True),
                   paddle.jit.to_static(fn, input_spec=SPEC, full_graph=True)):
        got = static(paddle.to_tensor(X))
        assert isinstance(got, paddle.Tensor) and got.dtype == expected.dtype
        np.testing.assert_allclose(got.numpy(), expected.numpy())


def test_the_gradient_flows_through_a_numpy_operand_on_the_left():
    x = paddle.to_tensor(X, stop_gradient=False)
    (np.array([1.0, -2.0, 0.5], "float32") * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.tile([1.0, -2.0, 0.5], (2, 1)))


def test_numpy_of_a_tensor_is_a_copy():
    x = paddle.to_tensor(X, stop_gradient=False)
    y = x * 2.0
    a = y.numpy()
    a[0] = 0.0
    np.testing.assert_allclose(y.numpy(), X * 2.0)
    (y * y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 8.0 * X)


def written_copy(x):
    a = x.numpy()
    a[0] = 0.0
    return x * 1.0 + paddle.to_tensor(a)


def test_writing_into_numpy_agrees_with_a_converted_function():
    expected = written_copy(paddle.to_tensor(X)).numpy()
    got = paddle.jit.to_static(written_copy)(paddle.to_tensor(X)).numpy()
    np.testing.assert_allclose(got, expected)
    np.testing.assert_allclose(expected[0], X[0])
