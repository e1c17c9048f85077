"""AutoGraph-style scenarios: loop scoping, composite names as state, variables that
change type from Python values to tensors, deep nesting, early returns of mixed kinds, user
functions with control flow returning tuples, logical expressions mixing None / tensors / bools."""
import numpy as np
import pytest

import dy2st as paddle


def i64(v):
    return np.array(v, dtype="int64")


def f32(v):
    return np.asarray(v, dtype="float32")


# ---------------------------------------------------------------- loop scoping
def var_first_defined_in_tensor_while(x, n):
    i = 0
    while i < n:
        last = x * i
        i += 1
    return last


def var_first_defined_in_tensor_for(x, n):
    for i in range(n):
        sq = x + i * i
    return sq, i


def loop_local_shadows_outer_name(x, n):
    t = x + 100.0
    s = paddle.zeros_like(x)
    for i in range(n):
        t = x * i
        s = s + t
    return s, t


def loop_local_temp_not_used_after(x, n):
    s = paddle.zeros_like(x)
    i = paddle.zeros([], dtype="int64")
    while i < n:
        tmp = x * 2.0
        tmp2 = tmp + 1.0
        s = s + tmp2
        i += 1
    return s


def loop_var_reused_by_second_loop(x, n):
    s = x
    for i in range(n):
        s = s + i
    for i in range(3):
        s = s * 1.0 + i
    return s, i


def nested_loops_same_inner_name(x, n):
    total = paddle.zeros([], dtype="float32")
    for i in range(n):
        for j in range(2):
            v = x[j] * (i + 1)
            total = total + v
    return total


def loop_body_defines_function(x, n):
    s = x
    for i in range(n):
        def bump(t):
            return t + 1.0
        s = bump(s)
    return s


@pytest.mark.parametrize("n", [1, 3])
def test_var_first_defined_in_tensor_while(check, n):
    check(var_first_defined_in_tensor_while, (f32([1.0, 2.0]), i64(n)))


@pytest.mark.parametrize("n", [1, 4])
def test_var_first_defined_in_tensor_for(check, n):
    check(var_first_defined_in_tensor_for, (f32([1.0, 2.0]), i64(n)))


@pytest.mark.parametrize("n", [0, 3])
def test_loop_local_shadows_outer_name(check, n):
    check(loop_local_shadows_outer_name, (f32([1.0, 2.0]), i64(n)))


@pytest.mark.parametrize("n", [0, 3])
def test_loop_local_temp_not_used_after(check, n):
    check(loop_local_temp_not_used_after, (f32([1.0, 2.0]), i64(n)))


@pytest.mark.parametrize("n", [0, 2])
def test_loop_var_reused_by_second_loop(check, n):
    check(loop_var_reused_by_second_loop, (f32([1.0, 2.0]), i64(n)))


@pytest.mark.parametrize("n", [0, 3])
def test_nested_loops_same_inner_name(check, n):
    check(nested_loops_same_inner_name, (f32([1.0, 2.0]), i64(n)))


@pytest.mark.parametrize("n", [0, 2])
def test_loop_body_defines_function(check, n):
    check(loop_body_defines_function, (f32([1.0, 2.0]), i64(n)))


# ---------------------------------------------------------------- composite names
class Obj:
    pass


def nested_attribute_state_in_while(x, n):
    o = Obj()
    o.a = Obj()
    o.a.b = x
    o.a.c = 0
    while o.a.c < n:
        o.a.b = o.a.b * 2.0
        o.a.c = o.a.c + 1
    return o.a.b, o.a.c


def nested_dict_state_in_for(x, n):
    d = {"k": {"j": x, "m": paddle.zeros([], dtype="float32")}}
    for i in range(n):
        d["k"]["j"] = d["k"]["j"] + 1.0
        d["k"]["m"] = d["k"]["m"] + d["k"]["j"].sum()
    return d["k"]["j"], d["k"]["m"]


def list_of_lists_state(x, n):
    grid = [[x, x * 2.0], [x * 3.0, x * 4.0]]
    i = 0
    while i < n:
        grid[0][1] = grid[0][1] + grid[1][0]
        grid[1][1] = grid[1][1] - 1.0
        i += 1
    return grid[0][1], grid[1][1]


def composite_in_tensor_if(x):
    o = Obj()
    o.v = x
    d = {"a": [x, x]}
    if x.sum() > 0:
        o.v = o.v + 1.0
        d["a"][1] = d["a"][1] * 3.0
    else:
        o.v = o.v - 1.0
    return o.v, d["a"][1]


def attribute_on_self_like_object_in_for(x, n):
    acc = Obj()
    acc.items = []
    acc.total = paddle.zeros_like(x)
    for i in range(n):
        acc.total = acc.total + x * i
    return acc.total


def dict_with_int_keys_state(x, n):
    d = {0: x, 1: x * 0.0}
    for i in range(n):
        d[1] = d[1] + d[0]
    return d[1]


@pytest.mark.parametrize("n", [0, 3])
def test_nested_attribute_state_in_while(check, n):
    check(nested_attribute_state_in_while, (f32([1.0, 2.0]), i64(n)))


@pytest.mark.parametrize("n", [0, 3])
def test_nested_dict_state_in_for(check, n):
    check(nested_dict_state_in_for, (f32([1.0, 2.0]), i64(n)))


@pytest.mark.parametrize("n", [0, 2])
def test_list_of_lists_state(check, n):
    check(list_of_lists_state, (f32([1.0, 2.0]), i64(n)))


def test_composite_in_tensor_if(check):
    check(composite_in_tensor_if, (f32([1.0, 2.0]),), (f32([-1.0, -2.0]),))


@pytest.mark.parametrize("n", [0, 3])
def test_attribute_on_object_in_for(check, n):
    check(attribute_on_self_like_object_in_for, (f32([1.0, 2.0]), i64(n)))


@pytest.mark.parametrize("n", [0, 3])
def test_dict_with_int_keys_state(check, n):
    check(dict_with_int_keys_state, (f32([1.0, 2.0]), i64(n)))


# ---------------------------------------------------------------- variables changing type
def int_becomes_tensor_in_while(x):
    v = 1
    while v < x.sum():
        v = v * 3
    return v


def float_accumulates_tensor(x, n):
    acc = 0.0
    for i in range(n):
        acc = acc + x[i % 2]
    return acc


def bool_flag_from_tensor(x, n):
    found = False
    for i in range(n):
        if x[i % 2] > 1.5:
            found = True
    return found


def none_becomes_tensor_in_loop(x, n):
    best = None
    for i in range(n):
        cand = x * i
        if best is None:
            best = cand
        else:
            best = paddle.maximum(best, cand)
    return best


def int_then_tensor_in_python_loop(x):
    total = 0
    for k in range(3):
        if k == 1:
            total = total + x.sum()
        else:
            total = total + k
    return total


def tensor_if_assigns_int_or_tensor(x):
    if x.sum() > 0:
        v = 1
    else:
        v = x.sum()
    return v * 2


@pytest.mark.parametrize("v", [[1.0, 2.0], [100.0, 3.0], [-1.0, 0.0]])
def test_int_becomes_tensor_in_while(check, v):
    check(int_becomes_tensor_in_while, (f32(v),))


@pytest.mark.parametrize("n", [1, 3])
def test_float_accumulates_tensor(check, n):
    check(float_accumulates_tensor, (f32([1.0, 2.0]), i64(n)))


def test_float_accumulates_tensor_zero_trips(check):
    check(float_accumulates_tensor, (f32([1.0, 2.0]), i64(0)))


@pytest.mark.parametrize("n", [0, 1, 2])
def test_bool_flag_from_tensor(check, n):
    check(bool_flag_from_tensor, (f32([1.0, 2.0]), i64(n)))


@pytest.mark.parametrize("n", [1, 3])
def test_none_becomes_tensor_in_loop(check, n):
    # None before a tensor loop and a tensor after it: carried with an "is it None?" flag that
    # `best is None` tests (docs/conversion_limits.md)
    check(none_becomes_tensor_in_loop, (f32([1.0, -2.0]), i64(n)), full_graph=True)


def test_none_becomes_tensor_in_loop_returned_after_no_turn():
    # eager returns None, and so does the program (its "is it None?" flag is fetched)
    args = (f32([1.0, -2.0]), i64(0))
    assert none_becomes_tensor_in_loop(*map(paddle.to_tensor, args)) is None
    assert paddle.jit.to_static(none_becomes_tensor_in_loop, full_graph=True)(
        *map(paddle.to_tensor, args)) is None


def test_int_then_tensor_in_python_loop(check):
    check(int_then_tensor_in_python_loop, (f32([1.0, 2.0]),))


def test_tensor_if_assigns_int_or_tensor(check):
    check(tensor_if_assigns_int_or_tensor, (f32([1.0, 2.0]),), (f32([-1.0, -2.0]),))


# ---------------------------------------------------------------- deep nesting
def four_levels(x, n):
    out = paddle.zeros_like(x)
    for i in range(n):
        j = 0
        while j < 2:
            if x.sum() > i:
                if j == 1:
                    out = out + x * i
                else:
                    for k in range(2):
                        out = out - k
            else:
                out = out + 0.5
            j += 1
    return out


def if_while_if_break(x):
    if x.mean() > 0:
        i = 0
        while i < 10:
            if x.sum() * i > 5.0:
                break
            i += 1
        y = x * i
    else:
        y = x
    return y


@pytest.mark.parametrize("n", [0, 1, 3])
def test_four_levels(check, n):
    check(four_levels, (f32([1.0, 0.5]), i64(n)))


def test_if_while_if_break(check):
    check(if_while_if_break, (f32([1.0, 0.5]),), (f32([-1.0, 0.5]),), (f32([0.01, 0.0]),))


# ---------------------------------------------------------------- early returns
def early_return_python_number_or_tensor(x):
    if x.sum() > 0:
        return 1.0
    return x.mean()


def early_return_in_nested_loop_single(x, n):
    for i in range(n):
        for j in range(3):
            if (x + i + j).sum() > 6.0:
                return x * 10.0
    return x


def early_return_in_while_inside_if(x, n):
    if x.mean() > 0:
        i = 0
        while i < n:
            x = x + 1.0
            if x.sum() > 8.0:
                return x
            i += 1
        x = x * -1.0
    return x


def return_int_or_python_int(x, n):
    i = 0
    while i < n:
        if x[0] > i:
            return i
        i += 1
    return -1


@pytest.mark.parametrize("v", [[1.0, 2.0], [-1.0, -2.0]])
def test_early_return_python_number_or_tensor(check, v):
    check(early_return_python_number_or_tensor, (f32(v),))


@pytest.mark.parametrize("v,n", [([0.0, 0.0], 3), ([2.0, 2.0], 2), ([5.0, 5.0], 0)])
def test_early_return_in_nested_loop_single(check, v, n):
    check(early_return_in_nested_loop_single, (f32(v), i64(n)))


@pytest.mark.parametrize("v,n", [([1.0, 1.0], 1), ([1.0, 1.0], 5), ([-1.0, -1.0], 3)])
def test_early_return_in_while_inside_if(check, v, n):
    check(early_return_in_while_inside_if, (f32(v), i64(n)))


@pytest.mark.parametrize("v,n", [([2.5], 5), ([10.0], 3), ([-1.0], 0)])
def test_return_int_or_python_int(check, v, n):
    check(return_int_or_python_int, (f32(v), i64(n)))


# ---------------------------------------------------------------- user functions
def _clip_count(t, limit):
    count = 0
    while t.max() > limit:
        t = t / 2.0
        count += 1
    return t, count


def _sign_pair(t):
    if t.sum() >= 0:
        return t, 1
    else:
        return -t, -1


def calls_user_functions(x):
    y, c = _clip_count(x, 1.0)
    z, s = _sign_pair(y - 0.5)
    return z * s, c


def calls_in_loop_with_tuple_unpack(x, n):
    total = 0
    for i in range(n):
        x, c = _clip_count(x * 4.0, 1.0)
        total = total + c
    return x, total


@pytest.mark.parametrize("v", [[0.5, 0.2], [3.0, 7.0], [0.1, -4.0]])
def test_calls_user_functions(check, v):
    check(calls_user_functions, (f32(v),))


@pytest.mark.parametrize("n", [0, 2])
def test_calls_in_loop_with_tuple_unpack(check, n):
    check(calls_in_loop_with_tuple_unpack, (f32([3.0, 0.5]), i64(n)))


# ---------------------------------------------------------------- logical expressions
def none_check_and_tensor(x, mask=None):
    if mask is not None and mask.sum() > 0:
        x = x * mask
    if mask is None or x.mean() > 0:
        x = x + 1.0
    return x


def python_bool_and_tensor(x, flag):
    if flag and x.sum() > 0:
        y = x * 2.0
    elif not flag or x.sum() < -5.0:
        y = x - 1.0
    else:
        y = x
    return y


def tensor_or_returns_value(x, y):
    a = (x > 0) or (y > 0)
    b = (x > 0) and (y > 0)
    return a, b


def not_and_in_while(x):
    i = 0
    while not (x.sum() > 10.0) and i < 5:
        x = x + 1.0
        i += 1
    return x, i


@pytest.mark.parametrize("mask", [None, [1.0, 0.0], [-1.0, -1.0]])
def test_none_check_and_tensor(check, mask):
    x = f32([1.0, -3.0])
    if mask is None:
        check(none_check_and_tensor, (x,))
    else:
        check(none_check_and_tensor, (x, f32(mask)))


@pytest.mark.parametrize("flag", [True, False])
@pytest.mark.parametrize("v", [[1.0, 2.0], [-3.0, -4.0], [-0.5, 0.1]])
def test_python_bool_and_tensor(check, flag, v):
    check(python_bool_and_tensor, (f32(v), flag))


@pytest.mark.parametrize("a,b", [(1.0, -1.0), (-1.0, -1.0), (1.0, 1.0)])
def test_tensor_or_returns_value(check, a, b):
    check(tensor_or_returns_value, (f32(a), f32(b)))


@pytest.mark.parametrize("v", [[0.0, 0.0], [20.0, 0.0], [3.0, 3.0]])
def test_not_and_in_while(check, v):
    check(not_and_in_while, (f32(v),))


class Holder:
    pass


def attribute_of_subscript_in_if(x):
    h = Holder()
    h.v = x
    d = {"k": h}
    if x.sum() > 0:
        d["k"].v = x * 3.0
    return d["k"].v


def attribute_of_list_item_in_tensor_loop(x, n):
    hs = [Holder(), Holder()]
    hs[1].v = x
    i = 0
    while i < n:
        hs[1].v = hs[1].v * 2.0 + 1.0
        i += 1
    return hs[1].v


def subscript_in_tuple_target_in_if(x):
    items = [x, x]
    if x.sum() > 0:
        items[0], y = x * 2.0, x
    return items[0]


def test_attribute_of_subscript_in_if(check):
    check(attribute_of_subscript_in_if, (f32([1.0, 2.0]),), (f32([-1.0, -2.0]),))


def test_attribute_of_list_item_in_tensor_loop(check):
    check(attribute_of_list_item_in_tensor_loop, (f32([1.0, 2.0]), i64(0)), (f32([1.0, 2.0]), i64(3)))


def test_subscript_in_tuple_target_in_if(check):
    check(subscript_in_tuple_target_in_if, (f32([1.0, 2.0]),), (f32([-1.0, -2.0]),))


# ---------------------------------------------------------------- structured returns in tensor loops
def return_tuple_in_tensor_for(x, n):
    for i in range(n):
        if x.sum() > 3.0:
            return x, i
        x = x + 1.0
    return x, -1


def return_dict_in_tensor_for(x, n):
    for i in range(n):
        if x.sum() > 3.0:
            return {"v": x}
        x = x + 1.0
    return {"v": -x}


def bare_return_in_tensor_for(x, n):
    for i in range(n):
        if x.sum() > 3.0:
            return
        x = x + 1.0
    return


def return_tuple_in_python_bounded_while(x):
    i = 0
    while i < 5:
        if x.sum() > 3.0:
            return x, i
        x = x + 1.0
        i += 1
    return x, -1




@pytest.mark.parametrize("v,n", [([2.0], 3), ([-5.0], 2), ([-5.0], 0)])
def test_return_tuple_in_tensor_for(check, v, n):
    check(return_tuple_in_tensor_for, (f32(v), i64(n)))


@pytest.mark.parametrize("v,n", [([2.0], 3), ([-5.0], 2)])
def test_return_dict_in_tensor_for(check, v, n):
    check(return_dict_in_tensor_for, (f32(v), i64(n)))


def test_bare_return_in_tensor_for(check):
    check(bare_return_in_tensor_for, (f32([2.0]), i64(3)))


@pytest.mark.parametrize("v", [[2.0], [-15.0]])
def test_return_tuple_in_python_bounded_while(check, v):
    check(return_tuple_in_python_bounded_while, (f32(v),))


# ---------------------------------------------------------------- flags and sentinels as loop state
def while_not_done(x):
    done = False
    while not done:
        x = x * 2.0
        done = x.sum() > 10.0
    return x


def converged_loop(x):
    prev = None
    i = 0
    while i < 100:
        if prev is not None and (x - prev).abs().max() < 1e-3:
            break
        prev = x
        x = x * 0.5
        i += 1
    return x, i


def float_to_tensor_while(x):
    t = 0.0
    while t < 1.0:
        t = t + x.mean()
    return t


def none_limit_or_tensor_bound(x, limit=None):
    i = 0
    while limit is None or i < limit:
        x = x + 1.0
        i += 1
        if limit is None and i >= 3:
            break
    return x, i


class _Acc:
    def __init__(self):
        self.v = 0

    def add(self, t):
        if t.sum() > 0:
            self.v = self.v + t
        else:
            self.v = self.v - t


def plain_object_method_in_tensor_loop(x, n):
    a = _Acc()
    for i in range(n):
        a.add(x - i)
    return a.v


@pytest.mark.parametrize("v", [[1.0], [20.0]])
def test_while_not_done(check, v):
    check(while_not_done, (f32(v),))


@pytest.mark.parametrize("v", [[1.0], [0.0]])
def test_converged_loop(check, v):
    check(converged_loop, (f32(v),))


@pytest.mark.parametrize("v", [[0.3], [2.0]])
def test_float_to_tensor_while(check, v):
    check(float_to_tensor_while, (f32(v),))


def test_none_limit_or_tensor_bound(check):
    check(none_limit_or_tensor_bound, (f32([1.0]),), (f32([1.0]), i64(5)))


def test_plain_object_method_in_python_loop(check):
    check(plain_object_method_in_tensor_loop, (f32([1.0]), 3))


def test_plain_object_method_in_tensor_loop(check):
    check(plain_object_method_in_tensor_loop, (f32([1.0]), i64(3)))
