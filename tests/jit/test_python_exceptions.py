"""Error reports of Python exceptions other than shape errors (IndexError, TypeError,
KeyError, ZeroDivisionError, NameError, RuntimeError, ValueError from int()) raised by plain
Python code inside converted functions and Layers, errors in while / elif conditions, in
comprehensions, and on the continuation line of a multi-line statement. The conformance rule: the
user's exception type, this file's name, `line N` and the quoted original line."""
import os

import numpy as np

import dy2st as paddle
from tests.support import expect_user_error, tensor as _t

nn = paddle.nn
HERE = os.path.basename(__file__)


def _expect(target, args, etype, snippet, input_spec=None):
    expect_user_error(__file__, target, args, etype, snippet, input_spec)


def index_error_list_in_while(x, n):
    items = [x, x]
    i = paddle.zeros([], dtype="int64")
    while i < n:
        x = x + items[5]  # E3-index
        i += 1
    return x


def test_index_error_on_python_list_in_tensor_while():
    _expect(index_error_list_in_while, (_t(np.ones(3)), _t(2, "int64")), IndexError,
            "x = x + items[5]  # E3-index")


def type_error_str_in_branch(x):
    if x.sum() > 0:
        y = x + "abc"  # E3-type
    else:
        y = x
    return y


def test_type_error_tensor_plus_str_in_branch():
    _expect(type_error_str_in_branch, (_t(np.ones(3)),), TypeError, 'y = x + "abc"  # E3-type')


def key_error_in_branch(x):
    d = {"a": x}
    if x.mean() > 0:
        y = d["missing_key"]  # E3-key
    else:
        y = d["a"]
    return y


def test_key_error_in_tensor_if():
    _expect(key_error_in_branch, (_t(np.ones(3)),), KeyError, 'y = d["missing_key"]  # E3-key')


def zero_div_in_dyn_loop(x, k):
    for i in range(x.shape[0]):
        x = x * (1 / k)  # E3-zerodiv
    return x


def test_zero_division_in_loop_over_unknown_dim():
    _expect(zero_div_in_dyn_loop, (_t(np.ones((3, 2))), 0), ZeroDivisionError,
            "x = x * (1 / k)  # E3-zerodiv",
            input_spec=[paddle.static.InputSpec([None, 2], "float32")])


def name_error_in_else(x):
    if x.sum() > 0:
        y = x
    else:
        y = undefined_thing + x  # E3-name  # noqa: F821
    return y


def test_name_error_in_else_branch():
    # as in eager Python, only a run that takes the else branch fails (issue 15: tracing it
    # must not); then the error names the user's line
    sf = paddle.jit.to_static(name_error_in_else)
    np.testing.assert_allclose(sf(_t(np.ones(3))).numpy(), np.ones(3))
    _expect(name_error_in_else, (_t(-np.ones(3)),), NameError, "y = undefined_thing + x  # E3-name")


def _refuse(t):
    if t.shape[0] > 100:
        return t
    raise RuntimeError("helper refused the input")  # E3-runtime


def runtime_error_from_helper(x, n):
    for _ in range(n):
        x = _refuse(x)
    return x


def test_user_runtime_error_in_helper_called_in_tensor_for():
    _expect(runtime_error_from_helper, (_t(np.ones(3)), _t(2, "int64")), RuntimeError,
            'raise RuntimeError("helper refused the input")  # E3-runtime')


def value_error_int_in_while(x):
    while x.sum() < 10:
        x = x + int("abc")  # E3-int
    return x


def test_value_error_of_int_str_in_tensor_while():
    _expect(value_error_int_in_while, (_t(np.ones(3)),), ValueError, 'x = x + int("abc")  # E3-int')


class IndexErrorLayer(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)
        self.items = [1, 2]

    def forward(self, x):
        for i in range(x.shape[0]):
            if x[i].sum() > 0:
                x = self.fc(x) * self.items[i + 10]  # E3-layer-index
        return x


def test_index_error_in_layer_loop_over_rows():
    _expect(IndexErrorLayer(), (_t(np.ones((2, 3))),), IndexError,
            "x = self.fc(x) * self.items[i + 10]  # E3-layer-index")


def attribute_error_in_while_condition(x, n):
    i = paddle.zeros([], dtype="int64")
    while i < n and x.undefined_attr > 0:  # E3-while-cond
        i += 1
    return i


def test_attribute_error_in_while_condition():
    _expect(attribute_error_in_while_condition, (_t(np.ones(3)), _t(2, "int64")), AttributeError,
            "while i < n and x.undefined_attr > 0:  # E3-while-cond")


def error_in_elif_condition(x):
    if x.sum() > 100:
        y = x
    elif paddle.matmul(x, x).sum() > 0:  # E3-elif-cond
        y = x * 2.0
    else:
        y = x
    return y


def test_shape_error_in_elif_condition():
    _expect(error_in_elif_condition, (_t(np.ones((2, 3))),), ValueError,
            "elif paddle.matmul(x, x).sum() > 0:  # E3-elif-cond")


def error_in_comprehension(x):
    if x.sum() > -100:
        ys = [paddle.reshape(r, [7, -1]) for r in x]  # E3-comp
    else:
        ys = [x]
    return ys[0]


def test_error_inside_list_comprehension_in_branch():
    _expect(error_in_comprehension, (_t(np.ones((2, 3))),), ValueError,
            "ys = [paddle.reshape(r, [7, -1]) for r in x]  # E3-comp")


def iterate_int(x):
    acc = x
    for v in 5:  # E3-iter-int
        acc = acc + v
    return acc


def test_type_error_iterating_an_int():
    _expect(iterate_int, (_t(np.ones(3)),), TypeError, "for v in 5:  # E3-iter-int")


def python_assert_in_tensor_for(x, n):
    for i in range(n):
        assert n < 0, "n must be negative"  # E3-assert
        x = x + 1
    return x


def test_python_assert_in_tensor_for():
    _expect(python_assert_in_tensor_for, (_t(np.ones(3)), _t(2, "int64")), AssertionError,
            'assert n < 0, "n must be negative"  # E3-assert')


# ---------------------------------------------------------------- multi-line statements
def error_on_continuation_line(x):
    if x.sum() > -100:
        y = paddle.concat([x,
                           paddle.reshape(x, [-1, 7])], axis=0)  # E3-continuation-if
    else:
        y = x
    return y


def test_error_on_continuation_line_of_multiline_statement():
    _expect(error_on_continuation_line, (_t(np.ones((2, 3))),), ValueError,
            "paddle.reshape(x, [-1, 7])], axis=0)  # E3-continuation-if")


def error_on_continuation_line_no_control_flow(x):
    y = paddle.concat([x,
                       paddle.reshape(x, [-1, 7])], axis=0)  # E3-continuation-plain
    return y


def test_error_on_continuation_line_without_control_flow():
    _expect(error_on_continuation_line_no_control_flow, (_t(np.ones((2, 3))),), ValueError,
            "paddle.reshape(x, [-1, 7])], axis=0)  # E3-continuation-plain")
