"""break_continue pass: flags guard the rest of the body; nested loops; tensor and Python loops."""
import numpy as np
import pytest

import dy2st as paddle


def break_in_while(x, limit):
    i = paddle.zeros([], "int64")
    s = x * 0
    while i < 10:
        i = i + 1
        if s.sum() > limit:
            break
        s = s + x
    return s, i


def continue_in_for(x, n):
    s = x * 0
    for k in range(n):
        if k % 2 == 0:
            continue
        s = s + x * paddle.cast(k, "float32")
    return s


def continue_on_tensor(x, n):
    s = x * 0
    for k in range(n):
        if (x * paddle.cast(k, "float32")).sum() > 10:
            continue
        s = s + 1
    return s


def break_and_continue(x, n):
    s = x * 0
    i = paddle.zeros([], "int64")
    while i < n:
        i = i + 1
        if i == 2:
            continue
        if s.sum() > 30:
            break
        s = s + x
    return s, i


def nested_break(x, n):
    total = x * 0
    for i in range(n):
        for j in range(n):
            if j > i:
                break
            total = total + x
    return total


def nested_continue_inner_tensor(x, n):
    total = x * 0
    i = paddle.zeros([], "int64")
    while i < n:
        i = i + 1
        j = paddle.zeros([], "int64")
        while j < n:
            j = j + 1
            if j == i:
                continue
            total = total + 1
    return total


def python_break(x):
    out = x
    for k in [1, 2, 3, 4]:
        if k == 3:
            break
        out = out + k
    return out


def break_in_for_tensor_rows(x):
    s = x[0] * 0
    for row in x:
        if row.sum() > 10:
            break
        s = s + row
    return s


X = np.array([1.0, 2.0, 3.0], np.float32)


def n64(v):
    return np.array(v, np.int64)


@pytest.mark.parametrize("limit", [-1.0, 0.0, 10.0, 1000.0])
def test_break_in_tensor_while(check, limit):
    sf = check(break_in_while, (X, limit))
    assert "break_" in sf.code and "break\n" not in sf.code


@pytest.mark.parametrize("n", [0, 1, 6])
def test_continue_in_for(check, n):
    check(continue_in_for, (X, n64(n)), (X, n))


def test_continue_on_tensor_condition(check):
    check(continue_on_tensor, (X, n64(0)), (X, n64(5)), (X * 0.1, n64(5)))


@pytest.mark.parametrize("n", [0, 1, 3, 20])
def test_break_and_continue(check, n):
    check(break_and_continue, (X, n64(n)))


@pytest.mark.parametrize("n", [0, 1, 4])
def test_nested_break(check, n):
    check(nested_break, (X, n64(n)), (X, n))


@pytest.mark.parametrize("n", [0, 1, 3])
def test_nested_continue(check, n):
    check(nested_continue_inner_tensor, (X, n64(n)))


def test_python_break_stays_python(check):
    sf = check(python_break, X, -X)
    assert "while(" not in str(sf.program)


def test_break_in_loop_over_rows(check):
    m = np.arange(12, dtype=np.float32).reshape(4, 3)
    check(break_in_for_tensor_rows, m, m[::-1].copy(), m * 0)


def test_generated_code_has_no_break_or_continue():
    code = paddle.jit.to_static(break_and_continue).code
    lines = [ln.strip() for ln in code.splitlines()]
    assert "break" not in lines and "continue" not in lines
    assert any(ln.startswith("continue_") and ln.endswith("= True") for ln in lines)
    assert any(ln.startswith("break_") and ln.endswith("= True") for ln in lines)


def tensor_break_in_python_range(x):
    for k in range(5):
        x = x + 1
        if x.sum() > 10:
            break
    return x


def test_tensor_break_in_python_range(check):
    check(tensor_break_in_python_range, X, X * 0.1)
