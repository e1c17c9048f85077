"""Audit round 4, tensor cases: in-place methods on views and aliases, item assignment with
tensor indices, masks, ellipsis and negative steps, where/masked_fill, shapes with None dims,
len/enumerate/zip, loop break/continue/else, early returns, recursion, formatting, assert,
isinstance, casts and integer division signs (tools/audit_cases.py)."""
import numpy as np

import dy2st as paddle
from tools.audit_cases_python import FG_SAVE, SAVE, XS, C, rows


def _ints(*vals):
    return np.array(vals, "int64")


INTS = [(rows(2, 1.0), _ints(7, -7, 3)), (rows(3, -1.0), _ints(-5, 5, -2)),
        (rows(1), _ints(0, -1, 9)), (rows(4, 0.5), _ints(-9, 4, 1))]


# ====================================================== in-place on views and aliases
def inplace_on_row_view(x):
    y = x * 1.0
    v = y[0]
    v.scale_(2.0)
    return y


def inplace_through_alias(x):
    y = x * 1.0
    z = y
    z.add_(paddle.ones_like(x))
    z.clip_(-0.5, 1.5)
    return y * 2.0


def inplace_on_slice_view_in_loop(x):
    y = x * 1.0
    for r in range(y.shape[0]):
        y[r, 1:].add_(y[r, :2])
    return y


def setitem_tensor_index(x):
    y = x * 1.0
    idx = paddle.argmax(x[:, 0]).astype("int64")
    y[idx] = -1.0
    return y


def setitem_mask(x):
    y = x * 1.0
    y[y > 0] = 0.0
    return y


def setitem_mask_tensor_value(x):
    y = x * 1.0
    m = x < 0
    y[m] = x[m] * 3.0
    return y


def setitem_ellipsis(x):
    y = x * 1.0
    y[..., 1] = y[..., 0] * 2.0
    return y


def getitem_negative_steps(x):
    return x[::-1] * 1.0 + x[:, ::-2].sum(1, keepdim=True)


def setitem_negative_step(x):
    y = x * 1.0
    y[:, ::-2] = x[:, :2] * 10.0
    return y


def inplace_under_tensor_if_alias(x):
    y = x * 1.0
    z = y
    if x.sum() > 0:
        z.scale_(-1.0)
    else:
        y.add_(x)
    return y + z


def inplace_in_tensor_loop_view(x):
    y = x * 0.0
    for r in x:
        y[0].add_(r)
    return y


def inplace_after_dict_store(x):
    y = x * 1.0
    d = {"y": y}
    y.subtract_(x * 0.5)
    return d["y"] * 2.0


def inplace_tuple_member(x):
    y = x * 1.0
    t = (y, x)
    y.multiply_(x)
    return t[0] + t[1]


# ====================================================== where / masked_fill vs if
def where_vs_masked_fill(x):
    a = paddle.where(x > 0, x, x * 0.1)
    b = paddle.masked_fill(x, x > 0, 2.0)
    return a + b


def python_if_on_any(x):
    if (x > 1.0).any():
        return paddle.where(x > 1.0, x * 0.0, x)
    return x * 2.0


# ====================================================== shapes, len, enumerate, zip
def shape_arithmetic(x):
    n = x.shape[0]
    y = x.reshape([-1, x.shape[1] * 1]) * float(x.shape[1])
    return y.sum(0) / n


def reshape_from_shape_product(x):
    n, m = x.shape
    return x.reshape([n * m]) * 2.0


def len_of_tensor(x):
    return x * float(len(x))


def len_in_range_loop(x):
    acc = x[0] * 0.0
    for k in range(len(x)):
        acc = acc + x[k] * float(k + 1)
    return acc


def enumerate_rows_start(x):
    acc = x[0] * 0.0
    for k, r in enumerate(x, 1):
        acc = acc + r * k
    return acc


def zip_rows_with_list(x):
    ws = [1.0, -2.0, 3.0]
    acc = x[0] * 0.0
    for w, r in zip(ws, x):
        acc = acc + r * w
    return acc


def zip_two_tensors(x):
    acc = x[0] * 0.0
    for a, b in zip(x, x[::-1]):
        acc = acc + a * b
    return acc


# ====================================================== loops: break / continue / else / return
def break_on_tensor(x):
    acc = x[0] * 0.0
    for r in x:
        if r.sum() < 0:
            break
        acc = acc + r
    return acc


def continue_on_tensor(x):
    acc = x[0] * 0.0
    for r in x:
        if r.sum() < 0:
            continue
        acc = acc + r
    return acc


def for_else_tensor_break(x):
    acc = x[0] * 0.0
    for r in x:
        if r.max() > 1.5:
            acc = acc - 10.0
            break
        acc = acc + r
    else:
        acc = acc + 100.0
    return acc


def while_else(x):
    i = 0
    s = x.sum() * 0.0
    while i < x.shape[0]:
        s = s + x[i].sum()
        if s > 2.0:
            break
        i += 1
    else:
        s = s - 50.0
    return s


def early_return_nested_loops(x):
    for r in x:
        for j in range(3):
            if r[j] > 1.0:
                return r * float(j)
    return x[0] * -1.0


def nested_break_inner_only(x):
    acc = x[0] * 0.0
    for r in x:
        for j in range(3):
            if r[j] < 0:
                break
            acc = acc + r[j]
    return acc


def _depth_sum(t, n):
    if n == 0:
        return t
    return _depth_sum(t * 0.5, n - 1) + t


def recursion_python_depth(x):
    return _depth_sum(x, 3)


def _rec_rows(t):
    if t.shape[0] == 1:
        return t[0]
    return t[0] + _rec_rows(t[1:]) * 0.5


def recursion_on_shape(x):
    return _rec_rows(x)


# ====================================================== formatting, print, assert, isinstance
def fstring_shape(x):
    tag = f"{x.shape[0]}x{x.shape[1]}"
    return x * float(len(tag))


def print_tensor(x):
    y = x * 2.0
    print("audit-print", y.shape)
    return y


def assert_on_tensor(x):
    assert x.abs().sum() >= 0, "never fails"
    return x + 1.0


def assert_fails_on_a_path(x):
    assert x.sum() > -3.0, "sum too small"
    return x * 2.0


def isinstance_checks(x):
    out = x
    for v in [x, 2.0, 3, (x, x)]:
        if isinstance(v, paddle.Tensor):
            out = out + v
        elif isinstance(v, float):
            out = out * v
        elif isinstance(v, int):
            out = out - v
        else:
            out = out + v[0] * 0.5
    return out


# ====================================================== dtypes, integer division, lists
def int_floor_div_mod(x, n):
    return n // 2, n % 3, n // -2, n % -3, (n.astype("float32") / 2.0)


def cast_chain(x, n):
    f = n.astype("float32")
    b = (f > 0).astype("int32")
    return f * 0.5 + b.astype("float32"), b.sum()


def python_div_of_tensor_int(x, n):
    m = n.sum()
    return x * (m // 2).astype("float32"), m % 4


def bool_arithmetic(x):
    pos = x > 0
    return pos.astype("float32").sum() + x.sum(), (pos & (x < 1)).astype("int64").sum()


def to_tensor_list_built_in_loop(x):
    vals = []
    for k in range(x.shape[0]):
        vals.append(float(k) * 0.5)
    return paddle.to_tensor(vals) + x.sum(1)


def to_tensor_nested_list(x):
    grid = [[float(i * j) for j in range(3)] for i in range(2)]
    return paddle.to_tensor(grid, dtype="float32").sum(0) * x[0]


def int_tensor_true_divide(x, n):
    return n / 2, n.astype("float32") % 2.5


# in-place changes of an argument: what the caller's tensor holds after the call is compared too
# (tools/audit_cases.py, caller_view)
def arg_add_(x):
    x.add_(paddle.ones_like(x))
    return x * 2.0


def arg_setitem(x):
    x[0] = 5.0
    return x.sum()


def arg_scale_under_tensor_if(x):
    if x.sum() > 0:
        x.scale_(2.0)
    return x + 1.0


def arg_row_view_add_(x):
    v = x[0]
    v.add_(paddle.ones_like(v))
    return x * 1.0


ARG_CASES = [arg_add_, arg_setitem, arg_scale_under_tensor_if, arg_row_view_add_]


CASES = [
    C(8, inplace_on_row_view), C(8, inplace_through_alias), C(8, inplace_on_slice_view_in_loop),
    C(8, setitem_tensor_index), C(8, setitem_mask), C(8, setitem_mask_tensor_value),
    C(8, setitem_ellipsis), C(8, getitem_negative_steps), C(8, setitem_negative_step),
    C(8, inplace_under_tensor_if_alias), C(8, inplace_in_tensor_loop_view),
    C(8, inplace_after_dict_store), C(8, inplace_tuple_member),
    C(9, where_vs_masked_fill), C(9, python_if_on_any),
    C(10, shape_arithmetic), C(10, reshape_from_shape_product), C(10, len_of_tensor),
    C(10, len_in_range_loop), C(10, enumerate_rows_start), C(10, zip_rows_with_list, refusal_ok=SAVE),
    C(10, zip_two_tensors),
    C(11, break_on_tensor), C(11, continue_on_tensor), C(11, for_else_tensor_break),
    C(11, while_else), C(11, early_return_nested_loops), C(11, nested_break_inner_only),
    C(11, recursion_python_depth), C(11, recursion_on_shape, refusal_ok=FG_SAVE),
    C(12, fstring_shape, refusal_ok=SAVE), C(12, print_tensor), C(12, assert_on_tensor),
    C(12, assert_fails_on_a_path), C(12, isinstance_checks),
    C(13, int_floor_div_mod, INTS), C(13, cast_chain, INTS), C(13, python_div_of_tensor_int, INTS),
    C(13, bool_arithmetic), C(13, to_tensor_list_built_in_loop, refusal_ok=FG_SAVE),
    C(13, to_tensor_nested_list), C(13, int_tensor_true_divide, INTS),
]
_ = XS
