"""Audit round 5, numpy interop: `.numpy()` arithmetic fed back into tensors, numpy scalars and
arrays as tensor operands and indices, `np.array` of tensors, numpy state read by the program
and changed between calls (tools/audit_cases.py)."""
import numpy as np

import dy2st as paddle
from tools.audit_cases_python import FG_SAVE, XS, C

F = paddle.nn.functional


# ====================================================== .numpy() round trips
def numpy_double_back(x):
    y = x.numpy() * 2.0
    return paddle.to_tensor(y) + x


def numpy_sum_python_if(x):
    if x.numpy().sum() > 0:
        return x * 2.0
    return x - 1.0


def numpy_tolist_python_sum(x):
    vals = x.numpy().tolist()
    total = sum(sum(r) for r in vals)
    return x * total


def numpy_argmax_index(x):
    i = int(x.numpy()[:, 0].argmax())
    return x[i] * 3.0


def numpy_where_then_index(x):
    keep = np.where(x.numpy()[:, 0] > 0)[0]
    if keep.size == 0:
        return x.sum(0) * 0.0
    return paddle.gather(x, paddle.to_tensor(keep)).sum(0)


def numpy_copy_written(x):
    a = x.numpy()
    a[0] = 0.0
    return x * 1.0 + paddle.to_tensor(a)


def np_mean_as_scale(x):
    scale = float(np.mean(x.numpy()))
    return x * scale


def np_asarray_of_tensor(x):
    a = np.asarray(x)
    return paddle.to_tensor(a.T.copy()).sum(0) + x.sum(1)


def np_array_of_scalars(x):
    stats = np.array([x.sum().numpy(), x.mean().numpy(), x.max().numpy()])
    return paddle.to_tensor(stats.astype("float32")) * x[0]


def numpy_len(x):
    return x * float(len(x.numpy()))


def item_of_0d_numpy(x):
    v = x.sum().numpy()
    return x * v.item() + float(v.ndim)


# ====================================================== numpy scalars and arrays as operands
def np_float32_operand(x):
    return x * np.float32(2.5) + np.float32(1.0)


def np_float64_operand(x):
    y = x * np.float64(0.5)
    return y, np.float64(2.0) * x


def np_int_operand_int_tensor(x, n):
    return n + np.int64(3), n * np.int32(2), x + np.int64(1)


def np_array_operand(x):
    w = np.array([1.0, -2.0, 0.5], "float32")
    return x * w, w + x


def np_scalar_index(x):
    return x[np.int64(0)] + x[np.int64(-1)] * 2.0


def np_array_index(x):
    idx = np.array([0, -1])
    return x[idx] * 1.0


def np_bool_mask_index(x):
    m = np.array([True, False, True])
    return x[:, m] * 2.0


def to_tensor_of_numpy_scalars(x):
    vals = [np.float32(1.5), np.float32(-2.0), np.float32(0.25)]
    return paddle.to_tensor(vals) * x


def to_tensor_arange_int(x):
    w = paddle.to_tensor(np.arange(3))
    return w * 2, x * w.astype("float32")


def np_comparison_of_shape(x):
    if np.prod(x.shape) > 6:
        return x * 0.5
    return x * 2.0


# ====================================================== numpy state changed between calls
TABLE = np.array([1.0, 2.0, 3.0], "float32")


def global_numpy_table(x):
    return x * paddle.to_tensor(TABLE)


def _table_between(k):
    TABLE[:] = [1.0 + k, 2.0, -1.0 * k]


LOOKUP = np.array([0.5, -1.0, 2.0], "float32")


def global_numpy_element_in_python_if(x):
    if LOOKUP[0] > 0:
        return x * float(LOOKUP[1])
    return x + float(LOOKUP[2])


def _lookup_between(k):
    LOOKUP[:] = [[0.5, -1.0, 2.0], [-0.5, 3.0, 4.0], [2.0, 0.0, 1.0], [-1.0, 1.0, -1.0],
                 [0.5, 2.0, 2.0]][k]


def default_numpy_arg(x, w=np.ones(3, "float32")):  # noqa: B008 - changed in place on purpose
    w *= 1.5
    return x * paddle.to_tensor(w)


def _default_between(k):
    if k == 0:
        default_numpy_arg.__defaults__[0][:] = 1.0


CASES = [
    C(24, numpy_double_back, refusal_ok=FG_SAVE), C(24, numpy_sum_python_if, refusal_ok=FG_SAVE),
    C(24, numpy_tolist_python_sum, refusal_ok=FG_SAVE),
    C(24, numpy_argmax_index, refusal_ok=FG_SAVE), C(24, numpy_where_then_index, refusal_ok=FG_SAVE),
    C(24, numpy_copy_written, refusal_ok=FG_SAVE), C(24, np_mean_as_scale, refusal_ok=FG_SAVE),
    C(24, np_asarray_of_tensor, refusal_ok=FG_SAVE), C(24, np_array_of_scalars, refusal_ok=FG_SAVE),
    C(24, numpy_len, refusal_ok=FG_SAVE), C(24, item_of_0d_numpy, refusal_ok=FG_SAVE),
    C(25, np_float32_operand), C(25, np_float64_operand),
    C(25, np_int_operand_int_tensor, [(a, np.array([3, -4, 5], "int64")) for (a,) in XS]),
    C(25, np_array_operand), C(25, np_scalar_index), C(25, np_array_index),
    C(25, np_bool_mask_index), C(25, to_tensor_of_numpy_scalars), C(25, to_tensor_arange_int),
    C(25, np_comparison_of_shape, refusal_ok=FG_SAVE),
    C(26, global_numpy_table, between=_table_between),
    C(26, global_numpy_element_in_python_if, between=_lookup_between),
    C(26, default_numpy_arg, between=_default_between, save=False),
]
