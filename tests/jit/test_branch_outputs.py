"""A name that is a Python number on one path of a tensor `if` (or before a tensor loop) and a
tensor on the other (issue 13): the number is broadcast to the tensor's shape and dtype, so that
later arithmetic gives what eager code gives; Python numbers of one type on both paths stay
Python numbers of that type (issue 24)."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec
from tests.support import check_user_error, randn, three_modes


def number_in_else(x):
    if x.sum() > 0:
        y = x * 2.0
    else:
        y = 1.0
    return y + x


def number_in_then(x):
    if x.mean() < 0:
        y = 3
    else:
        y = x - 1.0
    z = y * x
    return z, z.sum()


def number_then_tensor_ops(x):
    if x.sum() > 0:
        y = 0.5
    elif x.sum() < -5:
        y = x[:, :1]                      # [B, 1]: broadcast with the others later
    else:
        y = x + paddle.ones([3], "float32")
    return paddle.maximum(y * x, x - 2.0) + y / 2.0


def int_tensor_and_number(x):
    n = (x > 0).astype("int64").sum(axis=1)
    if n.sum() > 2:
        k = n * 2
    else:
        k = 7
    return k + n


def number_before_a_loop(x, n):
    s = 0
    i = 0
    while i < n:
        s = s + x * 2.0                   # an unknown batch dim: s becomes [B, 3]
        i += 1
    return s + x


def number_before_a_for_loop(x):
    acc = 0.0
    for row in x:                        # unknown number of rows
        acc = acc + row
    return acc * 2.0


INPUTS = [randn(1, 4, 3, shift=1.5), randn(2, 4, 3, shift=-1.5), randn(3, 2, 3, shift=-4.0)]


@pytest.mark.parametrize("fn", [number_in_else, number_in_then, number_then_tensor_ops,
                                int_tensor_and_number, number_before_a_for_loop],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("k", range(len(INPUTS)))
def test_number_on_one_path_matches_eager_and_saves(fn, k, tmp_path):
    eager, static, loaded = three_modes(fn, [INPUTS[k]], [[None, 3]], tmp_path)
    assert len(eager) == len(static) == len(loaded)
    for e, s, l in zip(eager, static, loaded):
        np.testing.assert_allclose(s, e, rtol=1e-6)
        np.testing.assert_allclose(l, e, rtol=1e-6)
        assert s.dtype == e.dtype and s.shape == e.shape


@pytest.mark.parametrize("trips", [0, 1, 3])
def test_number_that_a_tensor_loop_turns_into_a_tensor_of_unknown_shape(trips, tmp_path):
    x = randn(4, 5, 3)
    eager, static, loaded = three_modes(number_before_a_loop, [x, np.array(trips, "int64")],
                                        [[None, 3], []], tmp_path)
    np.testing.assert_allclose(static[0], eager[0], rtol=1e-6)
    np.testing.assert_allclose(loaded[0], eager[0], rtol=1e-6)


def test_output_of_the_if_has_the_tensor_shape():
    g = paddle.jit.to_static(number_in_else, full_graph=True)
    out = g(paddle.to_tensor(-np.ones([2, 3], "float32")))
    np.testing.assert_allclose(out.numpy(), np.zeros([2, 3]))
    assert "cond" in str(g.program)


def test_gradient_through_the_branch_with_a_number():
    def loss(x):
        return (number_in_else(x) * x).sum()
    g = paddle.jit.to_static(loss, full_graph=True)
    for a in (randn(5, 2, 3, shift=2.0, dtype="float64"), randn(6, 2, 3, shift=-2.0, dtype="float64")):
        want_x = paddle.to_tensor(a, stop_gradient=False)
        loss(want_x).backward()
        got_x = paddle.to_tensor(a, stop_gradient=False)
        g(got_x).backward()
        np.testing.assert_allclose(got_x.grad.numpy(), want_x.grad.numpy(), rtol=1e-10)
        # d/dx of ((2x + x) x) = 6x on the tensor path, of ((1 + x) x) = 1 + 2x on the other
        expect = 6 * a if a.sum() > 0 else 1 + 2 * a
        np.testing.assert_allclose(got_x.grad.numpy(), expect, rtol=1e-10)


def fractional_number_and_int_tensor(x):
    n = (x > 0).astype("int64")
    if n.sum() > 3:
        k = n * 2
    else:
        k = 0.5
    return k


def test_fractional_number_with_an_int_tensor_is_refused_naming_the_variable():
    g = paddle.jit.to_static(fractional_number_and_int_tensor, full_graph=True)
    with pytest.raises(TypeError, match="'k' is the Python float 0.5") as info:
        g(paddle.to_tensor(INPUTS[0]))
    check_user_error(info.value, __file__, "if n.sum() > 3:")


def test_tensor_array_and_number_is_refused():
    def f(x):
        if x.sum() > 0:
            a = []
            for i in range(x.shape[0]):
                a.append(x[i])
        else:
            a = 1.0
        return a
    g = paddle.jit.to_static(f, full_graph=True, input_spec=[InputSpec([None, 3], "float32")])
    with pytest.raises(TypeError, match="tensor array"):
        g(paddle.to_tensor(INPUTS[0]))


# ----------------------------------------------------------------------------- numbers on both paths
def numbers_on_both_paths(x):
    k, scale, flag = 0, 0.0, False
    if x.sum() > 0:
        k, scale, flag = 1, 1.5, True
    elif x.mean() < -1.0:
        k, scale = 2, 0.1
    state = (k, scale)
    return state, flag, type(k) is int, type(scale) is float, isinstance(flag, bool), x * scale


@pytest.mark.parametrize("full_graph", [True, False])
def test_numbers_on_both_paths_stay_python_numbers(full_graph, tmp_path):
    # eager code has a Python int / float / bool whichever path ran: so has the call, in a
    # Python float's precision (0.1 is not float32's 0.1), and so has a loaded model
    sf = paddle.jit.to_static(numbers_on_both_paths, full_graph=full_graph,
                              input_spec=[InputSpec([None, 3], "float32")])
    xs = [paddle.to_tensor(np.array(rows, "float32")) for rows in     # each path of the `if`
          ([[1.0, 2.0, -0.5]], [[-3.0, -1.0, -2.0], [0.5, 0.0, -1.0]], [[-1.0, 0.5, 0.0]])]
    results = [sf(x) for x in xs]
    assert sf.num_programs == 1 and not sf.graph_breaks
    path = str(tmp_path / "m")
    paddle.jit.save(sf, path)
    loaded = paddle.jit.load(path)
    for x, static in zip(xs, results):
        want = numbers_on_both_paths(x)
        for got in (static, loaded(x)):
            assert got[:5] == want[:5]
            assert [type(v) for v in (*got[0], got[1])] == [type(v) for v in (*want[0], want[1])]
            np.testing.assert_allclose(got[5].numpy(), want[5].numpy(), rtol=1e-6)


def returns_numbers_on_both_paths(x):
    if x.sum() > 0:
        return 1, 0.5, True
    return 2, 1.5, False


@pytest.mark.parametrize("full_graph", [True, False])
def test_numbers_returned_on_both_paths_stay_python_numbers(full_graph):
    sf = paddle.jit.to_static(returns_numbers_on_both_paths, full_graph=full_graph)
    for rows in ([[1.0, 2.0, -0.5]], [[-3.0, -1.0, -2.0]]):
        x = paddle.to_tensor(np.array(rows, "float32"))
        got, want = sf(x), returns_numbers_on_both_paths(x)
        assert got == want and [type(v) for v in got] == [int, float, bool]
    assert sf.num_programs == 1 and not sf.graph_breaks
