"""Scenarios: while/for with tensor trip counts (incl. zero), nested loops with ifs, complex
and/or/not loop conditions, break/continue in nested loops, enumerate/zip over tensors and lists,
carried values that change from Python numbers to tensors."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec
from tests.support import randn as _rand


def _i(v):
    return np.array(v, dtype="int64")


# --- if inside while inside for ---------------------------------------------------------------

def if_in_while_in_for(x, n):
    out = paddle.zeros_like(x)
    for k in range(3):
        i = paddle.zeros([], dtype="int64")
        while i < n:
            if (i + k) % 2 == 0:
                out = out + x
            else:
                out = out - 0.5 * x
            i += 1
    return out


@pytest.mark.parametrize("n", [0, 1, 4])
def test_if_inside_while_inside_python_for(check, n):
    check(if_in_while_in_for, (_rand(1, 3), _i(n)))


def if_in_while_in_tensor_for(x, n, m):
    out = paddle.zeros_like(x)
    for k in range(n):
        j = 0
        while j < m:
            if out.sum() > 5.0:
                out = out - 1.0
            else:
                out = out + x
            j += 1
    return out


@pytest.mark.parametrize("n,m", [(0, 2), (2, 0), (3, 2), (2, 5)])
def test_if_inside_while_inside_tensor_for(check, n, m):
    check(if_in_while_in_tensor_for, (np.ones(3, "float32"), _i(n), _i(m)))


# --- while with complex conditions ----------------------------------------------------------

def while_mixed_cond(x, limit):
    a = 1
    s = paddle.zeros([], dtype="float32")
    while (s < limit and a < 10) or (not a > 0):
        s = s + x.sum()
        a = a + 1
    return s, a


@pytest.mark.parametrize("limit", [-1.0, 3.0, 100.0])
def test_while_with_and_or_not_mixing_python_and_tensor(check, limit):
    check(while_mixed_cond, (np.ones(2, "float32"), np.array(limit, "float32")))


def while_not_tensor(x):
    i = paddle.zeros([], dtype="int64")
    while not (x.sum() > 10.0 or i >= 6):
        x = x + 1.0
        i = i + 1
    return x, i


def test_while_not_or(check, arr):
    check(while_not_tensor, (arr([0.0, 0.0]),), (arr([20.0, 0.0]),), (arr([4.0, 0.0]),))


def while_python_int_to_tensor(x):
    # `i` starts as a Python int, is compared to a tensor and becomes a tensor
    i = 0
    total = 0.0
    while i < x.shape[0] * 0 + paddle.sum(x > 0):
        total = total + 1.5
        i = i + 1
    return i, total


def test_while_python_values_become_tensors(check, arr):
    check(while_python_int_to_tensor, (arr([1.0, -1.0, 2.0]),), (arr([-1.0, -1.0]),))


def while_float_accumulator(x, n):
    acc = 0.0
    i = 0
    while i < n:
        acc = acc + x[i]
        i += 1
    return acc


def test_while_float_accumulator_becomes_tensor(check, arr):
    check(while_float_accumulator, (arr([1.0, 2.0, 3.0]), _i(3)), (arr([1.0, 2.0, 3.0]), _i(0)))


# --- break / continue -------------------------------------------------------------------------

def nested_break_continue(x, n):
    total = paddle.zeros([], dtype="float32")
    for i in range(n):
        for j in range(4):
            if j > i:
                break
            if (x[j] < 0):
                continue
            total = total + x[j] * (i + 1)
        if total > 20.0:
            break
    return total


@pytest.mark.parametrize("n", [0, 1, 3, 10])
def test_nested_break_continue_tensor_conditions(check, arr, n):
    check(nested_break_continue, (arr([1.0, -2.0, 3.0, 4.0]), _i(n)))


def while_true_break(x):
    i = 0
    while True:
        x = x * 2.0
        i += 1
        if x.sum() > 50.0:
            break
    return x, i


def test_while_true_with_tensor_break(check, arr):
    check(while_true_break, (arr([1.0, 1.0]),), (arr([30.0, 30.0]),))


def break_in_while_with_else(x, n):
    i = paddle.zeros([], dtype="int64")
    found = paddle.to_tensor(-1)
    while i < n:
        if x[i] > 0:
            found = i
            break
        i += 1
    return found


def test_break_records_index(check, arr):
    check(break_in_while_with_else, (arr([-1.0, -2.0, 3.0]), _i(3)), (arr([-1.0, -2.0, -3.0]), _i(3)),
          (arr([1.0, 2.0]), _i(0)))


def continue_in_while(x, n):
    i = 0
    s = paddle.zeros_like(x)
    while i < n:
        i += 1
        if i % 2 == 0:
            continue
        s = s + x * i
    return s


def test_continue_in_tensor_while(check, arr):
    check(continue_in_while, (arr([1.0]), _i(0)), (arr([1.0]), _i(5)))


def break_in_for_over_tensor_rows(x):
    acc = paddle.zeros([x.shape[1]], dtype="float32")
    for row in x:
        if row.sum() < 0:
            break
        acc = acc + row
    return acc


def test_break_in_for_over_rows(check, arr):
    check(break_in_for_over_tensor_rows, (arr([[1.0, 1.0], [-5.0, 1.0], [2.0, 2.0]]),),
          (arr([[1.0, 1.0], [5.0, 1.0]]),))


def for_else_python(x, n):
    for i in range(n):
        if i == 2:
            break
        x = x + 1.0
    else:
        x = x * 10.0
    return x


def test_for_else_python_loop(check, arr):
    check(for_else_python, (arr([1.0]), 1), (arr([1.0]), 5))


# --- enumerate / zip --------------------------------------------------------------------------

def enumerate_python_list_of_tensors(x):
    items = [x, x * 2.0, x * 3.0]
    out = paddle.zeros_like(x)
    for i, t in enumerate(items):
        if t.sum() > 2.0:
            out = out + t * i
    return out


def test_enumerate_list_of_tensors_with_tensor_if(check, arr):
    check(enumerate_python_list_of_tensors, (arr([1.0, 0.0]),), (arr([-1.0, 0.0]),))


def enumerate_start_tensor(x):
    s = paddle.zeros([x.shape[1]], dtype="float32")
    for i, row in enumerate(x, start=1):
        s = s + row * i
    return s


def test_enumerate_start_over_tensor(check):
    check(enumerate_start_tensor, (_rand(2, 3, 2),), (_rand(3, 1, 2),),
          input_spec=[InputSpec([None, 2], "float32")])


def zip_tensor_and_list(x):
    weights = [0.5, 1.0, 2.0]
    out = paddle.zeros([x.shape[1]], dtype="float32")
    for row, w in zip(x, weights):
        out = out + row * w
    return out


def test_zip_tensor_rows_with_python_list(check):
    check(zip_tensor_and_list, (_rand(4, 3, 2),), (_rand(5, 2, 2),))


def zip_enumerate(x, y):
    out = paddle.zeros([x.shape[1]], dtype="float32")
    for i, (a, b) in enumerate(zip(x, y)):
        if i % 2 == 0:
            out = out + a * b
        else:
            out = out - a
    return out


def test_enumerate_of_zip(check):
    check(zip_enumerate, (_rand(6, 3, 2), _rand(7, 3, 2)), (_rand(6, 4, 2), _rand(7, 4, 2)))


def test_enumerate_of_zip_dynamic_batch(check):
    spec = [InputSpec([None, 2], "float32"), InputSpec([None, 2], "float32")]
    check(zip_enumerate, (_rand(6, 3, 2), _rand(7, 3, 2)), (_rand(6, 1, 2), _rand(7, 1, 2)), input_spec=spec)


def for_over_tensor_elements_1d(x):
    s = 0.0
    for v in x:
        s = s + v * v
    return s


def test_for_over_1d_tensor_elements(check, arr):
    check(for_over_tensor_elements_1d, (arr([1.0, 2.0, 3.0]),), (arr([4.0]),))


def range_with_start_step_tensor(x, n):
    acc = paddle.zeros_like(x)
    for i in range(1, n, 2):
        acc = acc + x * i
    return acc


@pytest.mark.parametrize("n", [0, 1, 2, 7])
def test_range_start_stop_step_tensor_stop(check, arr, n):
    check(range_with_start_step_tensor, (arr([1.0, 2.0]), _i(n)))


def range_negative_step(x, n):
    acc = paddle.zeros_like(x)
    for i in range(n, 0, -1):
        acc = acc * 2.0 + x * i
    return acc


@pytest.mark.parametrize("n", [0, 1, 4])
def test_range_negative_step_tensor_start(check, arr, n):
    check(range_negative_step, (arr([1.0, 2.0]), _i(n)))


def loop_var_used_after_loop(x, n):
    i = paddle.to_tensor(-1)
    for i in range(n):
        x = x + 1.0
    return x, i


@pytest.mark.parametrize("n", [0, 3])
def test_loop_var_after_tensor_range_loop(check, arr, n):
    check(loop_var_used_after_loop, (arr([1.0]), _i(n)))


def var_created_in_loop(x, n):
    ret = x
    for _ in range(n):
        tmp = paddle.zeros([3], dtype="float32")
        ret = tmp + x * 2.0
    return ret


@pytest.mark.parametrize("n", [0, 2])
def test_var_created_inside_tensor_loop(check, arr, n):
    check(var_created_in_loop, (arr([1.0, 2.0, 3.0]), _i(n)))


def while_with_python_const_and_tensor_cond(x):
    steps = [1.0, 2.0, 3.0]
    k = 0
    while len(steps) > 0 and x.sum() < 100.0:
        x = x + steps[0] * 50.0
        k += 1
    return x, k


def test_while_python_len_and_tensor_cond(check, arr):
    check(while_with_python_const_and_tensor_cond, (arr([0.0]),), (arr([99.0]),), (arr([200.0]),))


def nested_while_tensor(x, n):
    i = paddle.zeros([], dtype="int64")
    s = paddle.zeros([], dtype="float32")
    while i < n:
        j = paddle.zeros([], dtype="int64")
        while j < i:
            s = s + x[j % 3]
            j += 1
        i += 1
    return s


@pytest.mark.parametrize("n", [0, 1, 5])
def test_nested_tensor_whiles(check, arr, n):
    check(nested_while_tensor, (arr([1.0, 2.0, 3.0]), _i(n)))


def augassign_dict_item_in_loop(x, n):
    state = {"acc": paddle.zeros_like(x)}
    for i in range(n):
        state["acc"] += x
    return state["acc"]


def test_augassign_dict_item_in_tensor_loop(check, arr):
    check(augassign_dict_item_in_loop, (arr([1.0, 2.0]), _i(3)), (arr([1.0, 2.0]), _i(0)))


def list_item_update_in_loop(x, n):
    vals = [paddle.zeros([], dtype="float32"), x.max()]
    for i in range(n):
        vals[0] = vals[0] + x.sum()
    return vals[0], vals[1]


def test_list_item_assignment_in_tensor_loop(check, arr):
    check(list_item_update_in_loop, (arr([1.0, 2.0]), _i(3)), (arr([1.0, 2.0]), _i(0)))
