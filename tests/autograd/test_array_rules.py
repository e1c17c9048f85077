"""Gradient rules of the tensor-array ops, run the way static backward runs them: the forward
ops on arrays (Python lists when run), then each op's rule in reverse, by hand. A gradient
array is an array whose missing entries are zeros."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.autograd import GradientError
from dy2st.autograd.rules import RULES, VjpContext
from dy2st.autograd.rules.array_rules import add_array_grads
from dy2st.runtime.registry import OPS, apply


def vjp(op, inputs, outputs, attrs, *grads):
    ctx = VjpContext(op, list(inputs), list(outputs), attrs, [True] * len(inputs))
    return RULES[op].fn(ctx, *grads)


def t(a):
    return paddle.to_tensor(np.asarray(a, dtype="float64"))


def idx(i):
    return paddle.to_tensor(np.array(i, dtype="int64"))


def rand(seed, *shape):
    return np.random.default_rng(seed).standard_normal(shape)


def read(garr, i, like):
    return apply("array_grad_read", [garr, idx(i), like]).numpy()


def test_write_overwrite_read_stack():
    x0, x1, x2 = t(rand(0, 2, 3)), t(rand(1, 2, 3)), t(rand(2, 2, 3))
    arr0 = apply("create_array", [], {"dtype": "float64"})
    arr1 = apply("array_write", [arr0, idx(0), x0])
    arr2 = apply("array_write", [arr1, idx(1), x1])
    arr3 = apply("array_write", [arr2, idx(0), x2])        # overwrites x0
    r = apply("array_read", [arr3, idx(1)])
    y = apply("array_stack", [arr3], {"axis": 1})
    np.testing.assert_allclose(y.numpy(), np.stack([x2.numpy(), x1.numpy()], 1))
    c_y, c_r = rand(3, 2, 2, 3), rand(4, 2, 3)

    (g3,) = vjp("array_stack", [arr3], [y], {"axis": 1}, t(c_y))
    g3 = add_array_grads(g3, vjp("array_read", [arr3, idx(1)], [r], {}, t(c_r))[0])
    g2, _, g_x2 = vjp("array_write", [arr2, idx(0), x2], [arr3], {}, g3)
    g1, _, g_x1 = vjp("array_write", [arr1, idx(1), x1], [arr2], {}, g2)
    _, _, g_x0 = vjp("array_write", [arr0, idx(0), x0], [arr1], {}, g1)

    np.testing.assert_allclose(g_x2.numpy(), c_y[:, 0])
    np.testing.assert_allclose(g_x1.numpy(), c_y[:, 1] + c_r)
    np.testing.assert_allclose(g_x0.numpy(), np.zeros((2, 3)))   # overwritten before any use


def test_gradient_array_of_unwritten_or_missing_entries_is_zero():
    like = t(rand(0, 3))
    empty = apply("create_array", [], {"dtype": "float64"})
    np.testing.assert_array_equal(read(empty, 2, like), np.zeros(3))
    at = apply("array_grad_put", [idx(2), t([1.0, 2.0, 3.0])])
    assert at[0] is None and at[1] is None
    np.testing.assert_array_equal(read(at, 2, like), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(read(at, 0, like), np.zeros(3))
    # a write whose output got no gradient at all (None) gives zeros too
    _, _, gx = vjp("array_write", [[], idx(0), like], [[like.numpy()]], {}, None)
    np.testing.assert_array_equal(gx.numpy(), np.zeros(3))


def test_add_gradient_arrays_of_different_lengths():
    a = apply("array_grad_put", [idx(0), t([1.0])])
    b = apply("array_grad_put", [idx(2), t([5.0])])
    s = add_array_grads(add_array_grads(a, b), a)
    assert len(s) == 3 and s[1] is None
    np.testing.assert_array_equal(s[0], [2.0])
    np.testing.assert_array_equal(s[2], [5.0])


def test_concat():
    x0, x1 = t(rand(0, 2, 3)), t(rand(1, 1, 3))
    arr = [x0.numpy(), x1.numpy()]
    y = apply("array_concat", [arr], {"axis": 0})
    c = rand(2, 3, 3)
    (g,) = vjp("array_concat", [arr], [y], {"axis": 0}, t(c))
    np.testing.assert_allclose(read(g, 0, x0), c[:2])
    np.testing.assert_allclose(read(g, 1, x1), c[2:])


def test_pop_puts_the_item_gradient_back():
    xs = [rand(k, 2) for k in range(3)]
    arr = list(xs)
    out, item = OPS["array_pop"].kernel(arr, 1)      # (eager apply wraps one output only)
    item = t(item)
    np.testing.assert_array_equal(item.numpy(), xs[1])
    y = apply("array_stack", [out], {"axis": 0})
    c_y, c_item = rand(5, 2, 2), rand(6, 2)
    (g_out,) = vjp("array_stack", [out], [y], {"axis": 0}, t(c_y))
    g_arr, _ = vjp("array_pop", [arr, idx(1)], [out, item], {}, g_out, t(c_item))
    for k, want in enumerate([c_y[0], c_item, c_y[1]]):
        np.testing.assert_allclose(read(g_arr, k, t(xs[k])), want)


def test_pop_from_the_end_has_a_clear_error():
    with pytest.raises(ValueError, match="non-negative index"):
        vjp("array_pop", [[], idx(-1)], [[], t([1.0])], {}, [], t([1.0]))


def test_slice_and_join():
    xs = [rand(k, 2) for k in range(4)]
    s = apply("array_slice", [list(xs)], {"start": 1, "stop": None, "step": 2})
    assert len(s) == 2
    g_s = apply("array_grad_unstack", [t(np.stack([[1.0, 1.0], [2.0, 2.0]]))], {"axis": 0})
    (g,) = vjp("array_slice", [list(xs)], [s], {"start": 1, "stop": None, "step": 2}, g_s)
    got = [read(g, k, t(xs[k])) for k in range(4)]
    np.testing.assert_array_equal(got, [[0, 0], [1, 1], [0, 0], [2, 2]])

    a, b = [xs[0]], [xs[1], xs[2]]
    joined = apply("array_join", [a, b])
    y = apply("array_stack", [joined], {"axis": 0})
    c = rand(9, 3, 2)
    (g_j,) = vjp("array_stack", [joined], [y], {"axis": 0}, t(c))
    g_a, g_b = vjp("array_join", [a, b], [joined], {}, g_j)
    np.testing.assert_allclose(read(g_a, 0, t(xs[0])), c[0])
    np.testing.assert_allclose([read(g_b, k, t(xs[0])) for k in range(2)], c[1:])


def test_gradient_kernels_have_adjoint_rules():
    # array_grad_at(i, g) and array_grad_read(garr, i, like) are each other's adjoints
    g = t([1.0, 2.0])
    u = apply("array_grad_put", [idx(1), t([3.0, 4.0])])
    _, back = vjp("array_grad_put", [idx(1), g], [None], {}, u)
    np.testing.assert_array_equal(back.numpy(), [3.0, 4.0])
    garr, _, _ = vjp("array_grad_read", [u, idx(1), g], [None], {}, t([5.0, 6.0]))
    np.testing.assert_array_equal(read(garr, 1, g), [5.0, 6.0])
    cleared, _ = vjp("array_grad_clear", [u, idx(1)], [None], {}, u)
    np.testing.assert_array_equal(read(cleared, 1, g), [0.0, 0.0])
    a, b = vjp("array_grad_add", [u, u], [None], {}, u)
    assert a is u and b is u


@pytest.mark.parametrize("op", ["array_grad_unstack", "array_grad_split", "array_grad_insert",
                                "array_grad_unslice", "array_grad_head", "array_grad_tail"])
def test_second_derivatives_through_array_reshaping_are_refused(op):
    with pytest.raises(GradientError, match="not supported"):
        vjp(op, [[]], [[]], {}, [])


def test_array_length_has_no_gradient():
    from dy2st.autograd.rules import NO_GRAD
    assert "array_length" in NO_GRAD and "create_array" in NO_GRAD
