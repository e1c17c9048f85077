"""Recurrent layers against numpy written by hand (cells, masking, directions, layers, initial
states), an unknown sequence length as ONE while op, gradients against finite differences and
through to_static, save/load round trips, and a small LSTM language model trained eagerly and
under to_static to the same parameters."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec
from tests.roundtrip import RT, roundtrip_all
from tests.support import randn as r, seeded

nn = paddle.nn


# ------------------------------------------------------------------ numpy references
def sig(v):
    return 1.0 / (1.0 + np.exp(-v))


def np_cell(kind, p, x, state):
    """One step of a cell with parameters p (numpy arrays by Paddle's names)."""
    def gates(h):
        xg = x @ p["weight_ih"].T + p["bias_ih"]
        hg = h @ p["weight_hh"].T + p["bias_hh"]
        return xg, hg
    if kind == "SimpleRNN":
        xg, hg = gates(state)
        h = np.tanh(xg + hg)
        return h, h
    if kind == "LSTM":
        h, c = state
        xg, hg = gates(h)
        i, f, g, o = np.split(xg + hg, 4, axis=-1)
        c = sig(f) * c + sig(i) * np.tanh(g)
        h = sig(o) * np.tanh(c)
        return h, (h, c)
    h = state
    xg, hg = gates(h)
    xr, xz, xc = np.split(xg, 3, axis=-1)
    hr, hz, hc = np.split(hg, 3, axis=-1)
    rr, z = sig(xr + hr), sig(xz + hz)
    c = np.tanh(xc + rr * hc)
    h = (h - c) * z + c
    return h, h


def np_run(kind, p, x, state, lengths=None, reverse=False):
    """x [batch, time, in]; steps past a sequence's length keep the state and output zeros."""
    batch, steps = x.shape[:2]
    order = range(steps - 1, -1, -1) if reverse else range(steps)
    outs = [None] * steps
    for t in order:
        y, new = np_cell(kind, p, x[:, t], state)
        if lengths is not None:
            m = (t < lengths).astype(x.dtype)[:, None]
            y = y * m
            if kind == "LSTM":
                new = tuple(n * m + s * (1 - m) for n, s in zip(new, state))
            else:
                new = new * m + state * (1 - m)
        outs[t] = y
        state = new
    return np.stack(outs, 1), state


def cell_params(cell):
    return {k: getattr(cell, k).numpy().astype(np.float64) for k in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")}


def np_network(kind, net, x, lengths=None, init=None):
    """A multi-layer (bi)directional network with zero or given initial states."""
    layers = list(net)
    finals = []
    batch = x.shape[0]
    k = 0
    for layer in layers:
        cells = [layer.cell] if net.num_directions == 1 else [layer.cell_fw, layer.cell_bw]
        outs = []
        for d, cell in enumerate(cells):
            h = cell.hidden_size
            if init is None:
                state = (np.zeros((batch, h)), np.zeros((batch, h))) if kind == "LSTM" else np.zeros((batch, h))
            else:
                state = (init[0][k], init[1][k]) if kind == "LSTM" else init[k]
            y, fin = np_run(kind, cell_params(cell), x, state, lengths, reverse=d == 1)
            outs.append(y)
            finals.append(fin)
            k += 1
        x = np.concatenate(outs, -1)
    if kind == "LSTM":
        return x, (np.stack([f[0] for f in finals]), np.stack([f[1] for f in finals]))
    return x, np.stack(finals)


def close(a, b, tol=1e-5):
    np.testing.assert_allclose(np.asarray(a, np.float64), np.asarray(b, np.float64), rtol=tol, atol=tol)


def close_tree(got, want):
    if isinstance(want, tuple):
        assert isinstance(got, (tuple, list)) and len(got) == len(want)
        for g, w in zip(got, want):
            close_tree(g, w)
    else:
        close(got.numpy(), want)


LAYERS = {"SimpleRNN": nn.SimpleRNN, "LSTM": nn.LSTM, "GRU": nn.GRU}


# ------------------------------------------------------------------ forward values
@pytest.mark.parametrize("kind", ["SimpleRNN", "LSTM", "GRU"])
@pytest.mark.parametrize("direction,layers", [("forward", 1), ("bidirect", 2), ("bidirectional", 1)])
def test_network_matches_numpy(kind, direction, layers):
    paddle.seed(1)
    net = LAYERS[kind](3, 4, num_layers=layers, direction=direction)
    x = np.random.default_rng(0).standard_normal((2, 5, 3)).astype(np.float32)
    y, fin = net(paddle.to_tensor(x))
    dirs = 2 if direction != "forward" else 1
    assert y.shape == [2, 5, 4 * dirs]
    want_y, want_fin = np_network(kind, net, x.astype(np.float64))
    close(y.numpy(), want_y)
    close_tree(fin, want_fin)


@pytest.mark.parametrize("kind", ["SimpleRNN", "LSTM", "GRU"])
def test_sequence_length_masks_states_and_outputs(kind):
    paddle.seed(2)
    net = LAYERS[kind](3, 4, direction="bidirect")
    x = np.random.default_rng(1).standard_normal((3, 6, 3)).astype(np.float32)
    lengths = np.array([6, 2, 4])
    y, fin = net(paddle.to_tensor(x), sequence_length=paddle.to_tensor(lengths))
    want_y, want_fin = np_network(kind, net, x.astype(np.float64), lengths)
    close(y.numpy(), want_y)
    close_tree(fin, want_fin)
    assert np.all(y.numpy()[1, 2:] == 0)


@pytest.mark.parametrize("kind", ["SimpleRNN", "LSTM", "GRU"])
def test_time_major_and_initial_states(kind):
    paddle.seed(3)
    net = LAYERS[kind](3, 5, num_layers=2, time_major=True)
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 2, 3)).astype(np.float32)          # [time, batch, in]
    init = rng.standard_normal((2, 2, 5)).astype(np.float32)
    init_c = rng.standard_normal((2, 2, 5)).astype(np.float32)
    given = (paddle.to_tensor(init), paddle.to_tensor(init_c)) if kind == "LSTM" else paddle.to_tensor(init)
    y, fin = net(paddle.to_tensor(x), given)
    assert y.shape == [4, 2, 5]
    want_init = (init.astype(np.float64), init_c.astype(np.float64)) if kind == "LSTM" else init.astype(np.float64)
    want_y, want_fin = np_network(kind, net, x.transpose(1, 0, 2).astype(np.float64), init=want_init)
    close(y.numpy(), want_y.transpose(1, 0, 2))
    close_tree(fin, want_fin)


def test_paddle_parameter_names():
    net = nn.LSTM(3, 4, num_layers=2, direction="bidirect")
    keys = list(net.state_dict())
    for name in ("weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0", "weight_ih_l1_reverse",
                 "bias_hh_l1_reverse", "0.cell_fw.weight_ih", "1.cell_bw.bias_hh"):
        assert name in keys
    assert net.weight_ih_l1.shape == [16, 8]          # layer 1 reads both directions
    assert net.weight_hh_l0.shape == [16, 4]
    assert len(net.parameters()) == 16                # the Paddle names alias the cells' parameters
    assert nn.GRU(3, 4).weight_ih_l0.shape == [12, 3]
    no_bias = nn.SimpleRNN(3, 4, bias_ih_attr=False)
    assert not hasattr(no_bias, "bias_ih_l0") and len(no_bias.parameters()) == 3


def test_cells_and_rnn_wrappers():
    paddle.seed(4)
    x = np.random.default_rng(3).standard_normal((2, 5, 3)).astype(np.float32)
    for cell, kind in ((nn.SimpleRNNCell(3, 4), "SimpleRNN"), (nn.LSTMCell(3, 4), "LSTM"), (nn.GRUCell(3, 4), "GRU")):
        p = cell_params(cell)
        zero = (np.zeros((2, 4)),) * 2 if kind == "LSTM" else np.zeros((2, 4))
        y, s = cell(paddle.to_tensor(x[:, 0]))
        want_y, want_s = np_cell(kind, p, x[:, 0].astype(np.float64), zero)
        close(y.numpy(), want_y)
        close_tree(s, want_s)
        for reverse in (False, True):
            out, fin = nn.RNN(cell, is_reverse=reverse)(paddle.to_tensor(x))
            want_out, want_fin = np_run(kind, p, x.astype(np.float64), zero, reverse=reverse)
            close(out.numpy(), want_out)
            close_tree(fin, want_fin)
    fw, bw = nn.GRUCell(3, 4), nn.GRUCell(3, 4)
    out, (f1, f2) = nn.BiRNN(fw, bw)(paddle.to_tensor(x))
    y1, s1 = np_run("GRU", cell_params(fw), x.astype(np.float64), np.zeros((2, 4)))
    y2, s2 = np_run("GRU", cell_params(bw), x.astype(np.float64), np.zeros((2, 4)), reverse=True)
    close(out.numpy(), np.concatenate([y1, y2], -1))
    close(f1.numpy(), s1)
    close(f2.numpy(), s2)


def test_lstm_projection():
    paddle.seed(5)
    net = nn.LSTM(3, 6, proj_size=2)
    x = np.random.default_rng(4).standard_normal((2, 3, 3)).astype(np.float32)
    y, (h, c) = net(paddle.to_tensor(x))
    assert y.shape == [2, 3, 2] and h.shape == [1, 2, 2] and c.shape == [1, 2, 6]
    cell = net[0].cell
    p = cell_params(cell)
    who = cell.weight_ho.numpy().astype(np.float64)
    hh, cc = np.zeros((2, 2)), np.zeros((2, 6))
    for t in range(3):
        g = x[:, t] @ p["weight_ih"].T + p["bias_ih"] + hh @ p["weight_hh"].T + p["bias_hh"]
        i, f, gg, o = np.split(g, 4, -1)
        cc = sig(f) * cc + sig(i) * np.tanh(gg)
        hh = (sig(o) * np.tanh(cc)) @ who
    close(y.numpy()[:, -1], hh)
    close(c.numpy()[0], cc)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="direction"):
        nn.LSTM(3, 4, direction="backward")
    with pytest.raises(ValueError, match="num_layers"):
        nn.GRU(3, 4, num_layers=0)
    with pytest.raises(ValueError, match="num_layers \\* num_directions"):
        nn.GRU(3, 4)(paddle.randn([2, 3, 3]), paddle.zeros([2, 2, 4]))
    with pytest.raises(ValueError, match="activation"):
        nn.SimpleRNNCell(3, 4, activation="sigmoid")
    with pytest.raises(ValueError, match=r"LSTMCell: inputs must be \[batch, time, 3\].*\[2, 4, 5\]"):
        nn.LSTM(3, 4)(paddle.randn([2, 4, 5]))
    with pytest.raises(ValueError, match="got shape \\[2, 3\\]"):
        nn.GRU(3, 4)(paddle.randn([2, 3]))


def test_dropout_between_layers_only_in_training():
    paddle.seed(6)
    net = nn.LSTM(3, 4, num_layers=2, dropout=0.5)
    x = paddle.randn([2, 4, 3])
    net.eval()
    a, _ = net(x)
    b, _ = net(x)
    close(a.numpy(), b.numpy())
    net.train()
    paddle.seed(7)
    c, _ = net(x)
    assert not np.allclose(c.numpy(), a.numpy())


# ------------------------------------------------------------------ static: one while op
def count_ops(program, kind):
    return sum(op.type == kind for block in program.blocks for op in block.ops)


class Tagger(nn.Layer):
    def __init__(self, kind, **kw):
        super().__init__()
        self.rnn = LAYERS[kind](3, 4, **kw)
        self.fc = nn.Linear(4 * self.rnn.num_directions, 2)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.fc(y)


@pytest.mark.parametrize("kind", ["SimpleRNN", "LSTM", "GRU"])
def test_unknown_length_is_one_while_op(kind):
    paddle.seed(8)
    model = Tagger(kind)
    static = paddle.jit.to_static(model, input_spec=[InputSpec([None, None, 3], "float32")], full_graph=True)
    for steps in (1, 4, 7):
        x = paddle.randn([2, steps, 3])
        close(static(x).numpy(), model(x).numpy())
    assert count_ops(static.forward.program, "while") == 1


def test_known_length_is_one_while_op_too():
    paddle.seed(8)
    model = Tagger("LSTM")
    static = paddle.jit.to_static(model, input_spec=[InputSpec([2, 30, 3], "float32")], full_graph=True)
    x = paddle.randn([2, 30, 3])
    close(static(x).numpy(), model(x).numpy())
    assert count_ops(static.forward.program, "while") == 1
    assert sum(len(b.ops) for b in static.forward.program.blocks) < 60      # not one cell per step


def test_bidirectional_masked_static_matches_eager():
    paddle.seed(9)

    class Masked(nn.Layer):
        def __init__(self):
            super().__init__()
            self.rnn = nn.GRU(3, 4, num_layers=2, direction="bidirect")

        def forward(self, x, lengths):
            y, h = self.rnn(x, sequence_length=lengths)
            return y, h

    model = Masked()
    static = paddle.jit.to_static(model, input_spec=[InputSpec([None, None, 3], "float32"),
                                                     InputSpec([None], "int64")], full_graph=True)
    x = paddle.randn([3, 5, 3])
    lengths = paddle.to_tensor(np.array([5, 1, 3]))
    for got, want in zip(static(x, lengths), model(x, lengths)):
        close(got.numpy(), want.numpy())
    assert count_ops(static.forward.program, "while") == 4           # one per layer and direction


# ------------------------------------------------------------------ gradients
@pytest.mark.parametrize("kind", ["SimpleRNN", "LSTM", "GRU"])
def test_gradients_match_finite_differences_and_static(kind):
    from tests.autograd.gradcheck import autograd, finite_differences
    paddle.set_default_dtype("float64")
    try:
        paddle.seed(10)
        net = LAYERS[kind](2, 3, direction="bidirect")
        w = net.weight_hh_l0
        rng = np.random.default_rng(5)
        x = rng.standard_normal((2, 3, 2))
        lengths = paddle.to_tensor(np.array([3, 2]))
        cot = paddle.to_tensor(rng.standard_normal((2, 3, 6)))

        def fn(xt):
            y, _ = net(xt, sequence_length=lengths)
            return (y * cot).sum()

        value, (gx,) = autograd(fn, [x])
        (fd,) = finite_differences(fn, [x])
        close(gx, fd, 1e-6)
        static = paddle.jit.to_static(fn, input_spec=[InputSpec([None, None, 2], "float64")], full_graph=True)
        value_s, (gx_s,) = autograd(static, [x])
        close(value_s, value, 1e-9)
        close(gx_s, gx, 1e-9)
        # parameter gradients: eager vs finite differences on one weight
        xt = paddle.to_tensor(x)
        (g_w,) = paddle.grad(fn(xt), [w])
        g_w = g_w.numpy()
        base = w.numpy().copy()
        fd_w = np.zeros_like(base)
        for idx in np.ndindex(base.shape):
            for sign in (1, -1):
                v = base.copy()
                v[idx] += sign * 1e-6
                w.set_value(v)
                fd_w[idx] += sign * float(fn(xt).numpy()) / 2e-6
        w.set_value(base)
        close(g_w, fd_w, 1e-6)
    finally:
        paddle.set_default_dtype("float32")


# ------------------------------------------------------------------ a language model
class LanguageModel(nn.Layer):
    def __init__(self, vocab=20, hidden=8, layers=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.lstm = nn.LSTM(hidden, hidden, num_layers=layers)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, ids, labels):
        y, _ = self.lstm(self.embed(ids))
        logits = self.out(y)
        return nn.functional.cross_entropy(logits, labels.unsqueeze(-1))


def _train(static):
    paddle.seed(11)
    model = LanguageModel()
    opt = paddle.optimizer.SGD(learning_rate=0.5, parameters=model.parameters())

    def step(ids, labels):
        loss = model(ids, labels)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss

    if static:
        step = paddle.jit.to_static(step, full_graph=True)
    rng = np.random.default_rng(12)
    losses = []
    for _ in range(3):
        ids = rng.integers(0, 20, (4, 35))
        labels = np.roll(ids, -1, axis=1)
        losses.append(float(step(paddle.to_tensor(ids), paddle.to_tensor(labels)).numpy()))
    return {k: v.numpy() for k, v in model.state_dict().items()}, losses


def test_lstm_language_model_trains_the_same_eagerly_and_static():
    eager, eager_losses = _train(False)
    static, static_losses = _train(True)
    close(static_losses, eager_losses, 1e-5)
    assert eager_losses[0] != eager_losses[1]
    for k in eager:
        close(static[k], eager[k], 1e-5)


# ------------------------------------------------------------------ save / load
class CellNet(nn.Layer):
    """nn.RNN and nn.BiRNN over the three cell kinds, with sequence lengths."""

    def __init__(self):
        super().__init__()
        self.simple = nn.RNN(nn.SimpleRNNCell(3, 4, activation="relu"), is_reverse=True)
        self.bi = nn.BiRNN(nn.LSTMCell(4, 3), nn.GRUCell(4, 3))

    def forward(self, x, lengths):
        y, _ = self.simple(x, sequence_length=lengths)
        z, (a, b) = self.bi(y)
        return z, a[1], b


class Stacked(nn.Layer):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(3, 4, num_layers=2, direction="bidirect")
        self.gru = nn.GRU(8, 4, time_major=True)
        self.rnn = nn.SimpleRNN(4, 2)

    def forward(self, x):
        y, (h, c) = self.lstm(x)
        z, _ = self.gru(y.transpose([1, 0, 2]))
        w, last = self.rnn(z.transpose([1, 0, 2]))
        return w, h + c, last


MODELS = [
    RT("rnn_cells", seeded(CellNet), [([None, None, 3], "float32"), ([None], "int64")],
       [(r(1, 2, 5, 3), np.array([5, 2])), (r(2, 3, 2, 3), np.array([1, 2, 2]))]),
    RT("rnn_stacked", seeded(Stacked), [([None, None, 3], "float32")], [(r(3, 2, 4, 3),), (r(4, 1, 6, 3),)]),
    RT("rnn_lm", seeded(LanguageModel), [([None, None], "int64"), ([None, None], "int64")],
       [(np.arange(12).reshape(2, 6) % 20, np.arange(12).reshape(2, 6) % 7),
        (np.arange(35).reshape(1, 35) % 20, np.arange(35).reshape(1, 35) % 5)]),
]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    return roundtrip_all(MODELS, tmp_path_factory.mktemp("rt_rnn"))


@pytest.mark.parametrize("name", [m.name for m in MODELS])
def test_roundtrip(results, name):
    assert results[name] is None, results[name]


class CountingCell(nn.RNNCellBase):
    """A user cell with a (sum, count) state and a pair of outputs."""

    def __init__(self):
        super().__init__()
        self.scale = self.create_parameter([3])

    def forward(self, x, states):
        total, count = states
        total = total + x * self.scale
        count = count + 1.0
        return (total, total / count), (total, count)

    @property
    def state_shape(self):
        return ((3,), (1,))


def test_user_cell_with_structured_outputs_and_states():
    paddle.seed(12)
    cell = CountingCell()
    layer = nn.RNN(cell)
    x = np.random.default_rng(13).standard_normal((2, 4, 3)).astype(np.float32)
    (cum, avg), (total, count) = layer(paddle.to_tensor(x))
    want = np.cumsum(x * cell.scale.numpy(), axis=1)
    close(cum.numpy(), want)
    close(avg.numpy(), want / np.arange(1, 5)[None, :, None])
    close(total.numpy(), want[:, -1])
    close(count.numpy(), np.full((2, 1), 4.0))
    def average(v):
        return layer(v)[0][1]

    static = paddle.jit.to_static(average, input_spec=[InputSpec([None, None, 3], "float32")], full_graph=True)
    close(static(paddle.to_tensor(x)).numpy(), avg.numpy())
    assert count_ops(static.program, "while") == 1


def test_onnx_export_of_recurrent_and_attention_layers(tmp_path):
    from tests.support import onnx_outputs

    class Mixed(nn.Layer):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(3, 4, direction="bidirect")
            self.gru = nn.GRU(8, 8)
            self.enc = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)

        def forward(self, x):
            y, (h, c) = self.lstm(x)
            z, _ = self.gru(y)
            return self.enc(z), h + c

    paddle.seed(14)
    model = Mixed()
    model.eval()
    path = str(tmp_path / "mixed")
    paddle.onnx.export(model, path, input_spec=[InputSpec([None, None, 3], "float32")])
    for shape in ((2, 5, 3), (1, 2, 3)):
        x = np.random.default_rng(15).standard_normal(shape).astype(np.float32)
        for got, want in zip(onnx_outputs(path + ".onnx", x), model(paddle.to_tensor(x))):
            close(got, want.numpy())


def _leaves(tree):
    return [t for item in tree for t in _leaves(item)] if isinstance(tree, (list, tuple)) else [tree]


# run_cell computes the input gates of all steps in one product before the loop for the
# built-in cells; a subclass that replaces forward is stepped through its own forward.
@pytest.mark.parametrize("cell_type", ["SimpleRNNCell", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("is_reverse", [False, True])
def test_projected_input_gates_match_stepping_the_cell(cell_type, is_reverse):
    from dy2st.nn.layers.rnn import projects_ahead
    paddle.seed(3)
    cell = getattr(paddle.nn, cell_type)(5, 4)

    class Stepped(type(cell)):
        def forward(self, inputs, states=None):
            return super().forward(inputs, states)
    twin = Stepped(5, 4)
    twin.set_state_dict(cell.state_dict())
    assert projects_ahead(cell, [None], {}) and not projects_ahead(twin, [None], {})
    x = paddle.to_tensor(np.random.default_rng(4).standard_normal((3, 6, 5)).astype("float32"))
    lengths = paddle.to_tensor(np.array([6, 2, 4], "int64"))
    outs = []
    for c in (cell, twin):
        rnn = paddle.nn.RNN(c, is_reverse=is_reverse)
        eager = rnn(x, sequence_length=lengths)
        static = paddle.jit.to_static(lambda v, n, r=rnn: r(v, sequence_length=n))(x, lengths)
        for a, b in zip(_leaves(eager), _leaves(static)):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)
        outs.append(eager[0].numpy())
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-5, atol=1e-6)
