"""A function made in a tensor loop's body and kept in a loop variable (`f = lambda t: t + r`,
`def g(t): ...`) is, after the loop, the last turn's function reading the loop's last values, as
in eager Python (issue 24 item 3); where the loop runs no turn the variable keeps its value from
before (None: calling it raises TypeError; unassigned: UnboundLocalError). One graph, both
full_graph settings and jit.save / jit.load agree with eager."""
import inspect

import numpy as np
import pytest

import dy2st as paddle
from tests.support import assert_sum_of_squares_gradient


def _line_of(fn, snippet):
    """The line number in this file of the one line of fn holding snippet."""
    lines, first = inspect.getsourcelines(fn)
    hits = [first + k for k, line in enumerate(lines) if snippet in line]
    assert len(hits) == 1, hits
    return hits[0]


def lambda_over_rows(x):
    f = None
    for r in x:
        f = lambda t: t + r * 2.0  # noqa: E731
    return f(x)


def def_in_range(x, n):
    g = None
    for i in range(n):
        s = x * paddle.cast(i, "float32")

        def g(t):  # noqa: F811
            return t * s + 1.0
    return g(x)


def replaces_a_function(x, n):
    f = lambda t: t * 0.5  # noqa: E731
    for i in range(n):
        s = x * paddle.cast(i + 1, "float32")
        f = lambda t: t * s + paddle.cast(i, "float32")  # noqa: E731
    return f(x)


def checked_for_none(x, n):
    f = None
    for i in range(n):
        f = lambda t: t * paddle.cast(i, "float32")  # noqa: E731
    if f is None:
        return x - 1.0
    return f(x)


def in_while(x, n):
    f = None
    i = paddle.to_tensor(0)
    while i < n:
        i = i + 1
        f = lambda t: t + paddle.cast(i, "float32")  # noqa: E731
    return f(x) if f is not None else x


def unassigned_before(x, n):
    for i in range(n):
        def g(t):  # noqa: F811
            return t * paddle.cast(i, "float32")
    return g(x)


def _inputs(n):
    return paddle.to_tensor(np.array([1.0, -2.0], "float32")), paddle.to_tensor(n)


COUNTED = [def_in_range, replaces_a_function, checked_for_none, in_while]


@pytest.mark.parametrize("full_graph", [True, False])
@pytest.mark.parametrize("fn", COUNTED, ids=lambda f: f.__name__)
def test_last_turns_function_after_the_loop(fn, full_graph):
    sf = paddle.jit.to_static(fn, full_graph=full_graph)
    for n in (1, 3) if fn is def_in_range else (0, 1, 3):
        args = _inputs(n)
        np.testing.assert_allclose(sf(*args).numpy(), fn(*args).numpy(), err_msg=f"n={n}")


@pytest.mark.parametrize("fn", COUNTED, ids=lambda f: f.__name__)
def test_saved_model_agrees(fn, tmp_path):
    spec = [paddle.static.InputSpec([2], "float32"), paddle.static.InputSpec([], "int64")]
    sf = paddle.jit.to_static(fn, input_spec=spec, full_graph=True)
    paddle.jit.save(sf, str(tmp_path / "m"))
    loaded = paddle.jit.load(str(tmp_path / "m"))
    for n in (1, 3) if fn is def_in_range else (0, 1, 3):
        args = _inputs(n)
        np.testing.assert_allclose(loaded(*args).numpy(), fn(*args).numpy(), err_msg=f"n={n}")


def test_loop_over_rows_saved_with_any_row_count(tmp_path):
    spec = [paddle.static.InputSpec([None, 2], "float32")]
    sf = paddle.jit.to_static(lambda_over_rows, input_spec=spec, full_graph=True)
    paddle.jit.save(sf, str(tmp_path / "m"))
    loaded = paddle.jit.load(str(tmp_path / "m"))
    for rows in (1, 3):
        x = paddle.to_tensor(np.arange(rows * 2, dtype="float32").reshape(rows, 2))
        want = lambda_over_rows(x).numpy()
        np.testing.assert_allclose(sf(x).numpy(), want)
        np.testing.assert_allclose(loaded(x).numpy(), want)


@pytest.mark.parametrize("fn, error", [(def_in_range, TypeError),
                                       (unassigned_before, UnboundLocalError)],
                         ids=["was_none", "unassigned"])
def test_no_turn_fails_as_eager(fn, error):
    sf = paddle.jit.to_static(fn, full_graph=True)
    with pytest.raises(error):
        fn(*_inputs(0))
    with pytest.raises(error) as info:
        sf(*_inputs(0))
    # (at the call, when the program runs)
    assert f"line {_line_of(fn, 'return g(x)')}" in str(info.value)
    np.testing.assert_allclose(sf(*_inputs(2)).numpy(), fn(*_inputs(2)).numpy())


def test_gradient_matches_finite_differences():
    sf = paddle.jit.to_static(replaces_a_function, full_graph=True)
    x0 = np.array([0.3, -0.7], "float64")
    for n in (0, 3):
        assert_sum_of_squares_gradient(sf, replaces_a_function, x0, paddle.to_tensor(n))


def default_argument(x, n):
    f = None
    for i in range(n):
        f = lambda t, i=i: t * paddle.cast(i, "float32")  # noqa: E731
    return f(x)


def _adder(v):
    return lambda t: t + v


def made_by_a_helper(x, n):
    f = None
    k = x
    for i in range(n):
        k = k + 1.0
        f = _adder(k)
    return f(x) + k


@pytest.mark.parametrize("fn, what", [(default_argument, "default argument"),
                                      (made_by_a_helper, "free variable 'v'")],
                         ids=["default_argument", "made_by_a_helper"])
def test_value_bound_on_a_turn_is_refused(fn, what):
    # the function holds the turn's value itself (bound early): after the loop it would read
    # a value of the loop's body, which the loop does not carry out
    with pytest.raises(TypeError) as info:
        paddle.jit.to_static(fn, full_graph=True)(*_inputs(2))
    message = str(info.value)
    assert what in message and "loop variable 'f' is a function made in a tensor loop" in message
    assert f"line {_line_of(fn, 'for i in range(n):')}" in message
    maker = _adder if fn is made_by_a_helper else fn
    assert f"line {_line_of(maker, 'lambda t')}" in message     # where the function is made


def test_value_bound_on_a_turn_breaks_the_graph():
    sf = paddle.jit.to_static(default_argument, full_graph=False)
    for n in (1, 3):
        np.testing.assert_allclose(sf(*_inputs(n)).numpy(), default_argument(*_inputs(n)).numpy())


def returns_the_function(x):
    f = None
    for r in x:
        f = lambda t: t + r  # noqa: E731
    return f(x), f


def test_returned_function_is_refused_in_one_graph():
    # it would read the program's values after the call: one graph refuses it at the line
    # that makes it; with full_graph=False the function runs as eager code and returns it
    x = paddle.to_tensor(np.arange(6, dtype="float32").reshape(3, 2))
    with pytest.raises(TypeError, match="made in a tensor loop") as info:
        paddle.jit.to_static(returns_the_function, full_graph=True)(x)
    assert f"line {_line_of(returns_the_function, 'lambda t')}" in str(info.value)
    out, f = paddle.jit.to_static(returns_the_function, full_graph=False)(x)
    want, g = returns_the_function(x)
    np.testing.assert_allclose(out.numpy(), want.numpy())
    np.testing.assert_allclose(f(x).numpy(), g(x).numpy())
