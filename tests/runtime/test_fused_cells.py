"""The numpy executor's fused LSTM and GRU gate kernels (runtime/fused_cells.py): the same bits
as the unfused ops, in to_static programs with and without the fusion, values and gradients, and
the chains it must leave alone."""
import numpy as np
import pytest

import dy2st as paddle
import dy2st.runtime.executor as executor
from dy2st.runtime.fused_cells import GRU_GATES, LSTM_GATES, gru_gates, lstm_gates
from dy2st.runtime.registry import OPS

RNG = np.random.default_rng(5)


def _unfused(gates, c):
    sig, tanh, mul = OPS["sigmoid"].kernel, OPS["tanh"].kernel, np.multiply
    i, f, g, o = np.split(gates, 4, axis=-1)
    c_new = np.add(mul(sig(f), c), mul(sig(i), tanh(g)))
    return c_new, mul(sig(o), tanh(c_new))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shapes", [((3, 8), (3, 2)), ((1, 4), (1, 1)), ((2, 5, 12), (2, 5, 3)),
                                    ((4, 8), (1, 2)), ((0, 8), (0, 2))])
def test_kernel_gives_the_bits_of_the_unfused_ops(dtype, shapes):
    gshape, cshape = shapes
    gates = (RNG.standard_normal(gshape) * 4).astype(dtype)
    gates.flat[:3] = [np.inf, -np.inf, np.nan][:gates.size]
    c = RNG.standard_normal(cshape).astype(dtype)
    before = gates.copy()
    with np.errstate(invalid="ignore"):
        got, want = lstm_gates(gates, c), _unfused(gates, c)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(gates, before)        # the gates are only read


class LM(paddle.nn.Layer):
    def __init__(self, cell: bool):
        super().__init__()
        self.cell = cell
        self.lstm = paddle.nn.LSTMCell(6, 5) if cell else paddle.nn.LSTM(6, 5, num_layers=2)

    def forward(self, x):
        if not self.cell:
            return self.lstm(x)[0]
        h = c = paddle.zeros([x.shape[0], 5])
        outs = []
        for t in range(x.shape[1]):
            _, (h, c) = self.lstm(x[:, t], (h, c))
            outs.append(h)
        return paddle.stack(outs, axis=1)


def _run(model, x, fused: bool, monkeypatch):
    """Output and gradients of a fresh to_static copy of model, compiled with or without fusion."""
    if not fused:
        monkeypatch.setattr(executor, "fuse_block_ops", lambda ops, vars, keep: ops)
    static = paddle.jit.to_static(model, full_graph=True)
    xt = paddle.to_tensor(x, stop_gradient=False)
    out = static(xt)
    (out * paddle.to_tensor(np.linspace(-1, 1, out.size).reshape(out.shape).astype("float32"))).sum().backward()
    grads = [p.grad.numpy().copy() for p in model.parameters()] + [xt.grad.numpy()]
    model.clear_gradients()
    with paddle.no_grad():
        inference = static(paddle.to_tensor(x)).numpy()
    source = static.forward._last.compiled.source
    monkeypatch.undo()
    return out.numpy(), grads, inference, source


def _fused_unfused_and_eager(make, monkeypatch):
    """One model run fused and unfused through to_static (training and inference) and eagerly:
    fused and unfused give the same bits, both eager's values and gradients; returns the
    fused and unfused inference sources."""
    paddle.seed(0)
    x = RNG.standard_normal((3, 7, 6)).astype("float32")
    out_f, grads_f, inf_f, src_f = _run(make(), x, True, monkeypatch)
    paddle.seed(0)
    out_u, grads_u, inf_u, src_u = _run(make(), x, False, monkeypatch)
    paddle.seed(0)
    eager = make()
    xt = paddle.to_tensor(x, stop_gradient=False)
    want = eager(xt)
    (want * paddle.to_tensor(np.linspace(-1, 1, want.size).reshape(want.shape).astype("float32"))).sum().backward()
    np.testing.assert_array_equal(inf_f, inf_u)
    np.testing.assert_allclose(inf_f, want.numpy(), rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(out_f, out_u)
    for gf, gu in zip(grads_f, grads_u):
        np.testing.assert_array_equal(gf, gu)
    eager_grads = [p.grad.numpy() for p in eager.parameters()] + [xt.grad.numpy()]
    for gf, ge in zip(grads_f, eager_grads):
        np.testing.assert_allclose(gf, ge, rtol=1e-5, atol=1e-6)
    return src_f, src_u


@pytest.mark.parametrize("cell", [False, True])
def test_to_static_lstm_fused_equals_unfused_and_eager(cell, monkeypatch):
    src_f, src_u = _fused_unfused_and_eager(lambda: LM(cell), monkeypatch)
    # the inference program fuses; with and without, the same bits
    assert "F" in src_f and src_f.count("lstm") == 0 and src_f != src_u


def test_inference_program_calls_the_fused_kernel_in_a_counted_loop():
    paddle.seed(0)
    model = paddle.jit.to_static(LM(False), full_graph=True)
    with paddle.no_grad():
        model(paddle.to_tensor(RNG.standard_normal((2, 5, 6)).astype("float32")))
    compiled = model.forward._last.compiled
    fused = [k for k, v in compiled._run.__globals__.items() if v is lstm_gates]
    assert fused and compiled.source.count(f"{fused[0]}(") == 2          # one per layer
    # the time loops count with Python ints (array_write takes the counter as an index)
    assert compiled.source.count(" = range(") == 2 and "K_less_than" not in compiled.source


def test_chain_with_an_intermediate_read_elsewhere_is_not_fused():
    F = paddle.nn.functional

    def step(gates, c):
        i, f, g, o = paddle.split(gates, 4, axis=-1)
        forget = F.sigmoid(f)
        c = forget * c + F.sigmoid(i) * paddle.tanh(g)
        return F.sigmoid(o) * paddle.tanh(c), c, forget      # the forget gate leaves

    gates = RNG.standard_normal((3, 8)).astype("float32")
    c = RNG.standard_normal((3, 2)).astype("float32")
    static = paddle.jit.to_static(step, full_graph=True)
    got = static(paddle.to_tensor(gates), paddle.to_tensor(c))
    assert LSTM_GATES not in str(static._last.compiled.program.global_block().ops)
    assert not any(v is lstm_gates for v in static._last.compiled._run.__globals__.values())
    want = step(paddle.to_tensor(gates), paddle.to_tensor(c))
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.numpy(), w.numpy())


def test_program_keeps_the_unfused_ops():
    def step(gates, c):
        i, f, g, o = paddle.split(gates, 4, axis=-1)
        c = paddle.nn.functional.sigmoid(f) * c + paddle.nn.functional.sigmoid(i) * paddle.tanh(g)
        return paddle.nn.functional.sigmoid(o) * paddle.tanh(c), c

    static = paddle.jit.to_static(step, full_graph=True)
    gates = RNG.standard_normal((3, 8)).astype("float32")
    c = RNG.standard_normal((3, 2)).astype("float32")
    h, c_new = static(paddle.to_tensor(gates), paddle.to_tensor(c))
    compiled = static._last.compiled
    assert any(v is lstm_gates for v in compiled._run.__globals__.values())
    # exports and other backends read the Program: it still holds the ops the user wrote
    types = [op.type for op in compiled.program.global_block().ops]
    assert LSTM_GATES not in types and types.count("sigmoid") == 3
    want_c, want_h = lstm_gates(gates, c)
    np.testing.assert_array_equal(h.numpy(), want_h)
    np.testing.assert_array_equal(c_new.numpy(), want_c)


# ----------------------------------------------------------------------------- GRU
def _gru_unfused(xg, hg, h):
    sig, tanh = OPS["sigmoid"].kernel, OPS["tanh"].kernel
    x_r, x_z, x_c = np.split(xg, 3, axis=-1)
    h_r, h_z, h_c = np.split(hg, 3, axis=-1)
    r, z = sig(np.add(x_r, h_r)), sig(np.add(x_z, h_z))
    c = tanh(np.add(x_c, np.multiply(r, h_c)))
    return np.add(np.multiply(np.subtract(h, c), z), c)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shapes", [((3, 6), (3, 6), (3, 2)), ((1, 3), (1, 3), (1, 1)),
                                    ((2, 5, 9), (2, 5, 9), (2, 5, 3)), ((0, 6), (0, 6), (0, 2)),
                                    ((4, 6), (1, 6), (4, 2)), ((4, 6), (4, 6), (1, 2))])
def test_gru_kernel_gives_the_bits_of_the_unfused_ops(dtype, shapes):
    xs, hs, ss = shapes                   # the last two: broadcasting, computed as unfused
    xg = (RNG.standard_normal(xs) * 4).astype(dtype)
    hg = (RNG.standard_normal(hs) * 4).astype(dtype)
    h = RNG.standard_normal(ss).astype(dtype)
    xg.flat[:3] = [np.inf, -np.inf, np.nan][:xg.size]
    before = (xg.copy(), hg.copy(), h.copy())
    with np.errstate(invalid="ignore"):
        got, want = gru_gates(xg, hg, h), _gru_unfused(xg, hg, h)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    for a, b in zip((xg, hg, h), before):
        np.testing.assert_array_equal(a, b)             # the inputs are only read


class GRULM(paddle.nn.Layer):
    def __init__(self, cell: bool):
        super().__init__()
        self.cell = cell
        self.gru = paddle.nn.GRUCell(6, 5) if cell else paddle.nn.GRU(6, 5, num_layers=2)

    def forward(self, x):
        if not self.cell:
            return self.gru(x)[0]
        h = paddle.zeros([x.shape[0], 5])
        outs = []
        for t in range(x.shape[1]):
            _, h = self.gru(x[:, t], h)
            outs.append(h)
        return paddle.stack(outs, axis=1)


@pytest.mark.parametrize("cell", [False, True])
def test_to_static_gru_fused_equals_unfused_and_eager(cell, monkeypatch):
    src_f, src_u = _fused_unfused_and_eager(lambda: GRULM(cell), monkeypatch)
    assert src_f != src_u and "K_sigmoid" not in src_f and "K_sigmoid" in src_u


def test_gru_inference_program_calls_the_fused_kernel_once_per_layer():
    paddle.seed(0)
    model = paddle.jit.to_static(GRULM(False), full_graph=True)
    with paddle.no_grad():
        model(paddle.to_tensor(RNG.standard_normal((2, 5, 6)).astype("float32")))
    compiled = model.forward._last.compiled
    fused = [k for k, v in compiled._run.__globals__.items() if v is gru_gates]
    assert fused and compiled.source.count(f"{fused[0]}(") == 2
    assert GRU_GATES not in [op.type for b in compiled.program.blocks for op in b.ops]


def test_gru_chain_with_an_intermediate_read_elsewhere_is_not_fused():
    F = paddle.nn.functional

    def step(xg, hg, h, leave):
        x_r, x_z, x_c = paddle.split(xg, 3, axis=-1)
        h_r, h_z, h_c = paddle.split(hg, 3, axis=-1)
        r, z = F.sigmoid(x_r + h_r), F.sigmoid(x_z + h_z)
        c = paddle.tanh(x_c + r * h_c)
        out = (h - c) * z + c
        return (out, r) if leave else out                 # the reset gate leaves

    xg, hg = (RNG.standard_normal((3, 6)).astype("float32") for _ in range(2))
    h = RNG.standard_normal((3, 2)).astype("float32")
    args = [paddle.to_tensor(a) for a in (xg, hg, h)]
    for leave in (True, False):
        static = paddle.jit.to_static(lambda a, b, c: step(a, b, c, leave), full_graph=True)
        got = static(*args)
        fused = any(v is gru_gates for v in static._last.compiled._run.__globals__.values())
        assert fused is not leave
        want = step(*args, leave)
        for g, w in zip(got if leave else [got], want if leave else [want]):
            np.testing.assert_array_equal(g.numpy(), w.numpy())
