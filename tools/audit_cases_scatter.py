"""Audit round 6, writes by index: item assignment with tensor, bool-mask and slice indices (then
reading the base), and the gradients of where / gather / scatter / index_put / put_along_axis
and friends, duplicate indices included (tools/audit_cases.py)."""
import numpy as np

import dy2st as paddle
from tools.audit_cases_python import FG_SAVE, SAVE, C, rows

# (x, idx): idx has duplicates and every row count's valid entries
XI = [(rows(4, 0.5), np.array([0, 2, 2], "int64")), (rows(4, -0.5), np.array([3, 3, 1], "int64")),
      (rows(4, 1.0), np.array([1, 0, 1], "int64")), (rows(4, -1.0), np.array([2, 1, 0], "int64"))]


# ====================================================== item assignment (group 51)
def setitem_column_mask_then_base(x):
    y = x.clone()
    y[:, 1][y[:, 1] < 0] = 0.0
    y[y[:, 0] > 0, 2] = -1.0
    return y


def setitem_mask_with_masked_values(x):
    y = x * 1.0
    m = y > 0
    y[m] = y[m] * 2.0
    return y


def setitem_by_argsort_index(x):
    y = paddle.zeros_like(x)
    idx = paddle.argsort(x[:, 0])
    y[idx] = x * 2.0
    return y


def setitem_overlapping_columns(x):
    y = x * 1.0
    y[..., 0] = y[..., 1]
    y[..., 1] = y[..., 0] + 1.0
    return y


def setitem_0d_tensor_index(x):
    y = x * 1.0
    i = x.sum(axis=1).argmax()
    y[i] = 0.0
    return y


def setitem_in_tensor_loop_tensor_index(x):
    y = x * 1.0
    i = paddle.zeros([], "int64")
    while i < x.shape[0]:
        if y[i].sum() < 0:
            y[i] = -y[i]
        i = i + 1
    return y


def setitem_slice_assign_tensor_then_read(x):
    y = x * 1.0
    y[1:] = y[:-1] * 0.5
    return y, y.sum()


def setitem_python_bool_list_mask(x):
    y = x * 1.0
    y[:, [True, False, True]] = 5.0
    return y


def setitem_from_broadcast_row(x):
    y = x * 1.0
    if x.mean() > 0:
        y[:] = x[0]
    return y


def setitem_step_slice(x):
    y = x * 1.0
    y[::2, ::2] = y[::2, ::2] * -3.0
    return y


def setitem_list_entry_then_stack(x):
    parts = [x[0] * 1.0, x[-1] * 1.0]
    p = parts[0]
    p[1] = 9.0
    return paddle.stack(parts)


def setitem_index_with_duplicates(x, idx):
    y = x * 1.0
    y[idx] = x[0] * 3.0
    return y


# ====================================================== gather / scatter gradients (group 52)
def where_grad_both_branches(x):
    return paddle.where(x > 0, x * x, -x * 3.0)


def where_with_scalar_and_sqrt(x):
    return paddle.where(x > 0, paddle.sqrt(x.abs() + 1.0), paddle.zeros_like(x))


def gather_duplicates_grad(x, idx):
    return paddle.gather(x, idx) * 2.0


def scatter_overwrite_duplicates(x, idx):
    upd = paddle.stack([x[0] * 2.0, x[1] * 3.0, x[2] * 4.0])
    return paddle.scatter(x, idx, upd, overwrite=True)


def scatter_accumulate_duplicates(x, idx):
    upd = paddle.stack([x[0] * 2.0, x[1] * 3.0, x[2] * 4.0])
    return paddle.scatter(x, idx, upd, overwrite=False)


def index_put_accumulate(x, idx):
    v = x[0, 0] * paddle.ones([3])
    return paddle.index_put(x, (idx, paddle.to_tensor([0, 1, 2])), v, accumulate=True)


def index_put_overwrite(x, idx):
    v = x[1, :] * 2.0
    return paddle.index_put(x, (idx, paddle.to_tensor([0, 1, 2])), v)


def take_and_put_along_axis(x, idx):
    j = (idx[:1].unsqueeze(0) % 3).expand([x.shape[0], 1])
    t = paddle.take_along_axis(x, j, axis=1)
    return paddle.put_along_axis(x, j, t * 5.0, axis=1)


def gather_nd_grad(x, idx):
    pts = paddle.stack([idx, idx % 3], axis=1)
    return paddle.gather_nd(x, pts) ** 2


def index_select_then_index_add(x, idx):
    sel = paddle.index_select(x, idx, axis=0)
    return paddle.index_add(x, idx, 0, sel * 0.5)


def masked_select_grad(x):
    return paddle.masked_select(x, x > 0.2).sum() + x.mean()


def scatter_nd_add_grad(x, idx):
    return paddle.scatter_nd_add(x, idx.unsqueeze(1), x[:3] * 2.0)


def where_under_tensor_if_then_gather(x, idx):
    y = paddle.where(x > 0, x, x * 0.1)
    if y.sum() > 0:
        y = paddle.gather(y, idx)
    else:
        y = y[:3] * 2.0
    return y


CASES = [
    C(51, setitem_column_mask_then_base), C(51, setitem_mask_with_masked_values),
    C(51, setitem_by_argsort_index), C(51, setitem_overlapping_columns),
    C(51, setitem_0d_tensor_index), C(51, setitem_in_tensor_loop_tensor_index),
    C(51, setitem_slice_assign_tensor_then_read), C(51, setitem_python_bool_list_mask),
    C(51, setitem_from_broadcast_row), C(51, setitem_step_slice),
    C(51, setitem_list_entry_then_stack),
    C(51, setitem_index_with_duplicates, XI, grad_inputs=(0,)),
    C(52, where_grad_both_branches), C(52, where_with_scalar_and_sqrt),
    C(52, gather_duplicates_grad, XI, grad_inputs=(0,)),
    C(52, scatter_overwrite_duplicates, XI, grad_inputs=(0,)),
    C(52, scatter_accumulate_duplicates, XI, grad_inputs=(0,)),
    C(52, index_put_accumulate, XI, grad_inputs=(0,)),
    C(52, index_put_overwrite, XI, grad_inputs=(0,)),
    C(52, take_and_put_along_axis, XI, grad_inputs=(0,)),
    C(52, gather_nd_grad, XI, grad_inputs=(0,)),
    C(52, index_select_then_index_add, XI, grad_inputs=(0,)),
    C(52, masked_select_grad, refusal_ok=SAVE),
    C(52, scatter_nd_add_grad, XI, grad_inputs=(0,)),
    C(52, where_under_tensor_if_then_gather, XI, grad_inputs=(0,), refusal_ok=FG_SAVE),
]
