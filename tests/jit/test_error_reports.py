"""Scenarios: errors raised while converting or running converted code must name the user's file and
the line holding the failing statement, in its original form."""
import inspect

import numpy as np
import pytest

import dy2st as paddle
from tests.support import tensor as _t

nn = paddle.nn


def _line_of(fn, snippet):
    lines, start = inspect.getsourcelines(fn)
    hits = [start + i for i, l in enumerate(lines) if snippet in l]
    assert len(hits) == 1, hits
    return hits[0]


def _expect(fn, args, etype, snippet, owner=None):
    sf = paddle.jit.to_static(fn)
    with pytest.raises(etype) as info:
        sf(*args)
    msg = str(info.value) + "".join(getattr(info.value, "__notes__", []))
    line = _line_of(owner or fn, snippet)
    assert __file__ in msg, msg
    assert f"line {line}" in msg, msg
    assert snippet in msg, msg
    return msg


def shape_error_in_loop_body(x, n):
    i = paddle.zeros([], dtype="int64")
    while i < n:
        x = paddle.matmul(x, x)
        i += 1
    return x


def test_error_inside_tensor_while_body():
    _expect(shape_error_in_loop_body, (_t(np.ones((2, 3))), _t(2, "int64")), ValueError,
            "x = paddle.matmul(x, x)")


def error_in_else_branch(x):
    if x.sum() > 1000.0:
        y = x + 1.0
    else:
        y = paddle.reshape(x, [7, -1])
    return y


def test_error_in_else_branch():
    _expect(error_in_else_branch, (_t(np.ones(6)),), ValueError, "y = paddle.reshape(x, [7, -1])")


def _inner_bad(t):
    return paddle.concat([t, t.unsqueeze(0)], axis=0)


def _middle(t):
    if t.mean() > -100.0:
        t = _inner_bad(t)
    return t


def error_two_calls_deep(x):
    return _middle(x) + 1.0


def test_error_two_helpers_deep_names_innermost_line():
    msg = _expect(error_two_calls_deep, (_t(np.ones((2, 2))),), ValueError,
                  "return paddle.concat([t, t.unsqueeze(0)], axis=0)", owner=_inner_bad)
    assert "t = _inner_bad(t)" in msg


def user_raise_in_python_branch(x, mode):
    if mode == "bad":
        raise ValueError("mode bad is not supported")
    return x


def test_user_raise_keeps_type_and_message():
    sf = paddle.jit.to_static(user_raise_in_python_branch)
    with pytest.raises(ValueError, match="mode bad is not supported") as info:
        sf(_t([1.0]), "bad")
    assert __file__ in str(info.value) or __file__ in "".join(getattr(info.value, "__notes__", []))


def assert_fails_at_runtime(x):
    assert (x > 0).all(), "need positive"
    return x


def test_tensor_assert_failure_names_line():
    sf = paddle.jit.to_static(assert_fails_at_runtime)
    sf(_t([1.0]))
    with pytest.raises(AssertionError) as info:
        sf(_t([-1.0]))
    msg = str(info.value) + "".join(getattr(info.value, "__notes__", []))
    assert "need positive" in msg
    assert f"line {_line_of(assert_fails_at_runtime, 'assert (x > 0)')}" in msg, msg


def undefined_name_used(x):
    if x.sum() > 0:
        y = x + undefined_thing_xyz  # noqa: F821
    else:
        y = x
    return y


def test_name_error_in_branch():
    _expect(undefined_name_used, (_t([1.0]),), NameError, "y = x + undefined_thing_xyz")


def var_only_in_one_branch_used_after(x):
    if x.sum() > 0:
        z = x * 2.0
    return z


def test_variable_defined_only_in_one_branch_taken_path(check):
    check(var_only_in_one_branch_used_after, (np.array([1.0], "float32"),))


def test_variable_defined_only_in_one_branch_untaken_path_is_reported():
    sf = paddle.jit.to_static(var_only_in_one_branch_used_after)
    sf(_t([1.0]))
    with pytest.raises(Exception) as info:
        sf(_t([-1.0]))
    msg = str(info.value) + "".join(getattr(info.value, "__notes__", []))
    assert __file__ in msg and "z" in msg, msg


def index_error_in_python_loop(x):
    items = [x, x]
    out = x
    for k in range(3):
        out = out + items[k]
    return out


def test_index_error_in_python_loop():
    _expect(index_error_in_python_loop, (_t([1.0]),), IndexError, "out = out + items[k]")


class BadShapeLayer(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        for _ in range(2):
            x = self.fc(x)
        return x


def test_layer_shape_error_in_python_loop():
    net = paddle.jit.to_static(BadShapeLayer())
    with pytest.raises(ValueError) as info:
        net(_t(np.ones((3, 4))))
    msg = str(info.value) + "".join(getattr(info.value, "__notes__", []))
    assert __file__ in msg
    assert f"line {_line_of(BadShapeLayer.forward, 'x = self.fc(x)')}" in msg, msg


def type_error_in_while_cond(x, n):
    i = 0
    while i < n + "a":
        i += 1
    return x


def test_type_error_in_loop_condition():
    _expect(type_error_in_while_cond, (_t([1.0]), 3), TypeError, 'while i < n + "a":')


def error_in_lambda(x):
    f = lambda t: paddle.matmul(t, t)  # noqa: E731
    if x.sum() > -100.0:
        x = f(x)
    return x


def test_error_inside_lambda_names_lambda_line():
    _expect(error_in_lambda, (_t(np.ones((2, 3))),), ValueError, "f = lambda t: paddle.matmul(t, t)")


def break_only_one_path_structure(x, n):
    for i in range(n):
        if x.sum() > 10.0:
            return x, x
        x = x + 1.0
    return x


def test_loop_return_structure_mismatch_named():
    sf = paddle.jit.to_static(break_only_one_path_structure, full_graph=True)
    with pytest.raises(Exception) as info:
        sf(_t([1.0]), _t(3, "int64"))
    msg = str(info.value) + "".join(getattr(info.value, "__notes__", []))
    assert __file__ in msg and "line " in msg, msg


def _rows_halved(t):
    if t.shape[0] == 1:
        return t[0]
    return t[0] + _rows_halved(t[1:]) * 0.5


def test_a_recursion_that_stops_on_an_unknown_dim_says_why_in_a_few_lines():
    """Eager code stops when one row is left; traced with a None batch the test is a tensor
    `if` whose two paths are traced at every level, so the trace reaches Python's recursion
    limit: the error says so, at the user's line, without a frame per level."""
    x = paddle.ones([3, 2])
    np.testing.assert_allclose(_rows_halved(x).numpy(), [1.75, 1.75])
    sf = paddle.jit.to_static(_rows_halved, input_spec=[paddle.static.InputSpec([None, 2])],
                              full_graph=True)
    with pytest.raises(RecursionError, match="stops on a tensor value") as info:
        sf(x)
    text = str(info.value)
    assert "return t[0] + _rows_halved(t[1:]) * 0.5" in text and text.count("\n") < 20
