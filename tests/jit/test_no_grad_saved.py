"""A model saved with jit.save and fine-tuned after jit.load stops gradients where the user's
forward did (`with no_grad():`, `set_grad_enabled(False)`, `@no_grad()` helpers, `.detach()`,
`.detach_()`, `t.stop_gradient = True`, also on one path of a tensor `if`): outputs, their
`stop_gradient`, parameter gradients and an SGD step agree with eager and to_static."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec
from tests.support import onnx_outputs

SPEC = [InputSpec([None, 3], "float32")]


@paddle.no_grad()
def _frozen_tanh(fc, x):
    return paddle.tanh(fc(x))


class _Net(paddle.nn.Layer):
    """Part of the second output is computed without gradients, by the spelling `kind`."""

    def __init__(self, kind):
        super().__init__()
        self.a = paddle.nn.Linear(3, 3)
        self.b = paddle.nn.Linear(3, 2)
        self.kind = kind

    def forward(self, x):
        h = self.a(x)
        kind = self.kind
        if kind == "plain":             # no stop (the ONNX test's reference)
            g = self.b(h) * 2.0
        elif kind == "with":
            with paddle.no_grad():
                g = self.b(h) * 2.0
        elif kind == "set_grad_enabled":
            with paddle.set_grad_enabled(False):
                g = self.b(h) * 2.0
        elif kind == "decorated":
            g = _frozen_tanh(self.b, h)
        elif kind == "detach":
            g = self.b(h).detach() * 2.0
        elif kind == "detach_":
            g = self.b(h)
            g.detach_()
        elif kind == "stop_gradient":
            g = self.b(h) * 2.0
            g.stop_gradient = True
        elif kind == "one_path":
            if x.sum() > 0:             # a tensor `if`: no gradient on the true path only
                with paddle.no_grad():
                    g = self.b(h) * 2.0
            else:
                g = self.b(h) * 3.0
        else:                           # "passed_through": one path hands `k` on unchanged
            k = self.b(h)
            with paddle.no_grad():
                if x.sum() > 0:
                    g = k * 2.0
                else:
                    g = k
        return g + self.b(h), g


KINDS = ["with", "set_grad_enabled", "decorated", "detach", "detach_", "stop_gradient",
         "one_path", "passed_through"]
INPUTS = {"positive": [[0.5, 1.0, 1.5], [0.2, 0.3, 0.1]],
          "negative": [[-0.5, -1.0, -1.5], [0.2, -0.3, 0.1]]}


def _model(kind, mode, tmp_path):
    paddle.seed(1)
    model = _Net(kind)
    if mode == "load":
        paddle.jit.save(model, str(tmp_path / "m"), input_spec=SPEC)
        model = paddle.jit.load(str(tmp_path / "m"))
        model.train()
    elif mode != "eager":
        model = paddle.jit.to_static(model, full_graph=mode == "full_graph")
    return model


def _step(model, x):
    """Outputs, their stop_gradient flags, the parameter gradients and the parameters after
    one SGD step of a loss over both outputs."""
    opt = paddle.optimizer.SGD(0.1, parameters=model.parameters())
    out, g = model(paddle.to_tensor(np.array(x, "float32")))
    (out.sum() + (g * g).sum()).backward()
    grads = [None if p.grad is None else p.grad.numpy().copy() for p in model.parameters()]
    opt.step()
    return (out.numpy(), g.numpy()), (out.stop_gradient, g.stop_gradient), grads, \
        [p.numpy() for p in model.parameters()]


def _assert_same(got, want):
    for a, b in zip(got[0], want[0]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert got[1] == want[1]
    assert [g is None for g in got[2]] == [g is None for g in want[2]]
    for a, b in zip(got[2] + got[3], want[2] + want[3]):
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("mode", ["load", "full_graph", "graph_breaks"])
@pytest.mark.parametrize("inputs", list(INPUTS))
@pytest.mark.parametrize("kind", KINDS)
def test_gradients_stop_where_the_forward_stopped_them(kind, inputs, mode, tmp_path):
    x = INPUTS[inputs]
    want = _step(_model(kind, "eager", tmp_path), x)
    _assert_same(_step(_model(kind, mode, tmp_path), x), want)


@pytest.mark.parametrize("kind", ["with", "stop_gradient", "one_path"])
def test_the_saved_program_holds_the_stop(kind, tmp_path):
    """The stop is an op of the file (the loader needs nothing else), and a model saved and
    loaded again from a fine-tuned TranslatedLayer keeps it."""
    loaded = _model(kind, "load", tmp_path)
    ops = [op.type for b in loaded.concrete_program.program.blocks for op in b.ops]
    assert "detach" in ops
    paddle.jit.save(loaded, str(tmp_path / "again"))
    for x in INPUTS.values():
        again = paddle.jit.load(str(tmp_path / "again"))
        again.train()
        _assert_same(_step(again, x), _step(_model(kind, "eager", tmp_path), x))


def test_saving_under_the_callers_no_grad_keeps_the_users_stops(tmp_path):
    """Paddle scripts often save inside `with paddle.no_grad():`; the file is the same."""
    paddle.seed(1)
    model = _Net("with")
    with paddle.no_grad():
        paddle.jit.save(model, str(tmp_path / "m"), input_spec=SPEC)
    loaded = paddle.jit.load(str(tmp_path / "m"))
    loaded.train()
    x = INPUTS["positive"]
    _assert_same(_step(loaded, x), _step(_model("with", "eager", tmp_path), x))


def _scaled_by_a_constant(x):
    with paddle.no_grad():
        g = x * 3.0
    return x * g


def test_a_program_traced_under_no_grad_before_is_not_the_one_saved(tmp_path):
    """get_concrete_program under no_grad traces without the stops; the save traces again."""
    sf = paddle.jit.to_static(_scaled_by_a_constant, input_spec=SPEC, full_graph=True)
    with paddle.no_grad():
        sf.get_concrete_program(*SPEC)
    paddle.jit.save(sf, str(tmp_path / "m"))
    loaded = paddle.jit.load(str(tmp_path / "m"))
    t = paddle.to_tensor(np.ones([2, 3], "float32"), stop_gradient=False)
    loaded(t).sum().backward()
    np.testing.assert_allclose(t.grad.numpy(), np.full([2, 3], 3.0))    # eager's: g is held


class _ModeReader(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 2)

    def forward(self, x):
        if paddle.is_grad_enabled():
            return self.fc(x) * 2.0
        return self.fc(x) * 3.0


@pytest.mark.parametrize("callers_mode", ["grad", "no_grad"])
def test_the_export_traces_with_gradients_on(callers_mode, tmp_path):
    """A forward reading is_grad_enabled() is saved on its gradient path, as Paddle 3.3.1's
    jit.save outside no_grad traces it (Paddle's, inside no_grad, saves the other path and a
    model that never gets gradients; here the caller's mode does not matter)."""
    paddle.seed(3)
    model = _ModeReader()
    x = paddle.to_tensor(np.array(INPUTS["positive"], "float32"))
    if callers_mode == "no_grad":
        with paddle.no_grad():
            paddle.jit.save(model, str(tmp_path / "m"), input_spec=SPEC)
    else:
        paddle.jit.save(model, str(tmp_path / "m"), input_spec=SPEC)
    loaded = paddle.jit.load(str(tmp_path / "m"))
    np.testing.assert_allclose(loaded(x).numpy(), model(x).numpy(), rtol=1e-6)
    assert paddle.is_grad_enabled()


class _Scaled(paddle.nn.Layer):
    """out = h * s with s = sum(tanh(h)) computed under no_grad: a constant for the gradient."""

    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 2)

    def forward(self, x):
        h = self.fc(x)
        with paddle.no_grad():
            s = paddle.tanh(h).sum()
        return h * s


def test_loaded_gradient_matches_finite_differences_with_the_stopped_value_held(tmp_path):
    paddle.seed(2)
    model = _Scaled()
    paddle.jit.save(model, str(tmp_path / "m"), input_spec=SPEC)
    loaded = paddle.jit.load(str(tmp_path / "m"))
    loaded.train()
    x = np.array(INPUTS["negative"], "float64")
    loaded(paddle.to_tensor(x.astype("float32"))).sum().backward()
    w = model.fc.weight.numpy().astype("float64")
    b = model.fc.bias.numpy().astype("float64")
    s = np.tanh(x @ w + b).sum()        # held at its value: no_grad made it a constant

    def loss(w_):
        return ((x @ w_ + b) * s).sum()
    fd = np.zeros_like(w)
    eps = 1e-6
    for idx in np.ndindex(*w.shape):
        d = np.zeros_like(w)
        d[idx] = eps
        fd[idx] = (loss(w + d) - loss(w - d)) / (2 * eps)
    grads = {tuple(p.shape): p.grad.numpy() for p in loaded.parameters()}
    np.testing.assert_allclose(grads[tuple(w.shape)], fd, rtol=1e-4, atol=1e-5)


def test_onnx_export_is_unchanged_by_the_stops(tmp_path):
    """Stops are identities in ONNX: the graph of a model without them, eager's values."""
    pytest.importorskip("onnxruntime")
    import onnx
    x = np.array(INPUTS["positive"], "float32")
    nodes = {}
    for kind in ("plain", "with", "stop_gradient", "detach"):
        paddle.seed(1)
        model = _Net(kind)
        path = str(tmp_path / kind)
        paddle.onnx.export(model, path, input_spec=SPEC)
        nodes[kind] = [n.op_type for n in onnx.load(path + ".onnx").graph.node]
        got = onnx_outputs(path + ".onnx", x)
        want = [t.numpy() for t in model(paddle.to_tensor(x))]
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert nodes["with"] == nodes["stop_gradient"] == nodes["detach"] == nodes["plain"]
