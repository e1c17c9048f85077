"""Assorted: isinstance on tensors, Sequential of user Layers with control flow,
lists grown in tensor loops used afterwards (iteration, slicing, `+`), loop else-clauses, returns
inside loops over tensor rows, try/except around a tensor if."""
import numpy as np
import pytest

import dy2st as paddle

nn = paddle.nn


def i64(v):
    return np.array(v, dtype="int64")


def f32(v):
    return np.asarray(v, dtype="float32")


# ---------------------------------------------------------------- isinstance on symbolic tensors
def add_if_tensor(x, y=None):
    if isinstance(y, paddle.Tensor):
        x = x + y
    return x


def test_isinstance_paddle_tensor_of_input(check):
    check(add_if_tensor, (f32([1.0]), f32([2.0])))


def test_isinstance_paddle_tensor_none_path(check):
    check(add_if_tensor, (f32([1.0]),))


def test_is_tensor_of_input(check):
    def fn(x, y):
        if paddle.is_tensor(y):
            x = x + y
        return x
    check(fn, (f32([1.0]), f32([2.0])))


# ---------------------------------------------------------------- Sequential of user Layers
class Gate(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x):
        if x.mean() > 0:
            return self.fc(x)
        return x * 0.5


class SeqOfGates(nn.Layer):
    def __init__(self):
        super().__init__()
        self.blocks = nn.Sequential(Gate(), Gate())

    def forward(self, x):
        return self.blocks(x)


def test_sequential_of_user_layers_with_tensor_if(check):
    paddle.seed(3)
    net = SeqOfGates()
    net.eval()
    check(net, (f32(np.ones((2, 3))),), (f32(-np.ones((3, 3))),))


def test_layerlist_of_user_layers_with_tensor_if(check):
    class Net(nn.Layer):
        def __init__(self):
            super().__init__()
            self.blocks = nn.LayerList([Gate(), Gate()])

        def forward(self, x):
            for b in self.blocks:
                x = b(x)
            return x
    paddle.seed(3)
    check(Net(), (f32(np.ones((2, 3))),), (f32(-np.ones((3, 3))),))


# ---------------------------------------------------------------- lists grown in tensor loops
def iterate_after_loop(x, n):
    outs = [x]
    for i in range(n):
        outs.append(x * (i + 2))
    s = paddle.zeros_like(x)
    for t in outs:
        s = s + t
    return s


def plus_list_after_loop(x, n):
    outs = [x]
    for i in range(n):
        outs.append(x * (i + 2))
    return paddle.stack(outs + [x])


def slice_after_loop(x, n):
    outs = [x]
    for i in range(n):
        outs.append(x * (i + 2))
    return paddle.stack(outs[1:])


def sum_builtin_after_loop(x, n):
    outs = [x]
    for i in range(n):
        outs.append(x * (i + 2))
    return sum(outs)


def enumerate_after_loop(x, n):
    outs = [x]
    for i in range(n):
        outs.append(x * (i + 2))
    s = paddle.zeros_like(x)
    for k, t in enumerate(outs):
        s = s + t * k
    return s


def index_len_concat_after_loop(x, n):
    outs = [x]
    for i in range(n):
        outs.append(x * (i + 2))
    return outs[-1], len(outs), paddle.concat(outs)




def test_iterate_list_after_tensor_loop(check):
    check(iterate_after_loop, (f32([1.0, 2.0]), i64(3)), (f32([1.0, 2.0]), i64(0)))


def test_enumerate_list_after_tensor_loop(check):
    check(enumerate_after_loop, (f32([1.0, 2.0]), i64(3)), (f32([1.0, 2.0]), i64(0)))


def test_plus_list_after_tensor_loop(check):
    check(plus_list_after_loop, (f32([1.0, 2.0]), i64(3)), (f32([1.0, 2.0]), i64(0)))


def test_slice_list_after_tensor_loop(check):
    check(slice_after_loop, (f32([1.0, 2.0]), i64(3)), (f32([1.0, 2.0]), i64(1)))


def test_sum_builtin_list_after_tensor_loop(check):
    check(sum_builtin_after_loop, (f32([1.0, 2.0]), i64(3)), (f32([1.0, 2.0]), i64(0)))


def test_index_len_concat_after_tensor_loop(check):
    check(index_len_concat_after_loop, (f32([1.0, 2.0]), i64(3)), (f32([1.0, 2.0]), i64(0)))


# ---------------------------------------------------------------- loops: else, returns over rows
def while_else_tensor(x):
    i = 0
    while i < x.sum():
        i += 1
        if i > 3:
            break
    else:
        i = -100
    return i


def for_else_tensor_break(x, n):
    for i in range(n):
        if x[0] > i:
            break
    else:
        x = x * 0.0
    return x


def return_first_big_row(x):
    for row in x:
        if row.sum() > 1.0:
            return row
    return x[0] * 0.0


def enumerate_rows_break(x):
    s = paddle.zeros([x.shape[1]])
    for i, row in enumerate(x):
        if row.sum() > 2.0:
            break
        s = s + row * i
    return s


def fib_tuple_swap(x, y, n):
    for _ in range(n):
        x, y = y, x + y
    return x, y


def first_positive_index(x, n):
    idx = -1
    for i in range(n):
        if x[i] > 0:
            idx = i
            break
    return idx


@pytest.mark.parametrize("v", [[2.0], [10.0], [0.0]])
def test_while_else_tensor(check, v):
    check(while_else_tensor, (f32(v),))


@pytest.mark.parametrize("v,n", [([2.0], 5), ([10.0], 3), ([-1.0], 2)])
def test_for_else_tensor_break(check, v, n):
    check(for_else_tensor_break, (f32(v), i64(n)))


def test_return_first_big_row(check):
    check(return_first_big_row, (f32([[0.0, 0.0], [1.0, 1.0]]),), (f32([[0.0, 0.0], [0.0, 0.0]]),))


def test_enumerate_rows_break(check):
    check(enumerate_rows_break, (f32(np.ones((3, 2))),), (f32(np.full((3, 2), 0.5)),))


@pytest.mark.parametrize("n", [0, 5])
def test_fib_tuple_swap(check, n):
    check(fib_tuple_swap, (f32([1.0]), f32([1.0]), i64(n)))


@pytest.mark.parametrize("v", [[-1.0, 2.0, 3.0], [-1.0, -2.0, -3.0]])
def test_first_positive_index(check, v):
    check(first_positive_index, (f32(v), i64(3)))


# ---------------------------------------------------------------- try / except
def try_around_tensor_if(x):
    try:
        y = x + 1.0
        if y.sum() > 0:
            y = y * 2.0
    except ValueError:
        y = x
    return y


def test_try_around_tensor_if_is_refused_naming_the_try(check):
    # issue 3: `try` around tensor-dependent control flow raises a dy2st error naming the
    # construct and the user's line (an except clause could never catch a run-time error)
    import inspect
    with pytest.raises(paddle.jit.ConversionError) as info:
        paddle.jit.to_static(try_around_tensor_if, full_graph=True)(paddle.to_tensor(f32([1.0])))
    lines, start = inspect.getsourcelines(try_around_tensor_if)
    msg = str(info.value)
    assert f"`try` statement at line {start + 1}" in msg, msg
    assert f"line {start + 3}" in msg and "if y.sum() > 0:" in msg, msg


def finally_around_tensor_if(x):
    try:
        y = x * 2.0
        if y.sum() > 0:
            y = y + 1.0
    finally:
        y = y * 0.5
    return y


def return_in_try_finally_in_loop(x):
    for r in x:
        try:
            if r.sum() > 1.0:
                return r * 3.0
        finally:
            pass
    return x.sum(axis=0)


@pytest.mark.parametrize("fn", [finally_around_tensor_if, return_in_try_finally_in_loop])
def test_try_with_only_finally_around_tensor_control_flow_converts(check, fn):
    # audit round 6: a try without `except` catches nothing, so nothing is refused
    check(fn, (f32([[1.0, 2.0], [0.5, 0.1]]),), (f32([[-1.0, -2.0]]),), full_graph=True)


def assert_caught(x):
    try:
        assert x.sum() > 0, "negative"
        y = x * 2.0
    except AssertionError:
        y = -x
    return y


def test_tensor_assert_inside_try_is_refused_or_breaks():
    # audit round 6: the assert op raised when the program ran, past the user's `except`
    with pytest.raises(paddle.jit.ConversionError, match="`assert` inside the `try`"):
        paddle.jit.to_static(assert_caught, full_graph=True)(paddle.to_tensor(f32([-1.0])))
    static = paddle.jit.to_static(assert_caught)
    for v in ([1.0, 2.0], [-1.0, -2.0], [3.0, 1.0]):
        np.testing.assert_allclose(static(paddle.to_tensor(f32(v))).numpy(),
                                   assert_caught(paddle.to_tensor(f32(v))).numpy())


def return_in_while_else(x):
    i = paddle.zeros([], "int64")
    while i < x.shape[0]:
        if x[i].sum() > 1.0:
            return x[i], i
        i = i + 1
    else:
        return x[0] * 0.0, i


def return_in_for_else_after_inner_break(x):
    for r in x:
        for c in range(2):
            if r[c] > 5.0:
                break           # the inner loop's own: the outer one still always returns
        if r.sum() > 1.0:
            return r * 2.0
    else:
        return x[0] - 1.0


@pytest.mark.parametrize("fn", [return_in_while_else, return_in_for_else_after_inner_break])
def test_a_loop_whose_else_returns_always_returns(check, fn):
    # audit round 6: the end of the function after such a loop was taken as a path returning
    # None, so full_graph=True refused a tuple on the loop's paths ("different structure")
    for full_graph in (True, False):
        check(fn, (f32([[1.0, 2.0], [0.5, 0.1]]),), (f32([[-1.0, -2.0], [0.1, 0.2]]),),
              (f32([[0.1, 0.2], [3.0, 1.0]]),), full_graph=full_graph)
