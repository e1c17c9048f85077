"""return pass: early returns inside if and loops, several returns, eager == static."""
import numpy as np
import pytest

import dy2st as paddle


def early_return_in_if(x):
    if x.sum() > 0:
        return x * 2
    y = x - 1
    return y


def returns_in_both_branches(x):
    if x.mean() > 1:
        return x + 1
    elif x.mean() > 0:
        return x + 2
    else:
        return x + 3


def return_in_while(x, n):
    i = paddle.zeros([], "int64")
    s = x * 0
    while i < n:
        s = s + x
        if s.sum() > 20:
            return s * -1
        i = i + 1
    return s


def return_in_for(x, n):
    s = x * 0
    for k in range(n):
        s = s + x
        if s.sum() > 10:
            return s
    return s + 100


def return_python_condition(x, mode):
    if mode == "a":
        return x * 10
    return x


def return_tuple_structures(x):
    if x.sum() > 0:
        return x, x * 2
    return x - 1, x * 3


def return_none_path(x, flag):
    if flag:
        return
    return x


def return_docstring(x):
    """A docstring stays first."""
    if x.sum() > 0:
        return x
    return -x


def return_in_nested_loop(x, n):
    for i in range(n):
        for j in range(n):
            if i * j >= 2:
                return x * paddle.cast(i * 10 + j, "float32")
    return x


def mismatched_returns(x):
    if x.sum() > 0:
        return x, x
    return x


X = np.array([1.0, 2.0, 3.0], np.float32)


def n64(v):
    return np.array(v, np.int64)


def test_early_return_in_if(check):
    sf = check(early_return_in_if, X, -X)
    assert "return_flag_0" in sf.code
    top_level_returns = [ln for ln in sf.code.splitlines() if ln.startswith("    return ")]
    assert top_level_returns == ["    return _jst.ReturnValue(return_value_0)"]


def test_returns_in_every_branch(check):
    check(returns_in_both_branches, X, X * 0.1, -X)


@pytest.mark.parametrize("n", [0, 1, 3, 10])
def test_return_inside_while(check, n):
    check(return_in_while, (X, n64(n)), (X * 5, n64(n)))


@pytest.mark.parametrize("n", [0, 1, 5])
def test_return_inside_for_tensor_range(check, n):
    check(return_in_for, (X, n64(n)))


@pytest.mark.parametrize("n", [0, 1, 5])
def test_return_inside_for_python_range(check, n):
    check(return_in_for, (X, n))


def test_return_on_python_value(check):
    sf = check(return_python_condition, (X, "a"), (X, "b"))
    assert "cond(" not in str(sf.program)


def test_return_tuples(check):
    check(return_tuple_structures, X, -X)


def test_return_none_on_python_path(check):
    check(return_none_path, (X, True), (X, False))
    assert paddle.jit.to_static(return_none_path)(paddle.to_tensor(X), True) is None


def test_docstring_kept_first():
    code = paddle.jit.to_static(return_docstring).code
    body = code.splitlines()[1].strip()
    assert body.startswith('"""A docstring') or body.startswith("'A docstring")


@pytest.mark.parametrize("n", [0, 2, 3])
def test_return_inside_nested_loop(check, n):
    check(return_in_nested_loop, (X, n64(n)), (X, n))


def test_irreconcilable_returns_raise_naming_both_lines():
    import inspect
    sf = paddle.jit.to_static(mismatched_returns, full_graph=True)
    lines, start = inspect.getsourcelines(mismatched_returns)
    first = start + next(i for i, ln in enumerate(lines) if "return x, x" in ln)
    second = start + next(i for i, ln in enumerate(lines) if ln.strip() == "return x")
    with pytest.raises(Exception) as info:
        sf(paddle.to_tensor(X))
    msg = str(info.value)
    assert "In user code:" in msg
    assert str(first) in msg and str(second) in msg, msg
