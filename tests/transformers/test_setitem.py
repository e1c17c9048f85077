"""setitem pass: `x[i] = v` rebinding, on tensors (static values stay pure) and Python containers."""
import numpy as np

import dy2st as paddle


def set_index(x):
    y = x * 1
    y[0] = 10.0
    return y


def set_slice(x):
    y = x * 1
    y[1:3] = 0.0
    return y


def aug_setitem(x):
    y = x * 1
    y[2] += 5.0
    return y


def set_with_tensor_index(x, i):
    y = x * 1
    y[i] = -1.0
    return y


def set_in_loop(x, n):
    y = x * 0
    for k in range(n):
        y[k] = paddle.cast(k, "float32") + 1
    return y


def set_dict_and_list(x):
    d = {}
    d["a"] = x
    lst = [x, x]
    lst[1] = x * 2
    return d["a"], lst[1]


class Holder:
    def __init__(self, t):
        self.buf = t


def set_attr_subscript(x):
    h = Holder(x * 1)
    h.buf[0] = 100.0
    h.buf[1] += 1.0
    return h.buf


def set_2d(x):
    y = x * 1
    y[0, 1] = 9.0
    y[:, 0] = y[:, 2]
    return y


X = np.array([1.0, 2.0, 3.0, 4.0], np.float32)


def test_index_assignment(check):
    sf = check(set_index, X)
    assert "_jst.SetItem(y, 0, 10.0)" in sf.code


def test_slice_assignment(check):
    sf = check(set_slice, X)
    assert "slice)(1, 3, None)" in sf.code or "slice(1, 3, None)" in sf.code


def test_augmented_item_assignment(check):
    check(aug_setitem, X)


def test_tensor_index(check):
    check(set_with_tensor_index, (X, np.array(2, np.int64)), (X, np.array(0, np.int64)))


def test_item_assignment_in_tensor_loop(check):
    check(set_in_loop, (X, np.array(0, np.int64)), (X, np.array(3, np.int64)))


def test_python_containers(check):
    check(set_dict_and_list, X)


def test_attribute_subscript(check):
    check(set_attr_subscript, X)


def test_two_dims(check):
    check(set_2d, np.arange(12, dtype=np.float32).reshape(3, 4))


def test_static_input_not_mutated():
    sf = paddle.jit.to_static(set_index)
    x = paddle.to_tensor(X.copy())
    sf(x)
    np.testing.assert_allclose(x.numpy(), X)
