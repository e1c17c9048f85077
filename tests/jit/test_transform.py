"""Building converted functions: closure cells are shared with the original, recursion finds
the function by its global name, and tensors assigned to globals are refused."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.jit import ConversionError


def make_counter():
    count = 0

    def step(x):
        nonlocal count
        count += 1
        return x + count

    return step, (lambda: count)


STEP, COUNT = make_counter()


def calls_closure_twice(x):
    return STEP(x) + STEP(x)


def test_closure_cells_are_shared_not_copied():
    sf = paddle.jit.to_static(calls_closure_twice)
    out = sf(paddle.to_tensor(np.zeros(1, "float32")))
    # one trace ran the closure twice: the counter in the ORIGINAL closure moved on
    assert out.numpy().tolist() == [3.0]
    assert COUNT() == 2


def countdown(x, n):
    if n == 0:
        return x
    if x.sum() > 0:
        x = x - 1.0
    return countdown(x, n - 1)


def test_module_level_recursion_finds_itself():
    x = np.array([2.0, 1.0], "float32")
    sf = paddle.jit.to_static(countdown)
    got = sf(paddle.to_tensor(x), 3).numpy()
    want = countdown(paddle.to_tensor(x), 3).numpy()
    np.testing.assert_allclose(got, want)


G = 5


def writes_global(x):
    global G
    G = x + 1
    return x * 2


def test_tensor_assigned_to_global_is_refused_and_global_restored():
    with pytest.raises(ConversionError) as info:
        paddle.jit.to_static(writes_global, full_graph=True)(paddle.to_tensor(np.ones(2, "float32")))
    assert "global 'G'" in str(info.value) and "G = x + 1" in str(info.value)
    assert G == 5


H = 0


def writes_python_global(x):
    global H
    H = H + 1
    return x * 2


def test_python_value_assigned_to_global_is_allowed():
    paddle.jit.to_static(writes_python_global)(paddle.to_tensor(np.ones(2, "float32")))
    assert H == 1
