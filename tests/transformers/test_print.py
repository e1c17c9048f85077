"""print pass: tensor values are printed at every run, in eager print's order and format."""
import numpy as np
import pytest

import dy2st as paddle


def print_tensor(x):
    y = x * 2
    print("y is", y, 3)
    return y


def print_python_only(x, n):
    print("n =", n)
    return x + n


def print_in_tensor_loop(x, n):
    i = paddle.zeros([], "int64")
    while i < n:
        print("step", i)
        i = i + 1
    return x


def print_then_fail(x):
    print("before", x)
    assert x.sum() > 0, "bad"
    return x


X = np.array([1.0, 2.0], np.float32)


def eager_lines(fn, *args, capsys):
    capsys.readouterr()
    fn(*args)
    return capsys.readouterr().out


def test_values_printed_at_every_run(capsys):
    sf = paddle.jit.to_static(print_tensor)
    x1, x2 = paddle.to_tensor(X), paddle.to_tensor(X * 5)
    expected1 = eager_lines(print_tensor, x1, capsys=capsys)
    expected2 = eager_lines(print_tensor, x2, capsys=capsys)
    assert "[ 10., 20.]" in expected2 or "[10., 20.]" in expected2

    sf(x1)
    first = capsys.readouterr().out
    build = [ln for ln in first.splitlines() if "[dy2st build]" in ln]
    assert len(build) == 1 and "y is" in build[0]
    run_part = "\n".join(ln for ln in first.splitlines() if "[dy2st build]" not in ln) + "\n"
    assert run_part == expected1          # same line, same order as eager print

    sf(x2)
    second = capsys.readouterr().out
    assert second == expected2            # no build line, new values
    sf(x1)
    assert capsys.readouterr().out == expected1


def test_python_values_print_as_python(capsys):
    sf = paddle.jit.to_static(print_python_only)
    sf(paddle.to_tensor(X), 4)
    assert capsys.readouterr().out == "n = 4\n"
    assert "_jst.Print(" in sf.code


@pytest.mark.parametrize("full_graph", [True, False])
def test_python_values_print_on_every_call(capsys, full_graph):
    # audit round 6: the text was printed while tracing only, so a second call of the same
    # program printed nothing where eager code prints on every call
    sf = paddle.jit.to_static(print_python_only, full_graph=full_graph)
    for n in (4, 4, 4):
        sf(paddle.to_tensor(X), n)
        assert capsys.readouterr().out == "n = 4\n"


def test_print_in_tensor_loop_prints_each_iteration(capsys):
    sf = paddle.jit.to_static(print_in_tensor_loop)
    sf(paddle.to_tensor(X), paddle.to_tensor(np.array(3)))
    out = capsys.readouterr().out
    steps = [ln for ln in out.splitlines() if ln.startswith("step") ]
    assert len(steps) == 3, out
    sf(paddle.to_tensor(X), paddle.to_tensor(np.array(0)))
    assert [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("step")] == []


def test_print_before_failure_printed_once(capsys):
    sf = paddle.jit.to_static(print_then_fail)
    sf(paddle.to_tensor(X))
    capsys.readouterr()
    with pytest.raises(AssertionError):
        sf(paddle.to_tensor(-X))
    out = capsys.readouterr().out
    assert out.count("before") == 1, out
