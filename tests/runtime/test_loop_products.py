"""Loop-invariant `x @ W^T` products in column pieces (runtime/loop_products.py): when the
executor cuts a product, the pieces cover every column and give np.matmul's values; a model
whose recurrent product is cut gives eager's outputs and gradients."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.runtime.executor import compile_program
from dy2st.runtime.loop_products import (
    MAX_PIECES,
    SMALL_PRODUCT,
    HeldWeight,
    RecurrentWeight,
    column_pieces,
    times_transposed,
)

RNG = np.random.default_rng(11)


def test_products_are_cut_only_just_above_the_small_kernels_limit():
    assert column_pieces(8, 200, 600) == 1              # fits whole
    assert column_pieces(8, 200, 800) == 2              # 1.28e6: two pieces of 400
    assert column_pieces(1, 2000, 2000) == 1            # one row: nothing is packed
    assert column_pieces(0, 200, 800) == 1
    assert column_pieces(64, 200, 800) == 1             # would take 13 pieces
    for m, k, n in [(8, 200, 800), (16, 128, 512), (3, 333, 1201)]:
        p = column_pieces(m, k, n)
        assert 1 < p <= MAX_PIECES and m * k * -(-n // p) <= SMALL_PRODUCT


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("m,k,n", [(8, 200, 800), (3, 333, 1201), (8, 200, 600), (1, 50, 40),
                                   (0, 200, 800)])
def test_pieces_give_the_whole_products_values(dtype, m, k, n):
    x = RNG.standard_normal((m, k)).astype(dtype)
    w = RNG.standard_normal((n, k)).astype(dtype)
    x.flat[:2] = [np.nan, np.inf][:x.size]
    want = np.matmul(x, w.T)
    got = times_transposed(x, RecurrentWeight(w))
    assert got.dtype == want.dtype and got.shape == want.shape and got.flags.c_contiguous
    tol = 1e-6 if dtype == "float32" else 1e-14
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.abs(want[np.isfinite(want)]).max(initial=1))
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))


def test_other_operands_take_one_product_of_the_contiguous_transpose():
    w = RNG.standard_normal((800, 200)).astype("float32")
    held = RecurrentWeight(w)
    x3 = RNG.standard_normal((2, 8, 200)).astype("float32")     # rank 3: one GEMM over the rows
    np.testing.assert_allclose(times_transposed(x3, held), x3 @ w.T, rtol=1e-5, atol=1e-4)
    x64 = RNG.standard_normal((8, 200))                          # float64 x, float32 W
    np.testing.assert_array_equal(times_transposed(x64, held), np.matmul(x64, held.whole()))
    assert held.whole().flags.c_contiguous
    with pytest.raises(ValueError):
        times_transposed(np.ones((8, 7), "float32"), held)      # numpy names the mismatch


def test_a_parameters_prepared_weight_is_kept_until_its_array_changes():
    hold = HeldWeight()
    w = RNG.standard_normal((6, 4)).astype("float32")
    first = hold(w)
    assert hold(w) is first and first.source is w
    assert hold(w.copy()) is not first


class Model(paddle.nn.Layer):
    """A recurrent layer whose step product (batch 8) the executor cuts in two."""

    def __init__(self, kind: str, hidden: int):
        super().__init__()
        self.rnn = getattr(paddle.nn, kind)(3, hidden)

    def forward(self, x):
        return self.rnn(x)[0]


@pytest.mark.parametrize("kind,hidden,gates", [("LSTM", 200, 4), ("GRU", 256, 3),
                                               ("SimpleRNN", 400, 1)])
def test_recurrent_layers_with_cut_products_give_eager_outputs_and_gradients(kind, hidden, gates):
    assert column_pieces(8, hidden, gates * hidden) > 1
    paddle.seed(3)
    eager = Model(kind, hidden)
    static = paddle.jit.to_static(Model(kind, hidden), full_graph=True)
    static.set_state_dict(eager.state_dict())
    x = paddle.to_tensor(RNG.standard_normal((8, 3, 3)).astype("float32"))
    outs, grads = [], []
    for model in (eager, static):
        y = model(x)
        (y * y).sum().backward()
        outs.append(y.numpy())
        grads.append(model.rnn.weight_hh_l0.grad.numpy())
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-4, atol=1e-5)
    program = static.forward.concrete_program.main_program
    compiled = compile_program(program, program.feed_names, program.fetch_names)
    names = [k for k, v in compiled._run.__globals__.items() if v is times_transposed]
    assert names and names[0] + "(" in compiled.source      # the step runs the cut product
