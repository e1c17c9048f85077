"""Python list methods on a list that became a tensor array (it grew in a tensor loop or in one
branch of a tensor `if`, issue 13): each supported one gives what eager code gives, through
to_static and jit.load with an unknown number of items, and its gradient; the others fail at
the user's line saying why the list is no longer a Python list and what to write instead."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.runtime.array_methods import TensorArrayListError
from dy2st.static import InputSpec
from tests.autograd.gradcheck import check
from tests.support import check_user_error, randn, three_modes


def grow(x):
    a = []
    for i in range(x.shape[0]):          # x.shape[0] unknown: a becomes a tensor array
        a.append(x[i] * x[i] + x[i])
    return a


def reverse(x):
    a = grow(x)
    a.reverse()
    return paddle.stack(a)


def pop_last(x):
    a = grow(x)
    v = a.pop()
    return paddle.stack(a) + v * 3.0


def pop_positions(x):
    a = grow(x)
    first = a.pop(0)
    second = a.pop(-2)
    return paddle.stack(a) * first + second


def insert(x):
    a = grow(x)
    a.insert(0, x[0] * 10.0)
    a.insert(-1, x[1] * 2.0)
    a.insert(100, x[2])                 # past the end: appended, as in Python
    return paddle.stack(a)


def extend(x):
    a = grow(x)
    a.extend(grow(x * 2.0))
    a.extend([x[0], x[1] * 3.0])
    return paddle.stack(a)


def slices(x):
    a = grow(x)
    return paddle.concat([paddle.stack(a[1:]), paddle.stack(a[:-1]), paddle.stack(a[::2]),
                          paddle.stack(a[::-1]), paddle.stack(a[1:3])])


def length_and_negative_indices(x):
    a = grow(x)
    return (a[-1] + a[-2] * 2.0) * len(a)


def iteration(x):
    a = grow(x)
    s = x[0] * 0.0
    for t in a:
        s = s * 0.5 + t
    for k, t in enumerate(a):
        s = s + t * k
    for t in reversed(a):
        s = s * 0.25 + t
    return s


def clear_and_copy(x):
    a = grow(x)
    b = a.copy()
    b.append(x[0])
    a.clear()
    a.append(x[1] * 5.0)
    return paddle.concat([paddle.stack(a), paddle.stack(b)])


def assign_and_delete(x):
    a = grow(x)
    a[0] = x[1] * 7.0
    a[-1] = x[0] - 1.0
    del a[1]
    return paddle.stack(a)


def concatenate(x):
    a = grow(x)
    b = a + grow(x * 0.5)
    c = [x[0]] + b + [x[1]]
    return paddle.stack(c)


def grown_in_an_if(x):
    a = [x[0]]
    if x.sum() > 0:
        a.append(x[1] * 2.0)
    a.reverse()
    a.insert(0, x[-1])
    return paddle.stack(a)


def methods_inside_the_loop(x):
    a = []
    for i in range(x.shape[0]):
        a.insert(0, x[i] * 2.0)
        if i > 1:
            a.pop()
    a.extend(a[:1])
    return paddle.stack(a)


def plus_equal_in_the_loop(x):
    a = []
    for i in range(x.shape[0]):
        a += [x[i] * 3.0, x[i] + 1.0]       # grows the list as extend does
    return paddle.stack(a)


def max_and_min_of_entries(x):
    a = [r.sum() * 0.5 for r in x]     # max() / min() of the entries, not of the array itself
    return paddle.stack([x[0] * max(a), x[-1] + min(a)])


SUPPORTED = [reverse, pop_last, pop_positions, insert, extend, slices,
             length_and_negative_indices, iteration, clear_and_copy, assign_and_delete,
             concatenate, grown_in_an_if, methods_inside_the_loop, plus_equal_in_the_loop,
             max_and_min_of_entries]


@pytest.mark.parametrize("fn", SUPPORTED, ids=lambda f: f.__name__)
@pytest.mark.parametrize("rows,shift", [(3, 1.0), (5, -1.0)])
def test_list_method_matches_eager_and_saves(fn, rows, shift, tmp_path):
    x = randn(rows, rows, 3, shift=shift)
    eager, static, loaded = three_modes(fn, [x], [[None, 3]], tmp_path)
    np.testing.assert_allclose(static[0], eager[0], rtol=1e-6)
    np.testing.assert_allclose(loaded[0], eager[0], rtol=1e-6)
    assert static[0].shape == eager[0].shape


def _position_weighted(fn):
    """fn's result times 1, 2, 3, ... along its first axis (a plain sum would not see an
    order change such as reverse())."""
    def weighted(x):
        y = fn(x)
        return y * paddle.cumsum(paddle.ones_like(y), axis=0)
    weighted.__name__ = fn.__name__
    return weighted


@pytest.mark.parametrize("fn", SUPPORTED, ids=lambda f: f.__name__)
def test_list_method_gradient_matches_finite_differences(fn):
    weighted = _position_weighted(fn)
    static = paddle.jit.to_static(weighted, full_graph=True,
                                  input_spec=[InputSpec([None, 3], "float64")])
    check(weighted, [randn(11, 4, 3, shift=0.5, dtype="float64")], static_fn=static)
    assert "array_" in str(static.program)         # the list really was a tensor array


def grow_sums(x):
    a = []
    for i in range(x.shape[0]):
        a.append(x[i].sum())              # one-element items: eager can compare them
    return a


def sort_items(x):
    a = grow_sums(x)
    a.sort()
    return a[0]


def index_of(x):
    a = grow_sums(x)
    return a.index(x[0].sum())


def insert_at_a_tensor_position(x):
    a = grow(x)
    a.insert(x.shape[0] - 1, x[0])
    return paddle.stack(a)


def to_python_list(x):
    a = grow(x)
    return paddle.stack(list(a))


def assign_a_slice(x):
    a = grow(x)
    a[0:2] = [x[0], x[1]]
    return paddle.stack(a)


@pytest.mark.parametrize("fn,line,hint", [
    (sort_items, "a.sort()", "paddle.sort(t, axis=0)"),
    (index_of, "return a.index(x[0].sum())", "paddle.stack(a)"),
    (insert_at_a_tensor_position, "a.insert(x.shape[0] - 1, x[0])", "Python int position"),
    (to_python_list, "return paddle.stack(list(a))", "for t in a:"),
    (assign_a_slice, "a[0:2] = [x[0], x[1]]", "a = a[:i] + [v] + a[j:]"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_unsupported_list_operation_says_why_and_what_to_write(fn, line, hint):
    x = randn(3, 4, 3)
    fn(paddle.to_tensor(x))                 # fine eagerly: a Python list
    static = paddle.jit.to_static(fn, full_graph=True, input_spec=[InputSpec([None, 3], "float32")])
    with pytest.raises(TensorArrayListError) as info:
        static(paddle.to_tensor(x))
    text = str(info.value)
    assert "appended inside a tensor-dependent loop or `if`" in text, text
    assert hint in text, text
    check_user_error(info.value, __file__, line)


def test_dense_tensor_methods_of_the_same_names_still_work():
    def f(x):
        return paddle.concat([x.reverse(axis=0), x.sort(axis=1)])
    x = randn(5, 4, 3)
    static = paddle.jit.to_static(f, full_graph=True, input_spec=[InputSpec([None, 3], "float32")])
    np.testing.assert_allclose(static(paddle.to_tensor(x)).numpy(), f(paddle.to_tensor(x)).numpy())
