"""An eager kernel's error names the op and the user's line (as a static Program's errors do)
and keeps its type; a broadcast mismatch names the dim that fails, eagerly and while tracing."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.runtime.errors import broadcast_mismatch
from dy2st.runtime.ops.infer import broadcast_shapes


def _line_of(fn, text):
    import inspect
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


def add_mismatched():
    a = paddle.ones([2, 4])
    b = paddle.ones([2, 3])
    return a + b


def test_an_eager_broadcast_error_names_the_op_the_dim_and_the_line():
    with pytest.raises(ValueError) as info:
        add_mismatched()
    text = str(info.value)
    assert text.startswith("add: shapes [2, 4] and [2, 3] cannot be broadcast: dim 1 of the "
                           "first is 4 but dim 1 of the second is 3")
    assert f'test_eager_errors.py", line {_line_of(add_mismatched, "a + b")}, in add_mismatched' in text
    assert "return a + b" in text


def matmul_mismatched():
    return paddle.matmul(paddle.ones([2, 4]), paddle.ones([3, 3]))


def test_an_eager_kernel_error_names_the_op_and_the_line():
    with pytest.raises(ValueError) as info:
        matmul_mismatched()
    text = str(info.value)
    assert text.startswith("matmul:") and text.count("matmul:") == 1
    assert f'line {_line_of(matmul_mismatched, "paddle.matmul")}, in matmul_mismatched' in text


def test_the_error_keeps_its_type_for_except_clauses():
    x = paddle.to_tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    with pytest.raises(ValueError, match="reshape"):
        paddle.reshape(x, [4, 4])


def test_a_to_static_error_names_the_line_once():
    @paddle.jit.to_static
    def f(a, b):
        c = a * 2
        return c + b

    with pytest.raises(ValueError) as info:
        f(paddle.ones([2, 4]), paddle.ones([2, 3]))
    text = str(info.value)
    assert "dim 1 of the first is 4 but dim 1 of the second is 3" in text
    assert text.count("return c + b") == 1


@pytest.mark.parametrize("a, b, dims", [
    ([2, 4], [2, 3], (1, 1)),
    ([4, 3], [3, 3], (0, 0)),
    ([5, 2, 4], [2, 3], (2, 1)),
    ([4], [2, 3], (0, 1)),
])
def test_static_inference_names_the_failing_dim_of_each_shape(a, b, dims):
    with pytest.raises(ValueError, match=rf"dim {dims[0]} of the first is {a[dims[0]]} but dim "
                                         rf"{dims[1]} of the second is {b[dims[1]]}"):
        broadcast_shapes("add", a, b)


@pytest.mark.parametrize("a, b", [([2, 1], [2, 3]), ([-1, 3], [2, 3]), ([3], [2, 3]), ([], [4])])
def test_broadcastable_shapes_have_no_mismatch(a, b):
    assert broadcast_mismatch("add", a, b) is None
    assert broadcast_shapes("add", a, b) == tuple(np.broadcast_shapes(
        tuple(2 if d == -1 else d for d in a), tuple(b)))


def test_an_eager_error_in_a_graph_break_names_the_line_once():
    @paddle.jit.to_static
    def g(a, b):
        s = paddle.to_tensor(np.sum(a.numpy())) + a + b
        return s

    with pytest.raises(ValueError) as info:
        g(paddle.ones([2, 4]), paddle.ones([2, 3]))
    text = str(info.value)
    assert text.startswith("In user code:") and "dim 1 of the first is 4" in text
    assert text.count("np.sum(a.numpy())") == 1
