"""Where Python meets the tape: rows of a tensor taken by iteration carry gradients, while
`detach()` and `float()` of a tensor stop them — eagerly and through to_static alike."""
import numpy as np

import dy2st as paddle
import dy2st.nn.functional as F
from tests.autograd.gradcheck import autograd, check

RNG = np.random.default_rng(5)


def _rows_squared(x):
    acc = paddle.zeros([x.shape[1]], dtype=x.dtype)
    for row in x:
        acc = acc + row * row
    return acc


def _enumerated(x):
    acc = paddle.zeros([3], dtype="float64")
    for i, row in enumerate(x):
        acc = acc + row * (i + 1.5)
    return acc


def _zipped(x, y):
    acc = paddle.zeros([4], dtype="float64")
    for a, b in zip(x, y):
        acc = acc + a * b
    return acc


def test_iterating_rows_is_differentiable():
    check(_rows_squared, [RNG.standard_normal((4, 3))])
    check(_enumerated, [RNG.standard_normal((3, 3))])
    check(_zipped, [RNG.standard_normal((2, 4)), RNG.standard_normal((2, 4))])


def test_iterating_a_tensor_without_gradient_records_nothing():
    x = paddle.to_tensor(RNG.standard_normal((3, 2)))
    rows = list(x)
    assert len(rows) == 3 and all(r._node is None and r.stop_gradient for r in rows)
    np.testing.assert_array_equal(rows[1].numpy(), x.numpy()[1])


def _scaled_by_float_of_mean(x):
    return x * (float(x.mean()) * 0.5)


def _times_detached(x):
    return x * x.detach()


def _times_copy(x):
    return x * paddle.to_tensor(x)     # a copy is a new leaf with stop_gradient=True


def test_float_of_a_tensor_is_a_constant_in_both_modes():
    # float() gives a Python number eagerly: the gradient ignores its dependence on x
    x = RNG.uniform(0.0, 3.0, (4,))
    static = paddle.jit.to_static(_scaled_by_float_of_mean, full_graph=True)
    for fn in (_scaled_by_float_of_mean, static):
        _, (g,) = autograd(fn, [x])
        np.testing.assert_allclose(g, np.full(4, x.mean() * 0.5), rtol=1e-12)


def test_detach_and_copies_stop_gradients_in_both_modes():
    x = RNG.standard_normal((2, 3))
    for eager in (_times_detached, _times_copy):
        static = paddle.jit.to_static(eager, full_graph=True)
        for fn in (eager, static):
            _, (g,) = autograd(fn, [x])
            np.testing.assert_allclose(g, x, rtol=1e-12)


def test_detach_in_a_static_program_stops_append_backward():
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        x = paddle.static.data("x", [None, 3], "float64")
        x.stop_gradient = False
        y = x * x.detach() + x.detach() * 2.0
        gx, = paddle.static.gradients([paddle.sum(y)], [x])
    data = RNG.standard_normal((2, 3))
    got, = paddle.static.Executor().run(main, feed={"x": data}, fetch_list=[gx])
    np.testing.assert_allclose(got, data, rtol=1e-12)


def test_straight_through_gumbel_softmax_has_the_eager_gradient_through_to_static():
    # hard samples are one_hot - soft.detach() + soft: with a detach that did nothing in a
    # Program, the converted gradient was 0
    c = paddle.to_tensor(RNG.standard_normal((2, 4)))

    def fn(x):
        return F.gumbel_softmax(x, temperature=0.5, hard=True) * c
    x = RNG.standard_normal((2, 4))
    grads = []
    for f in (fn, paddle.jit.to_static(fn, full_graph=True)):
        paddle.seed(3)
        _, (g,) = autograd(f, [x])
        grads.append(g)
    assert np.abs(grads[0]).max() > 1e-3
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-10, atol=1e-12)
