"""Gradients through converted tensor if/while (data-dependent trip counts, break, early
return, tensor arrays, nested loops) agree eagerly, through to_static and with finite
differences, on inputs that take different paths."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec
from tests.autograd.gradcheck import check


def rng(seed, *shape, scale=1.0, shift=0.0):
    return np.random.default_rng(seed).standard_normal(shape) * scale + shift


def loop_then_cond(x):
    while x.sum() < 4.0:
        x = x * 1.5 + 0.2
    if x.mean() > 1.0:
        y = paddle.tanh(x) * x
    else:
        y = paddle.exp(x * 0.5)
    return y


def loop_with_break(x):
    h = x
    for i in range(10):
        h = h * paddle.cos(h) + x
        if h.sum() > 3.0:
            break
    return h


def early_return(x, w):
    h = x
    i = 0
    while i < 6:
        h = paddle.matmul(h, w) + x
        if paddle.abs(h).max() > 5.0:
            return h * 2.0
        i += 1
    return h


def list_in_loop(x):
    outs = []
    h = x
    n = 0
    while h.sum() < 6.0:
        h = h + paddle.sigmoid(h)
        outs.append(h * h)
        n += 1
    if n == 0:
        outs.append(h)
    return paddle.stack(outs).sum(axis=0)


def nested_loops(x):
    h = x
    for i in range(2):
        while h.sum() < 3.0 * (i + 1):
            if h.mean() > 0.5:
                h = h * 1.2 + x
            else:
                h = paddle.exp(h) * 0.5 + x * x
        h = h * 0.7
    return h


def zero_or_more_turns(x):
    h = x
    while h.sum() < 1.0:
        h = h * 2.0 + 0.1
    return h * h


def loop_inside_branch(x):
    if x.sum() > 0:
        h = x
        while h.sum() < 5.0:
            h = h * h + 0.5
    else:
        h = paddle.sin(x) * 3.0
    return h


def constant_branch(x):
    if x.sum() > 0:
        y = x * 3.0
    else:
        y = paddle.zeros_like(x) + 1.0
    return y + x * 0.1


CASES = [
    (loop_then_cond, [rng(0, 3, scale=0.1, shift=0.5)], [rng(1, 3, shift=2.0)], [rng(2, 3, scale=0.1, shift=0.1)]),
    (loop_with_break, [rng(3, 4, scale=0.2)], [rng(4, 4, shift=1.0)], [rng(5, 4, scale=0.1, shift=-0.5)]),
    (nested_loops, [rng(6, 3, scale=0.1, shift=0.3)], [rng(7, 3, scale=0.1, shift=0.8)], [rng(8, 3, shift=3.0)]),
    (zero_or_more_turns, [rng(9, 3, shift=2.0)], [rng(10, 3, scale=0.1, shift=0.1)]),
    (loop_inside_branch, [rng(11, 3, scale=0.2, shift=0.5)], [rng(12, 3, scale=0.2, shift=-0.5)]),
    (list_in_loop, [rng(13, 3, scale=0.1, shift=0.5)], [rng(14, 3, shift=4.0)]),
    (constant_branch, [rng(15, 3, shift=1.0)], [rng(16, 3, shift=-1.0)]),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0].__name__ for c in CASES])
def test_gradients_agree_on_every_path(case):
    fn, *inputs = case
    static_fn = paddle.jit.to_static(fn, full_graph=True)
    for arrays in inputs:
        check(fn, arrays, static_fn)


def test_early_return_from_a_loop_with_a_shared_weight():
    w = rng(20, 3, 3, scale=0.6)
    static_fn = paddle.jit.to_static(early_return, full_graph=True)
    for seed, scale in ((21, 0.1), (22, 1.0), (23, 3.0)):
        check(early_return, [rng(seed, 2, 3, scale=scale), w], static_fn)


def test_rnn_over_an_unknown_number_of_rows_sums_the_shared_weight_gradient():
    def rnn(x, w):
        h = paddle.zeros([3], "float64")
        for t in range(x.shape[0]):
            h = paddle.tanh(paddle.matmul(w, h) + x[t])
        return h

    w = rng(30, 3, 3, scale=0.5)
    static_fn = paddle.jit.to_static(
        rnn, input_spec=[InputSpec([None, 3], "float64"), InputSpec([3, 3], "float64")],
        full_graph=True)
    for n in (1, 4, 7):
        check(rnn, [rng(31 + n, n, 3), w], static_fn)
    assert static_fn.num_programs == 1


def test_static_gradients_of_a_program_with_a_while_loop():
    from dy2st.static import Executor, Program, data, program_guard

    prog = Program()
    with program_guard(prog):
        x = data("x", [3], "float64")

        def cond(i, h):
            return paddle.sum(h) < 10.0

        def body(i, h):
            return i + 1, paddle.sin(h) * 1.5 + h * x

        _, h = paddle.static.nn.while_loop(cond, body, [paddle.zeros([], "int64"), x])
        loss = paddle.sum(h * h)
        (gx,) = paddle.static.gradients([loss], [x])

    def reference(a):
        h = a.copy()
        while h.sum() < 10:
            h = np.sin(h) * 1.5 + h * a
        return np.sum(h * h)

    for a in (np.array([1.1, 1.2, 1.3]), np.array([4.0, 4.0, 4.0])):
        fd = np.array([(reference(a + e) - reference(a - e)) / 2e-6 for e in np.eye(3) * 1e-6])
        (got,) = Executor().run(prog, feed={"x": a}, fetch_list=[gx])
        np.testing.assert_allclose(got, fd, rtol=1e-5)
