"""Dead-code elimination drops the loop variables of a `while` that nothing reads: a loop that
may run no turn carries a "did the body run?" flag for in-place changes after it (a loop
variable is its object from before the loop when no turn ran), and a loop that is followed by
none pays nothing for it."""
import numpy as np

import dy2st as paddle
from dy2st.static import InputSpec

SPEC = [InputSpec([None, 3], "float32"), InputSpec([3], "float32")]


def _while_op(fn):
    program = fn.concrete_program.main_program
    return next(op for op in program.global_block().ops if op.type == "while")


def test_an_unread_ran_flag_leaves_the_loop():
    def rnn(x, h):
        for t in range(x.shape[0]):
            h = paddle.tanh(h * 0.5 + x[t])
        return h

    fn = paddle.jit.to_static(rnn, input_spec=SPEC)
    x, h = np.ones((4, 3), "float32"), np.zeros(3, "float32")
    np.testing.assert_allclose(fn(paddle.to_tensor(x), paddle.to_tensor(h)).numpy(),
                               rnn(paddle.to_tensor(x), paddle.to_tensor(h)).numpy(), rtol=1e-6)
    op = _while_op(fn)
    assert op.attrs["n_loop_vars"] == 2      # h and the counter: no flag
    block = fn.concrete_program.main_program.blocks[op.attrs["body_block"]]
    assert len(block.params) == len(op.inputs) and len(block.results) == 2


def test_a_ran_flag_an_in_place_change_reads_stays():
    def f(x, h):
        g = h
        for t in range(x.shape[0]):
            g = g * 0.5 + x[t]
        g.add_(x.sum())         # reaches h when no turn ran
        return h + g

    fn = paddle.jit.to_static(f, input_spec=SPEC)
    for rows in (0, 2):
        x, h = np.ones((rows, 3), "float32"), np.arange(3, dtype="float32")
        want = f(paddle.to_tensor(x), paddle.to_tensor(h)).numpy()
        np.testing.assert_allclose(fn(paddle.to_tensor(x), paddle.to_tensor(h)).numpy(), want,
                                   rtol=1e-6)
    assert _while_op(fn).attrs["n_loop_vars"] == 3
