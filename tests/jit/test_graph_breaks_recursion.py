"""Recursion and re-entry through graph breaks (issue 23, item 7): a to_static function that
calls itself, directly or through another one, with a break at every level, up to depth 50."""
import numpy as np
import pytest

import dy2st as paddle

X = np.linspace(-1, 1, 6, dtype="float32").reshape(2, 3)


def rec(x, n):
    if n == 0:
        return x
    s = float(np.sum(np.abs(x.numpy())))     # a break at every level
    return rec(x * 0.5 + s * 0.01, n - 1) + 1


static_rec = paddle.jit.to_static(rec)


def via_static(x, n):
    if n == 0:
        return x
    s = float(np.sum(np.abs(x.numpy())))
    return static_rec(x + s * 0.01, n - 1) * 0.5


@pytest.mark.parametrize("depth", [1, 3, 10, 50])
def test_recursion_through_a_break(depth):
    for call in range(4):       # the KeyError came on the third call
        np.testing.assert_allclose(static_rec(paddle.to_tensor(X), depth).numpy(),
                                   rec(paddle.to_tensor(X), depth).numpy(), rtol=1e-5,
                                   err_msg=f"call {call + 1}")


def test_reentry_from_another_static_function():
    static = paddle.jit.to_static(via_static)
    for depth in (0, 2, 7, 50, 2):
        np.testing.assert_allclose(static(paddle.to_tensor(X), depth).numpy(),
                                   via_static(paddle.to_tensor(X), depth).numpy(), rtol=1e-5)


def even(x, n):
    if n == 0:
        return x
    _ = np.tanh(x.numpy())
    return odd(x + 1, n - 1)


def odd(x, n):
    if n == 0:
        return -x
    _ = np.tanh(x.numpy())
    return even(x * 2, n - 1)


def test_mutual_recursion_through_breaks():
    static_even = paddle.jit.to_static(even)
    for n in (0, 1, 5, 50, 5):
        np.testing.assert_allclose(static_even(paddle.to_tensor(X), n).numpy(),
                                   even(paddle.to_tensor(X), n).numpy(), rtol=1e-5)
