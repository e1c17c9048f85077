"""Save/load round trips of AutoGraph-style scenarios (loop scoping, type changes, mixed early
returns, logical expressions, user functions with control flow) and of Python numbers, casts and
dtypes, loaded in one fresh interpreter (tests/roundtrip.py)."""
import numpy as np
import pytest

import dy2st as paddle
from tests.jit.test_scoping_and_state import (  # noqa: F401 - scenarios run again
    _clip_count,
    early_return_python_number_or_tensor as early_return_number_or_tensor,
    four_levels as deep_nesting,
    int_becomes_tensor_in_while as int_promoted_by_while,
    return_int_or_python_int as return_python_int_from_while,
)
from tests.roundtrip import RT, roundtrip_all
from tests.support import randn as r

F = "float32"
I = "int64"
B = "bool"


def i64(v):
    return np.array(v, dtype="int64")


def bl(v):
    return np.array(v, dtype="bool")


def defined_in_loop_used_after(x, n):
    for i in range(n):
        last = x * i
    return last, i


def bool_flag_from_loop(x, n):
    found = False
    hits = 0
    for i in range(n):
        if x[i % 2] > 0.0:
            found = True
            hits += 1
    return found, hits


def float_acc_of_tensor_items(x, n):
    acc = 0.0
    for i in range(n):
        acc = acc + x[i % 2] * 0.5
    return acc


def user_functions_tuple(x):
    y, c = _clip_count(x, 1.0)
    if y.sum() >= 0:
        s = 1
    else:
        s = -1
    return y * s, c, s


def logical_mixed(x, flag):
    if flag and x.sum() > 0:
        y = x * 2.0
    elif not flag or x.sum() < -5.0:
        y = x - 1.0
    else:
        y = x
    a = (x.sum() > 0) or (x.max() > 2.0)
    return y, a


def dtypes_through_branches(x, k):
    if k > 2:
        y = x.astype("int32") * 2
    else:
        y = x.astype("int32") - 1
    z = paddle.cast(y, "float64") / 3.0
    c = (y > 0).astype("int64").sum()
    return y, z, c, y.dtype == paddle.int32


def int_tensor_arith_loop(n):
    a = paddle.to_tensor(1)
    b = 0
    for i in range(n):
        a, b = a + b, a
    return a, b


def shape_bool_python_if(x):
    if x.shape[-1] == 3 and x.ndim == 2:
        y = x.sum(axis=-1)
    else:
        y = x.sum()
    return y, x.shape[-1], x.ndim


def shape_none_dim_python_ops(x):
    n = x.shape[0]
    m = n * 2 + 1
    return paddle.full([m], 1.5), paddle.arange(n), n


def numel_and_size(x):
    return x.numel(), paddle.numel(x) * 2, x.size


def int_cast_drives_tensor_range(x, n):
    k = int(n)
    out = x
    for _ in range(k):
        out = out + 1.0
    return out, k


MODELS = [
    RT("defined_in_loop_used_after", lambda: defined_in_loop_used_after, [([None], F), ([], I)],
       [(r(1, 2), i64(1)), (r(2, 3), i64(4))]),
    RT("early_return_number_or_tensor", lambda: early_return_number_or_tensor, [([None], F)],
       [(r(3, 2, shift=2.0),), (r(4, 3, shift=-2.0),)]),
    RT("return_python_int_from_while", lambda: return_python_int_from_while, [([1], F), ([], I)],
       [(np.array([2.5], F), i64(5)), (np.array([10.0], F), i64(3)), (np.array([-1.0], F), i64(0))]),
    RT("bool_flag_from_loop", lambda: bool_flag_from_loop, [([2], F), ([], I)],
       [(np.array([1.0, -1.0], F), i64(0)), (np.array([-1.0, 1.0], F), i64(1)),
        (np.array([-1.0, 1.0], F), i64(3))]),
    RT("float_acc_of_tensor_items", lambda: float_acc_of_tensor_items, [([2], F), ([], I)],
       [(np.array([1.0, 2.0], F), i64(1)), (np.array([1.0, 2.0], F), i64(3))]),
    RT("user_functions_tuple", lambda: user_functions_tuple, [([None], F)],
       [(np.array([0.5, 0.2], F),), (np.array([3.0, 7.0], F),), (np.array([0.1, -4.0], F),)]),
    RT("logical_mixed", lambda: logical_mixed, [([None], F), ([], B)],
       [(r(5, 2, shift=2.0), bl(True)), (r(6, 3, shift=-3.0), bl(True)), (r(7, 2, shift=2.0), bl(False))]),
    RT("int_promoted_by_while", lambda: int_promoted_by_while, [([None], F)],
       [(np.array([1.0, 2.0], F),), (np.array([100.0, 3.0], F),), (np.array([-1.0], F),)]),
    RT("deep_nesting", lambda: deep_nesting, [([None], F), ([], I)],
       [(np.array([1.0, 0.5], F), i64(0)), (np.array([1.0, 0.5], F), i64(3))]),
    RT("dtypes_through_branches", lambda: dtypes_through_branches, [([None], F), ([], I)],
       [(r(8, 3, scale=3.0), i64(3)), (r(9, 2, scale=3.0), i64(0))]),
    RT("int_tensor_arith_loop", lambda: int_tensor_arith_loop, [([], I)],
       [(i64(0),), (i64(1),), (i64(6),)]),
    RT("shape_bool_python_if", lambda: shape_bool_python_if, [([None, 3], F)],
       [(r(10, 2, 3),), (r(11, 4, 3),)]),
    RT("shape_none_dim_python_ops", lambda: shape_none_dim_python_ops, [([None, 2], F)],
       [(r(12, 2, 2),), (r(13, 5, 2),)]),
    RT("numel_and_size", lambda: numel_and_size, [([None, 2], F)],
       [(r(14, 2, 2),), (r(15, 5, 2),)]),
    RT("int_cast_drives_tensor_range", lambda: int_cast_drives_tensor_range, [([None], F), ([], I)],
       [(r(16, 2), i64(0)), (r(17, 3), i64(3))]),
]

XFAIL = {}


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    return roundtrip_all(MODELS, tmp_path_factory.mktemp("rt_autograph"))


@pytest.mark.parametrize("name", [
    pytest.param(m.name, marks=pytest.mark.xfail(strict=True, reason=XFAIL[m.name]))
    if m.name in XFAIL else m.name for m in MODELS])
def test_roundtrip(results, name):
    assert results[name] is None, results[name]
