"""loop pass: while / for over ranges, tensors, enumerate, zip and Python containers, eager == static
with different trip counts (zero included)."""
import re

import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec


def while_tensor(x, n):
    i = paddle.zeros([], "int64")
    s = x * 0
    while i < n:
        s = s + x
        i = i + 1
    return s, i


def while_on_value(x):
    while x.sum() < 20:
        x = x * 2
    return x


def for_range_int(x, n):
    s = x * 0
    for k in range(n):
        s = s + x * k
    return s


def for_range_tensor(x, n):
    s = x * 0
    for k in range(n):
        s = s + x * paddle.cast(k, "float32")
    return s


def for_range_start_stop_step(x, n):
    s = x * 0
    for k in range(1, n, 2):
        s = s + paddle.cast(k, "float32")
    return s


def for_range_unknown_dim(x):
    s = paddle.zeros([3], "float32")
    for i in range(x.shape[0]):
        s = s + x[i]
    return s


def for_tensor_rows(x):
    s = paddle.zeros([x.shape[1]], "float32")
    for row in x:
        s = s + row * row
    return s


def for_enumerate_rows(x):
    s = paddle.zeros([x.shape[1]], "float32")
    for i, row in enumerate(x):
        s = s + row * paddle.cast(i, "float32")
    return s


def for_zip_rows(x, y):
    s = paddle.zeros([x.shape[1]], "float32")
    for a, b in zip(x, y):
        s = s + a * b
    return s


def for_python_list(x):
    out = x
    for w in [1.0, 2.0, 3.0]:
        out = out * w
    return out


def for_python_dict(x):
    d = {"a": 1.0, "b": -2.0}
    out = x
    for k, v in d.items():
        out = out + v
    for k in d:
        out = out * d[k]
    return out


def for_python_tuple_of_tensors(x):
    acc = []
    for t in (x, x * 2, x * 3):
        acc.append(t.sum())
    return paddle.stack(acc)


def for_else_python(x, n):
    s = x
    for k in range(n):
        if k == 2:
            break
        s = s + 1
    else:
        s = s * 100
    return s


def while_else_tensor(x, n):
    i = paddle.zeros([], "int64")
    s = x
    while i < n:
        i = i + 1
        s = s + 1
    else:
        s = s * 10
    return s


def for_else_tensor(x, n):
    s = x
    for k in range(n):
        if s.sum() > 20:
            break
        s = s + 1
    else:
        s = s * -1
    return s


def nested_loops(x, n):
    s = x * 0
    for i in range(n):
        j = paddle.zeros([], "int64")
        while j < i:
            s = s + x
            j = j + 1
    return s


def append_in_tensor_loop(x, n):
    out = []
    for k in range(n):
        out.append(x * paddle.cast(k, "float32"))
    return paddle.stack(out), len(out)


def append_in_python_loop(x):
    out = []
    for k in range(3):
        out.append(x + k)
    return out


def loop_local_not_carried(x, n):
    s = x * 0
    i = paddle.zeros([], "int64")
    while i < n:
        local_tmp = x * 2
        s = s + local_tmp
        i = i + 1
    return s


def for_local_not_carried(x, n):
    s = x * 0
    for k in range(n):
        scratch = x + paddle.cast(k, "float32")
        s = s + scratch
    return s


X = np.array([1.0, 2.0, 3.0], np.float32)
M = np.arange(12, dtype=np.float32).reshape(4, 3)


def n64(v):
    return np.array(v, np.int64)


@pytest.mark.parametrize("n", [0, 1, 4])
def test_while_on_tensor(check, n):
    sf = check(while_tensor, (X, n64(n)))
    assert "while" in str(sf.program)


def test_while_trip_count_depends_on_values(check):
    check(while_on_value, X, X * 30, X * 0.01)


@pytest.mark.parametrize("n", [0, 1, 5])
def test_for_range_python_int(check, n):
    sf = check(for_range_int, (X, n))
    assert "while(" not in str(sf.program)   # unrolled in Python


def test_for_range_tensor(check):
    sf = check(for_range_tensor, (X, n64(0)), (X, n64(1)), (X, n64(6)))
    assert sf.num_programs == 1
    assert "while" in str(sf.program)


def test_for_range_start_stop_step_tensor(check):
    check(for_range_start_stop_step, (X, n64(0)), (X, n64(1)), (X, n64(2)), (X, n64(7)))


def test_for_range_unknown_dim(check):
    sf = check(for_range_unknown_dim, M, M[:1], M[:0], input_spec=[InputSpec([None, 3], "float32")])
    assert sf.num_programs == 1
    assert "while" in str(sf.program)


def test_for_over_tensor_rows(check):
    check(for_tensor_rows, M, M[:1])
    sf = check(for_tensor_rows, M, M[:2], M[:0], input_spec=[InputSpec([None, 3], "float32")])
    assert sf.num_programs == 1


def test_for_enumerate_rows(check):
    check(for_enumerate_rows, M, M[:0], input_spec=[InputSpec([None, 3], "float32")])
    check(for_enumerate_rows, M)


def test_for_zip_rows(check):
    check(for_zip_rows, (M, M + 1), (M[:0], M[:0]))
    check(for_zip_rows, (M, M * 2), (M[:1], M[:1]),
          input_spec=[InputSpec([None, 3], "float32"), InputSpec([None, 3], "float32")])


def test_for_python_list_dict_tuple(check):
    for fn in (for_python_list, for_python_dict, for_python_tuple_of_tensors):
        sf = check(fn, X, -X)
        assert "while(" not in str(sf.program), fn.__name__


@pytest.mark.parametrize("n", [0, 2, 5])
def test_for_else_python(check, n):
    check(for_else_python, (X, n))


@pytest.mark.parametrize("n", [0, 3])
def test_while_else_tensor(check, n):
    check(while_else_tensor, (X, n64(n)))


@pytest.mark.parametrize("x,n", [(X, 0), (X, 2), (X * 10, 5), (X, 30)])
def test_for_else_with_tensor_break(check, x, n):
    check(for_else_tensor, (x, n64(n)))


@pytest.mark.parametrize("n", [0, 1, 4])
def test_nested_loops(check, n):
    check(nested_loops, (X, n64(n)), (X, n))


@pytest.mark.parametrize("n", [1, 3])
def test_list_appended_in_tensor_loop(check, n):
    sf = check(append_in_tensor_loop, (X, n64(n)))
    text = str(sf.program)
    assert "array_write" in text and "array" in text


def test_list_appended_in_python_loop_stays_list(check):
    sf = check(append_in_python_loop, X)
    out = sf(paddle.to_tensor(X))
    assert isinstance(out, list) and len(out) == 3
    assert "array" not in str(sf.program)


def carried_names(code, helper):
    """Names in the `nonlocal` line of the generated body helper(s) and the get_args tuples."""
    names = set()
    for m in re.finditer(rf"def {helper}_\d+\(.*\):\n\s+nonlocal ([\w, ]+)", code):
        names |= {n.strip() for n in m.group(1).split(",")}
    for m in re.finditer(r"def get_args_\d+\(\):\n\s+return \(([^)]*)\)", code):
        names |= {n.strip() for n in m.group(1).split(",") if n.strip()}
    return names


def test_while_loop_local_not_carried(check):
    sf = check(loop_local_not_carried, (X, n64(0)), (X, n64(3)))
    carried = carried_names(sf.code, "while_body")
    assert {"s", "i"} <= carried
    assert "local_tmp" not in carried


def test_for_loop_local_not_carried(check):
    sf = check(for_local_not_carried, (X, n64(0)), (X, n64(3)))
    carried = carried_names(sf.code, "for_body")
    assert "s" in carried
    assert "scratch" not in carried
    # only carried values become loop variables of the while op
    assert str(sf.program).count("while(") == 1
