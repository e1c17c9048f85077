"""Audit round 6, loop exits: break / continue / for-else / while-else with tensor conditions
at several depths, and early returns from nested loops (tools/audit_cases.py)."""
import dy2st as paddle
from tools.audit_cases_python import FG_SAVE, SAVE, C


# ====================================================== break / continue / else (group 46)
def for_else_nested_tensor_break(x):
    found = x[0] * 0.0
    for r in x:
        for v in [r * 1.0, r * 2.0]:
            if v.sum() > 2.0:
                found = v
                break
        else:
            found = found - 1.0
            continue
        break
    return found


def while_else_tensor_break_python_counter(x):
    i = 0
    s = x[0] * 0.0
    while i < x.shape[0]:
        s = s + x[i]
        if s.sum() > 1.5:
            break
        i += 1
    else:
        s = s * -1.0
    return s, i


def inner_while_else_break(x):
    n = (x[:, 0] > 0).astype("float32").sum() + 1.0
    acc = x[0] * 0.0
    while n > 0:
        n = n - 1.0
        m = n
        while m > 1.0:
            acc = acc + 1.0
            break
        else:
            acc = acc + x[0]
            break
        acc = acc * 0.5
    return acc, n


def continue_in_nested_tensor_loops(x):
    s = x[0] * 0.0
    for r in x:
        for c in range(3):
            if r[c] < 0:
                continue
            s = s + r[c]
        if s.sum() > 3.0:
            continue
        s = s * 0.9
    return s


def break_inner_only_outer_accumulates(x):
    total = x[0] * 0.0
    for r in x:
        k = r * 0.0
        j = paddle.zeros([], "int64")
        while j < 3:
            k = k + r
            if k.sum() > 1.0:
                break
            j = j + 1
        total = total + k
    return total


def while_break_continue_else(x):
    i = paddle.zeros([], "int64")
    s = x[0] * 0.0
    n = x.shape[0]
    while i < n:
        r = x[i]
        i = i + 1
        if r.sum() < -1.0:
            continue
        if r.sum() > 2.0:
            break
        s = s + r
    else:
        s = s + 10.0
    return s


def range_tensor_continue_depth_two(x):
    n = (x[:, 1] > -5.0).astype("int64").sum()
    s = x[0] * 0.0
    for i in range(n):
        for j in range(2):
            if (x[i] * float(j)).sum() > 1.0:
                continue
            s = s + x[i] * float(j + 1)
        if s.mean() > 4.0:
            break
    return s


def for_else_return_in_else(x):
    for r in x:
        if r.sum() > 2.5:
            break
    else:
        return x * -1.0
    return x + 1.0


def flag_loop_instead_of_else(x):
    hit = False
    s = x[0] * 0.0
    for r in x:
        if r.max() > 1.0:
            hit = True
            break
        s = s + r
    return s * (2.0 if hit else 1.0)


def break_after_inplace_in_loop(x):
    h = x[0] * 1.0
    for r in x:
        h.add_(r)
        if h.sum() > 2.0:
            break
        h[0] = h[0] * 0.5
    return h


# ====================================================== early returns in nested loops (group 47)
def return_from_nested_for(x):
    for r in x:
        for k in range(2):
            if (r * float(k + 1)).sum() > 2.0:
                return r * float(k + 1)
    return x[0] * 0.0


def return_from_while_in_for(x):
    for r in x:
        t = r * 1.0
        while t.abs().sum() < 4.0:
            t = t * 2.0 + 0.1
            if t.max() > 3.0:
                return t
    return x[-1]


def return_python_count_from_nested(x):
    count = 0
    for r in x:
        for c in range(3):
            count += 1
            if r[c] > 1.0:
                return r, count
    return x[0], count


def return_in_try_in_loop(x):
    for r in x:
        try:
            if r.sum() > 1.0:
                return r * 3.0
        finally:
            pass
    return x.sum(axis=0)


def return_in_loop_of_helper_called_in_loop(x):
    def first_big(t):
        for r in t:
            if r.max() > 0.5:
                return r
        return t[0] * 0.0
    s = x[0] * 0.0
    for k in range(2):
        s = s + first_big(x * float(k + 1))
    return s


def return_from_tensor_while_with_else(x):
    i = paddle.zeros([], "int64")
    while i < x.shape[0]:
        if x[i].sum() > 1.0:
            return x[i], i
        i = i + 1
    else:
        return x[0] * 0.0, i


def return_list_built_before_return(x):
    out = []
    for r in x:
        out.append(r * 2.0)
        if r.sum() > 1.0:
            return paddle.stack(out)
    return paddle.stack(out) * -1.0


CASES = [
    C(46, for_else_nested_tensor_break, refusal_ok=SAVE),
    C(46, while_else_tensor_break_python_counter, refusal_ok=FG_SAVE),
    C(46, inner_while_else_break), C(46, continue_in_nested_tensor_loops),
    C(46, break_inner_only_outer_accumulates), C(46, while_break_continue_else),
    C(46, range_tensor_continue_depth_two), C(46, for_else_return_in_else),
    C(46, flag_loop_instead_of_else, refusal_ok=FG_SAVE), C(46, break_after_inplace_in_loop),
    C(47, return_from_nested_for), C(47, return_from_while_in_for),
    C(47, return_python_count_from_nested, refusal_ok=FG_SAVE),
    C(47, return_in_try_in_loop, refusal_ok=FG_SAVE),
    C(47, return_in_loop_of_helper_called_in_loop), C(47, return_from_tensor_while_with_else),
    C(47, return_list_built_before_return, refusal_ok=FG_SAVE),
]
