"""Audit round 5, dtype and shape edge cases: int32 vs int64 arithmetic, bool masks, float16,
integer division and modulo of negatives, `paddle.to_tensor` of mixed Python lists, 0-size and
0-d tensors, and None batch dims through InputSpec and jit.save (tools/audit_cases.py)."""
import numpy as np

import dy2st as paddle
from tools.audit_cases_python import FG_SAVE, SAVE, XS, C, rows

F = paddle.nn.functional


def _pairs(a, b):
    return np.array(a, "int32"), np.array(b, "int64")


# an int32 and an int64 vector per call, with negatives and zeros
INT_PAIRS = [_pairs([7, -7, 3], [2, -3, 5]), _pairs([-5, 5, 0], [-2, 4, -1]),
             _pairs([0, -1, 9], [3, 3, -4]), _pairs([-9, 4, 1], [-5, 2, 7]),
             _pairs([6, 6, -6], [4, -4, 4])]
FLOAT_INTS = [(x, b) for (x,), (_a, b) in zip(XS, INT_PAIRS)]


# ====================================================== integer arithmetic
def int32_plus_int64(a, b):
    return a + b, a * b, b - a


def int32_floor_divide_negative(a, b):
    return paddle.floor_divide(a, paddle.full_like(a, -2)), a // 3, a % -4


def int64_remainder_both_signs(a, b):
    return paddle.remainder(b, paddle.to_tensor([3, -3, 2], "int64")), paddle.mod(b, 4)


def int_tensor_pow_and_abs(a, b):
    return b ** 2, paddle.abs(a), -a


def int_true_divide_dtype(a, b):
    q = b / 2
    return q, q.dtype == paddle.float32


def int_times_python_float(a, b):
    return a * 0.5, b * 2, b + True


def int_cumsum_and_sum_dtype(a, b):
    return paddle.cumsum(a), a.sum(), paddle.cumsum(b > 0)


def float_to_int_truncates(x, b):
    y = (x * 3.0 - 0.5).astype("int32")
    return y, paddle.floor(x * 3.0 - 0.5).astype("int64") - y.astype("int64")


def int_clip_and_minimum(a, b):
    return paddle.clip(b, -2, 3), paddle.minimum(b, paddle.zeros_like(b)), paddle.maximum(a, a * -1)


# ====================================================== bool masks
def bool_mask_arithmetic(x):
    m = x > 0
    return m.astype("float32") * x, m.sum(), (m & ~(x > 1)).any(), m ^ (x < 0.5)


def bool_mask_as_weight(x):
    m = x > 0
    w = paddle.where(m, paddle.ones_like(x), paddle.zeros_like(x) + 0.1)
    return (x * w).sum(1) / paddle.clip(m.astype("float32").sum(1), min=1.0)


def bool_count_nonzero_python_if(x):
    if (x > 0).sum() > 3:
        return x * 2.0
    return x.abs()


def bool_cast_from_float(x):
    b = x.astype("bool")
    return b, (x * 0.0).astype("bool").any(), paddle.logical_not(b).astype("int32").sum()


def mask_select_then_mean(x):
    picked = paddle.masked_select(x, x > 0)
    if picked.shape[0] == 0:
        return x.sum() * 0.0
    return picked.mean()


# ====================================================== float16
def float16_round_trip(x):
    h = x.astype("float16")
    return (h * 2.0).astype("float32"), h.dtype == paddle.float16


def float16_plus_float32(x):
    h = (x * 1000.1).astype("float16")
    return h.astype("float32") - x * 1000.1


# ====================================================== to_tensor of Python lists
def to_tensor_mixed_int_float(x):
    t = paddle.to_tensor([1, 2.5, -3])
    return t * x[0], t.dtype == paddle.float32


def to_tensor_ints_and_bools(x):
    a = paddle.to_tensor([1, 2, -3])
    b = paddle.to_tensor([True, False, True])
    c = paddle.to_tensor([[1, 0], [2, 3.0]])
    return a, b, c, x.sum() * a.astype("float32")


def to_tensor_of_tensor_stops_gradient(x):
    y = paddle.to_tensor(x * 2.0)
    return y * x


def to_tensor_new_leaf(x):
    y = paddle.to_tensor(x * 2.0, stop_gradient=False)
    return y * x


def to_tensor_list_of_0d_tensors(x):
    t = paddle.to_tensor([x.sum(), x.mean(), x.max()])
    return t * 2.0


def to_tensor_python_scalars(x):
    a, b, c = paddle.to_tensor(3), paddle.to_tensor(2.5), paddle.to_tensor(True)
    return x * b + a.astype("float32"), a.shape, c


def full_with_int_fill(x):
    a = paddle.full([3], 2)
    b = paddle.full([3], 2, "int32")
    return a, b, x * a


# ====================================================== 0-d and 0-size tensors
def zero_d_ops(x):
    s = x.sum()
    t = s.reshape([1])
    u = paddle.stack([s, s * 2.0])
    return s, t, u, s[None] * 1.0, s.unsqueeze(0).shape


def zero_d_index_and_item_shape(x):
    v = x[0, 0]
    return v, v.shape, v.ndim, x[0][1] * v


def zero_size_slice(x):
    e = x[:0]
    return e.sum(), e.shape, paddle.concat([e, x]) * 2.0


def zero_size_mean_is_nan(x):
    e = x[x > 100.0]
    return e.sum(), paddle.isnan(e.mean())


def loop_over_zero_rows(x):
    acc = x[0] * 0.0
    n = 0
    for r in x[:0]:
        acc = acc + r
        n += 1
    return acc + n


def zeros_with_zero_dim(x):
    z = paddle.zeros([0, 3])
    return paddle.concat([z, x]).shape, z.sum(0), paddle.ones([2, 0]).sum(1)


# ====================================================== None batch dims through jit.save
def reshape_with_zero_copy_dim(x):
    y = x.reshape([0, 3, 1])
    return y.squeeze(-1) * 2.0


def reshape_minus_one_batch(x):
    n = x.shape[0]
    return x.reshape([-1]).reshape([n, -1]) + x.shape[1]


def shape_tensor_arithmetic(x):
    s = paddle.shape(x)
    return x * s[1].astype("float32") + s[0].astype("float32")


def expand_batch_of_parameter_like(x):
    w = paddle.ones([1, 3]) * 0.5
    return w.expand([x.shape[0], 3]) + x


def broadcast_to_minus_one(x):
    b = paddle.to_tensor([1.0, 2.0, 3.0]).unsqueeze(0)
    return paddle.broadcast_to(b, [x.shape[0], 3]) * x


def arange_of_batch(x):
    i = paddle.arange(x.shape[0])
    return x * i.astype("float32").unsqueeze(1), i


def none_index_new_axis(x):
    return (x[:, None, :] * x[None, :, :]).sum(-1)


def batch_dim_in_python_if(x):
    if x.shape[0] > 2:
        return x[:2] * 2.0
    return x


def one_hot_of_argmax(x):
    return F.one_hot(x.argmax(1), 3) * x


CASES = [
    C(27, int32_plus_int64, INT_PAIRS, grad=False),
    C(27, int32_floor_divide_negative, INT_PAIRS, grad=False),
    C(27, int64_remainder_both_signs, INT_PAIRS, grad=False),
    C(27, int_tensor_pow_and_abs, INT_PAIRS, grad=False),
    C(27, int_true_divide_dtype, INT_PAIRS, grad=False),
    C(27, int_times_python_float, INT_PAIRS, grad=False),
    C(27, int_cumsum_and_sum_dtype, INT_PAIRS, grad=False),
    C(27, float_to_int_truncates, FLOAT_INTS), C(27, int_clip_and_minimum, INT_PAIRS, grad=False),
    C(28, bool_mask_arithmetic), C(28, bool_mask_as_weight), C(28, bool_count_nonzero_python_if),
    C(28, bool_cast_from_float), C(28, mask_select_then_mean, refusal_ok=FG_SAVE),
    C(28, float16_round_trip), C(28, float16_plus_float32),
    C(29, to_tensor_mixed_int_float), C(29, to_tensor_ints_and_bools),
    C(29, to_tensor_of_tensor_stops_gradient), C(29, to_tensor_new_leaf),
    C(29, to_tensor_list_of_0d_tensors),
    C(29, to_tensor_python_scalars), C(29, full_with_int_fill),
    C(30, zero_d_ops), C(30, zero_d_index_and_item_shape), C(30, zero_size_slice),
    C(30, zero_size_mean_is_nan), C(30, loop_over_zero_rows), C(30, zeros_with_zero_dim),
    C(31, reshape_with_zero_copy_dim), C(31, reshape_minus_one_batch),
    C(31, shape_tensor_arithmetic), C(31, expand_batch_of_parameter_like),
    C(31, broadcast_to_minus_one), C(31, arange_of_batch), C(31, none_index_new_axis),
    C(31, batch_dim_in_python_if, refusal_ok=SAVE), C(31, one_hot_of_argmax),
]
_ = rows
