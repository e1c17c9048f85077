"""paddle.in_dynamic_mode() inside converted code answers as Paddle does: True in the default
mode (full_graph=False, Paddle's SOT), in every region and island, False with full_graph=True
(Paddle's AST mode) and under enable_static (issue 23, item 6)."""
import numpy as np
import pytest

import dy2st as paddle

X = np.arange(6, dtype="float32").reshape(2, 3)


def mode_no_break(x):
    return x + (1 if paddle.in_dynamic_mode() else -1)


def mode_around_a_break(x):
    a = paddle.in_dynamic_mode()            # first region
    y = np.tanh(x.numpy())                  # island
    b = paddle.in_dynamic_mode()            # second region
    return x * (2 if a and b else 3) + paddle.to_tensor(y) * 0


def mode_in_helper(x):
    return mode_no_break(x) * 2


@pytest.mark.parametrize("fn", [mode_no_break, mode_around_a_break, mode_in_helper])
def test_default_mode_answers_true_every_call(fn):
    static = paddle.jit.to_static(fn)
    for i in range(4):
        np.testing.assert_allclose(static(paddle.to_tensor(X)).numpy(),
                                   fn(paddle.to_tensor(X)).numpy(), err_msg=f"call {i + 1}")


def test_full_graph_answers_false():
    static = paddle.jit.to_static(mode_no_break, full_graph=True)
    for _ in range(2):
        np.testing.assert_allclose(static(paddle.to_tensor(X)).numpy(), X - 1)


def test_static_mode_answers_false():
    paddle.enable_static()
    try:
        assert not paddle.in_dynamic_mode()
    finally:
        paddle.disable_static()
    assert paddle.in_dynamic_mode()


def test_eager_answers_true_after_a_trace():
    paddle.jit.to_static(mode_no_break)(paddle.to_tensor(X))
    assert paddle.in_dynamic_mode()
