"""A nested function reads outer names when it is called, not where it is defined: a value a
tensor `if` assigns and only a later closure call reads is an output of that `if`."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec


def through_closure(x):
    g = x * 0.5

    def inner(t):
        return t + g

    if x.sum() > 0:
        g = x * 3.0
    else:
        g = g - 1.0
    return inner(x)


def through_two_closures(x):
    g = x * 0.5

    def scale(t):
        return t * g

    def inner(t):
        return scale(t) + 1.0

    if x.mean() > 0:
        g = g + 2.0
    return inner(x)


@pytest.mark.parametrize("fn", [through_closure, through_two_closures])
def test_a_closure_sees_the_value_a_tensor_if_assigned(fn, tmp_path):
    static = paddle.jit.to_static(fn, input_spec=[InputSpec([None, 3], "float32")],
                                  full_graph=True)
    paddle.jit.save(static, str(tmp_path / "m"))
    loaded = paddle.jit.load(str(tmp_path / "m"))
    for value in (1.0, -1.0):           # both branches
        x = paddle.full([2, 3], value)
        want = fn(x).numpy()
        np.testing.assert_allclose(static(x).numpy(), want, rtol=1e-6)
        np.testing.assert_allclose(loaded(x).numpy(), want, rtol=1e-6)
