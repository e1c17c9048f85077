"""cast pass: int() / float() / bool() / len() of tensors stay symbolic."""
import numpy as np

from dy2st.static import InputSpec


def int_of_sum(x):
    n = int(x.sum())
    return x * 0 + n


def float_of_int_tensor(x, k):
    return x * float(k)


def bool_of_tensor(x):
    b = bool(x.sum() > 0)
    if b:
        return x + 1
    return x - 1


def len_of_tensor(x):
    return x * len(x)


def len_of_list(x):
    items = [x, x, x]
    return x * len(items)


def int_python(x, v):
    return x * int(v)


X = np.array([1.5, 2.7, 3.1], np.float32)


def test_int_of_tensor(check):
    sf = check(int_of_sum, X, -X)
    assert "_jst.Int(" in sf.code
    assert "cast" in str(sf.program)


def test_float_of_tensor(check):
    check(float_of_int_tensor, (X, np.array(3, np.int64)), (X, np.array(-2, np.int64)))


def test_bool_of_tensor(check):
    check(bool_of_tensor, X, -X)


def test_len_known_dim(check):
    check(len_of_tensor, X, np.ones([5, 2], np.float32))


def test_len_unknown_dim(check):
    m = np.ones([4, 2], np.float32)
    sf = check(len_of_tensor, m, m[:1], input_spec=[InputSpec([None, 2], "float32")])
    assert sf.num_programs == 1


def test_len_and_int_of_python_values(check):
    check(len_of_list, X)
    check(int_python, (X, 2.9), (X, "3"))
