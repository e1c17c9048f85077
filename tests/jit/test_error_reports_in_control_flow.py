"""Error reports from control flow: errors in loops / branches / helpers / Layers, Python errors in
converted code, and errors that only happen when the graph RUNS (symbolic None dims, a reloaded
model given a new batch size). The message must have the exception type the user expects, this
file's name, `line N` and the quoted original line (the conformance rule)."""
import os

import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec
from tests.support import check_user_error, expect_user_error, source_line, tensor as _t

nn = paddle.nn
HERE = os.path.basename(__file__)


def _line(snippet):
    return source_line(__file__, snippet)


def _check_message(exc, snippet):
    check_user_error(exc, __file__, snippet)


def _expect(target, args, etype, snippet, input_spec=None):
    expect_user_error(__file__, target, args, etype, snippet, input_spec)


# ---------------------------------------------------------------- shape errors
def matmul_error_in_for_range(x, w, n):
    for _ in range(n):
        x = paddle.matmul(x, w)  # E-matmul-for
    return x


def test_matmul_error_in_tensor_for():
    _expect(matmul_error_in_for_range, (_t(np.ones((2, 3))), _t(np.ones((4, 3))), _t(2, "int64")),
            ValueError, "x = paddle.matmul(x, w)  # E-matmul-for")


def reshape_error_in_elif(x):
    if x.sum() > 100.0:
        y = x
    elif x.sum() > -100.0:
        y = x.reshape([5, -1])  # E-reshape-elif
    else:
        y = -x
    return y


def test_reshape_error_in_elif():
    _expect(reshape_error_in_elif, (_t(np.ones((2, 3))),), ValueError,
            "y = x.reshape([5, -1])  # E-reshape-elif")


def _inner_concat(a, b):
    return paddle.concat([a, b], axis=1)  # E-concat-inner


def _outer_helper(a, b):
    if a.mean() > 0:
        return _inner_concat(a, b) * 2.0
    return a


def error_two_helpers_from_branch(x, y):
    if x.sum() > 0:
        z = _outer_helper(x, y)
    else:
        z = y
    return z


def test_error_in_nested_helper_called_from_branch():
    _expect(error_two_helpers_from_branch, (_t(np.ones((2, 3))), _t(np.ones((3, 3)))), ValueError,
            "return paddle.concat([a, b], axis=1)  # E-concat-inner")


def broadcast_error_in_nested_loop(x, n):
    i = 0
    while i < n:
        for k in range(2):
            if k == 1:
                x = x + paddle.ones([4])  # E-broadcast-nested
        i += 1
    return x


def test_broadcast_error_in_nested_loop():
    _expect(broadcast_error_in_nested_loop, (_t(np.ones((2, 3))), _t(2, "int64")), ValueError,
            "x = x + paddle.ones([4])  # E-broadcast-nested")


class WrongWidth(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)
        self.out = nn.Linear(4, 2)

    def forward(self, x, n):
        h = x
        for _ in range(n):
            h = self.fc(h)
        return self.out(h)  # E-layer-width


def test_layer_width_error_after_tensor_loop():
    _expect(WrongWidth(), (_t(np.ones((2, 3))), _t(2, "int64")), ValueError,
            "return self.out(h)  # E-layer-width")


# ---------------------------------------------------------------- Python errors
def attribute_error_in_while(x, n):
    i = 0
    while i < n:
        x = x.not_a_method()  # E-attr-while
        i += 1
    return x


def test_attribute_error_in_while():
    _expect(attribute_error_in_while, (_t([1.0]), _t(2, "int64")), AttributeError,
            "x = x.not_a_method()  # E-attr-while")


def name_error_in_loop(x, n):
    for _ in range(n):
        x = x + undefined_thing  # noqa: F821  E-name-loop
    return x


def test_name_error_in_tensor_loop():
    _expect(name_error_in_loop, (_t([1.0]), _t(2, "int64")), NameError,
            "x = x + undefined_thing  # noqa: F821  E-name-loop")


def type_error_in_branch(x):
    if x.sum() > 0:
        y = x + "text"  # E-type-branch
    else:
        y = x
    return y


def test_type_error_in_branch():
    _expect(type_error_in_branch, (_t([1.0]),), TypeError, 'y = x + "text"  # E-type-branch')


def key_error_in_loop(x, n):
    d = {"a": x}
    for _ in range(n):
        d["a"] = d["b"] + 1.0  # E-key-loop
    return d["a"]


def test_key_error_in_tensor_loop():
    _expect(key_error_in_loop, (_t([1.0]), _t(2, "int64")), KeyError,
            'd["a"] = d["b"] + 1.0  # E-key-loop')


def index_error_in_branch(x):
    items = [x]
    if x.sum() > 0:
        y = items[3]  # E-index-branch
    else:
        y = x
    return y


def test_index_error_in_branch():
    _expect(index_error_in_branch, (_t([1.0]),), IndexError, "y = items[3]  # E-index-branch")


def raise_in_helper_inside_loop(x, n):
    for _ in range(n):
        x = _checked(x)
    return x


def _checked(t):
    if t.shape[-1] != 2:
        raise ValueError("need width 2")  # E-user-raise
    return t + 1.0


def test_user_raise_in_helper_in_loop():
    _expect(raise_in_helper_inside_loop, (_t([1.0, 2.0, 3.0]), _t(2, "int64")), ValueError,
            'raise ValueError("need width 2")  # E-user-raise')


# ---------------------------------------------------------------- errors when the graph runs
def reshape_fixed_rows(x):
    y = paddle.reshape(x, [-1, 4])  # E-run-reshape
    if y.sum() > 0:
        y = y * 2.0
    return y


def test_run_time_reshape_error_with_symbolic_batch():
    sf = paddle.jit.to_static(reshape_fixed_rows, input_spec=[InputSpec([None, 2], "float32")])
    sf(_t(np.ones((2, 2))))
    with pytest.raises(ValueError) as info:
        sf(_t(np.ones((3, 2))))
    _check_message(info.value, "y = paddle.reshape(x, [-1, 4])  # E-run-reshape")


def matmul_in_while_symbolic(x, w, n):
    i = 0
    while i < n:
        x = paddle.matmul(x, w)  # E-run-matmul-while
        i += 1
    return x


def test_run_time_matmul_error_in_while_with_symbolic_dims():
    specs = [InputSpec([None, None], "float32"), InputSpec([None, None], "float32"),
             InputSpec([], "int64")]
    sf = paddle.jit.to_static(matmul_in_while_symbolic, input_spec=specs)
    with pytest.raises(ValueError) as info:
        sf(_t(np.ones((2, 3))), _t(np.ones((2, 3))), _t(2, "int64"))
    _check_message(info.value, "x = paddle.matmul(x, w)  # E-run-matmul-while")


def gather_index_in_loop(x, idx, n):
    out = x
    for _ in range(n):
        out = paddle.gather(out, idx)  # E-run-gather
    return out


def test_run_time_error_in_loaded_model(tmp_path):
    sf = paddle.jit.to_static(reshape_fixed_rows)
    path = str(tmp_path / "m" / "model")
    paddle.jit.save(sf, path, input_spec=[InputSpec([None, 2], "float32")])
    loaded = paddle.jit.load(path)
    loaded(_t(np.ones((2, 2))))
    with pytest.raises(ValueError) as info:
        loaded(_t(np.ones((3, 2))))
    # the loaded model has no source file to read, but its ops keep the user's origin
    _check_message(info.value, "y = paddle.reshape(x, [-1, 4])  # E-run-reshape")


# ---------------------------------------------------------------- errors that lose the user's line
class _Holder:
    pass


def escaped_attribute_of_item(x):
    d = {"a": _Holder()}
    key = "a"
    d[key].v = x
    if x.sum() > 0:
        d[key].v = x * 3.0  # E-escaped
    return d["a"].v


def test_escaped_tensor_error_names_user_line():
    # an attribute of a dict item picked by a name is state the converter does not carry (the
    # name could be rebound in between): the error says where the escaping tensor was computed
    with pytest.raises(ValueError) as info:
        paddle.jit.to_static(escaped_attribute_of_item, full_graph=True)(_t([1.0, 2.0]))
    _check_message(info.value, "d[key].v = x * 3.0  # E-escaped")

