"""Scenarios: nested if/elif/else with tensor predicates, early returns, mixing Python and tensor
conditions, and/or/not, values created in only one branch, None-returning paths."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec
from tests.support import randn as _rand


def _save_load_check(fn, specs, arg_sets, tmp_path):
    """jit.save the converted fn and compare jit.load's outputs with eager (flattened leaves)."""
    sf = paddle.jit.to_static(fn)
    path = str(tmp_path / "m" / "model")
    paddle.jit.save(sf, path, input_spec=[InputSpec(s, d) for s, d in specs])
    loaded = paddle.jit.load(path)

    def leaves(v):
        if isinstance(v, (list, tuple)):
            return [y for x in v for y in leaves(x)]
        if isinstance(v, dict):
            return [y for k in v for y in leaves(v[k])]
        if v is None:
            return []
        return [v.numpy() if isinstance(v, paddle.Tensor) else np.asarray(v)]

    for args in arg_sets:
        want = leaves(fn(*[paddle.to_tensor(a.copy()) for a in args]))
        got = leaves(loaded(*[paddle.to_tensor(a.copy()) for a in args]))
        assert len(want) == len(got)
        for w, g in zip(want, got):
            np.testing.assert_allclose(np.asarray(g).reshape(np.shape(w)), w, rtol=1e-5, atol=1e-6)


# --- elif chains with early returns -------------------------------------------------------------

def elif_chain_returns(x):
    m = x.mean()
    if m > 1.0:
        return x * 3.0
    elif m > 0.0:
        return x * 2.0
    elif m > -1.0:
        y = x - 1.0
        return y
    return -x


@pytest.mark.parametrize("shift", [2.0, 0.5, -0.5, -3.0])
def test_elif_chain_early_returns(check, shift):
    check(elif_chain_returns, (_rand(1, 4, scale=0.1, shift=shift),))


def test_elif_chain_early_returns_saved(tmp_path):
    _save_load_check(elif_chain_returns, [([4], "float32")],
                     [(_rand(1, 4, scale=0.1, shift=s),) for s in (2.0, 0.5, -0.5, -3.0)], tmp_path)


def nested_if_assign_then_return(x):
    y = x
    if x.sum() > 0:
        if x.max() > 2.0:
            y = x * 10.0
        else:
            if x.min() < -1.0:
                return x - 100.0
            y = x + 1.0
    else:
        y = -x
    return y * 2.0


def test_nested_if_with_return_in_inner_branch(check, arr):
    check(nested_if_assign_then_return,
          (arr([3.0, 1.0, 0.0]),), (arr([0.5, 1.0, -1.5]),), (arr([0.5, 1.0, 0.0]),),
          (arr([-1.0, -1.0, 0.5]),))


def elif_mixed_python_tensor(x, mode):
    if mode == "a":
        out = x + 1.0
    elif mode == "b" and x.mean() > 0:
        out = x * 2.0
    elif x.sum() < -1.0:
        out = x * 0.0
    else:
        out = x - 5.0
    return out


@pytest.mark.parametrize("mode,shift", [("a", 0.0), ("b", 1.0), ("b", -2.0), ("c", 2.0), ("c", -2.0)])
def test_elif_mixed_python_and_tensor_predicates(check, mode, shift):
    check(elif_mixed_python_tensor, (_rand(2, 3, scale=0.1, shift=shift), mode))


# --- variables defined in a single branch, used later -----------------------------------------

def var_defined_in_both_branches_later_used(x):
    if x.mean() > 0:
        a = x + 1.0
        b = a * 2.0
    else:
        a = x - 1.0
        b = a * 3.0
    c = a + b
    return c


def test_vars_defined_in_both_branches(check):
    check(var_defined_in_both_branches_later_used, (_rand(3, 4, shift=1.0),), (_rand(3, 4, shift=-1.0),))


def temp_only_in_one_branch(x):
    if x.mean() > 0:
        tmp = x * 2.0
        x = tmp + 1.0
    else:
        x = x - 1.0
    return x


def test_branch_local_temp_not_needed_after(check):
    check(temp_only_in_one_branch, (_rand(4, 3, shift=1.0),), (_rand(4, 3, shift=-1.0),))


# --- python numbers and shapes in tensor ifs ---------------------------------------------------

def int_counter_in_tensor_if(x):
    count = 0
    if x[0] > 0:
        count += 1
    if x[1] > 0:
        count += 2
    return x * count, count


def test_python_int_updated_in_tensor_ifs(check, arr):
    check(int_counter_in_tensor_if, (arr([1.0, 1.0]),), (arr([-1.0, 1.0]),), (arr([-1.0, -1.0]),))


def if_on_tensor_no_else_python_flag(x):
    flag = False
    if x.sum() > 0:
        flag = True
    if flag:
        return x + 1.0
    return x - 1.0


def test_python_bool_flag_set_in_tensor_if(check):
    check(if_on_tensor_no_else_python_flag, (_rand(5, 3, shift=2.0),), (_rand(5, 3, shift=-2.0),))


# --- conditional expressions and logical ops ---------------------------------------------------

def ternary_nested(x):
    s = x.sum()
    y = x * 2.0 if s > 1.0 else (x * 3.0 if s > -1.0 else x * 4.0)
    return y


def test_nested_conditional_expression(check, arr):
    check(ternary_nested, (arr([1.0, 2.0]),), (arr([0.1, 0.2]),), (arr([-3.0, -2.0]),))


def and_or_not_if(x, y):
    if (x.mean() > 0 and y.mean() > 0) or not (x.sum() > -1.0):
        z = x + y
    else:
        z = x - y
    return z


@pytest.mark.parametrize("sx,sy", [(1.0, 1.0), (1.0, -1.0), (-2.0, 1.0), (-0.1, -1.0)])
def test_and_or_not_condition(check, sx, sy):
    check(and_or_not_if, (_rand(6, 3, scale=0.01, shift=sx), _rand(7, 3, scale=0.01, shift=sy)))


def none_check_and_tensor(x, y=None):
    if y is not None and y.sum() > 0:
        return x + y
    if y is None or x.sum() > 100.0:
        return x * 2.0
    return x - y


def test_none_default_mixed_with_tensor_cond(check, arr):
    check(none_check_and_tensor, (arr([1.0, 2.0]),), (arr([1.0, 2.0]), arr([1.0, 1.0])),
          (arr([1.0, 2.0]), arr([-1.0, -1.0])))


def tensor_truthiness_if(x):
    m = paddle.mean(x)
    if m:
        y = x / m
    else:
        y = x
    return y


def test_tensor_truthiness_as_condition(check, arr):
    check(tensor_truthiness_if, (arr([1.0, 2.0]),), (arr([1.0, -1.0]),))


def bool_tensor_arg_not(x, flag):
    if not flag:
        x = x + 1.0
    return x


def test_not_of_bool_tensor_arg(check, arr):
    check(bool_tensor_arg_not, (arr([1.0]), np.array(True)), (arr([1.0]), np.array(False)))


# --- returns of None / differing python values -------------------------------------------------

def maybe_none_python(x, flag):
    if flag:
        return None
    return x + 1.0


def test_return_none_on_python_path(check, arr):
    check(maybe_none_python, (arr([1.0]), True), (arr([1.0]), False))


def no_return_value_tensor_if(x):
    if x.sum() > 0:
        x[0] = 5.0
    else:
        x[0] = -5.0


def test_function_returning_none_with_tensor_if(check, arr):
    check(no_return_value_tensor_if, (arr([1.0, 2.0]),), (arr([-1.0, -2.0]),))


def early_return_bare_in_tensor_if(x):
    y = x + 1.0
    if y.sum() > 0:
        return
    return y


@pytest.mark.parametrize("full_graph", [True, False])
def test_bare_return_vs_tensor_return_gives_none_on_its_path(arr, full_graph):
    # None on one path and a tensor on the other: the output carries an "is it None?" flag
    sf = paddle.jit.to_static(early_return_bare_in_tensor_if, full_graph=full_graph)
    assert sf(paddle.to_tensor(arr([1.0, 2.0]))) is None
    np.testing.assert_allclose(sf(paddle.to_tensor(arr([-3.0, -2.0]))).numpy(), [-2.0, -1.0])


# --- tuples, multiple values ------------------------------------------------------------------

def tuple_unpack_in_branches(x):
    if x.mean() > 0:
        a, b = x + 1.0, x.sum()
    else:
        a, b = x - 1.0, x.max()
    return a * b


def test_tuple_unpack_assign_in_branches(check):
    check(tuple_unpack_in_branches, (_rand(8, 3, shift=1.0),), (_rand(8, 3, shift=-1.0),))


def shape_conditioned_if(x):
    # the batch dim is unknown under the spec: the comparison becomes a tensor predicate
    if x.shape[0] > 2:
        y = x[:2]
    else:
        y = x * 1.0
    return y.sum(axis=0)


def test_if_on_unknown_batch_dim(check):
    spec = [InputSpec([None, 3], "float32")]
    check(shape_conditioned_if, (_rand(9, 4, 3),), (_rand(9, 2, 3),), (_rand(9, 1, 3),), input_spec=spec)


def if_dtype_and_ndim(x):
    if x.dtype == paddle.float32 and x.ndim == 2:
        y = x.sum(axis=1)
    else:
        y = x.astype("float32")
    if y.sum() > 0:
        y = y * 2.0
    return y


def test_if_on_dtype_and_ndim(check, arr):
    check(if_dtype_and_ndim, (arr([[1.0, 2.0]]),), (arr([1, -5], "int64"),), (arr([[-1.0, -2.0]]),))


def compare_chain(x):
    if 0.0 < x.mean() < 1.0:
        return x + 1.0
    return x - 1.0


def test_chained_comparison_on_tensor(check, arr):
    check(compare_chain, (arr([0.5, 0.5]),), (arr([2.0, 2.0]),), (arr([-2.0, 0.0]),))


def if_inside_elif_with_assign_only_some(x):
    out = paddle.zeros_like(x)
    if x[0] > 0:
        out = out + 1.0
    elif x[1] > 0:
        if x[2] > 0:
            out = out + 2.0
        else:
            out = out + 3.0
    return out


def test_elif_with_nested_if_no_else(check, arr):
    check(if_inside_elif_with_assign_only_some, (arr([1.0, 0.0, 0.0]),), (arr([-1.0, 1.0, 1.0]),),
          (arr([-1.0, 1.0, -1.0]),), (arr([-1.0, -1.0, -1.0]),))
