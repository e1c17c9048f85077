"""A Layer's dict attribute written in both branches of a tensor `if` (issue 24, item 7): read
after the `if`, after a graph break, and on later calls (the previous call's entry read before
the `if`), over five calls whose inputs take both branches; values and input gradients equal
eager's in one graph, the default mode and across a break, and a saved Layer keeps them."""
import numpy as np
import pytest

import dy2st as paddle
from tests.support import BREAK_MODES, graph_break, numeric_gradient

SIGNS = [10.0, -30.0, 5.0, -40.0, -20.0]


class Written(paddle.nn.Layer):
    """Writes state["v"] in both branches, reads it after the `if`."""

    def __init__(self, with_break=False):
        super().__init__()
        self.lin = paddle.nn.Linear(3, 3)
        self.state = {}
        self.with_break = with_break

    def forward(self, x):
        h = self.lin(x)
        if h.sum() > 0:
            self.state["v"] = h * 2.0
        else:
            self.state["v"] = h - 1.0
        if self.with_break:
            graph_break(x)
        return self.state["v"] * self.state["v"]


class Carried(Written):
    """Also reads the entry the previous call left, before the `if` writes it again."""

    def forward(self, x):
        h = self.lin(x)
        if "v" in self.state:
            h = h + self.state["v"].detach() * 0.5
        if h.sum() > 0:
            self.state["v"] = h * 2.0
        else:
            self.state["v"] = h - 1.0
        if self.with_break:
            graph_break(x)
        return self.state["v"] + 1.0


def _inputs():
    base = np.arange(3, dtype="float32")
    return [np.tile(base + s, (2, 1)) * 0.1 for s in SIGNS]


def _run(make, convert):
    paddle.seed(0)
    net = make()
    run = convert(net) if convert else net
    out = []
    for a in _inputs():
        x = paddle.to_tensor(a, stop_gradient=False)
        y = run(x)
        y.sum().backward()
        out.append((y.numpy(), x.grad.numpy(), net.state["v"].numpy()))
    return out


def _branches_taken(make):
    paddle.seed(0)
    net = make()
    return {bool(net.lin(paddle.to_tensor(a)).sum() > 0) for a in _inputs()}


@pytest.mark.parametrize("layer", [Written, Carried])
@pytest.mark.parametrize("full_graph, with_break", BREAK_MODES)
def test_five_calls_agree_with_eager(layer, full_graph, with_break):
    def make():
        return layer(with_break)
    assert _branches_taken(make) == {True, False}
    want = _run(make, None)
    got = _run(make, lambda net: paddle.jit.to_static(net, full_graph=full_graph))
    for w, g in zip(want, got):
        for a, b in zip(w, g):
            np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


def test_gradient_against_finite_differences():
    paddle.seed(0)
    net = paddle.jit.to_static(Written(), full_graph=True)
    w = net.lin.weight.numpy().astype(np.float64)
    b = net.lin.bias.numpy().astype(np.float64)

    def loss(a):
        h = a @ w + b
        v = h * 2.0 if h.sum() > 0 else h - 1.0
        return float((v * v).sum())
    for a in _inputs()[:2]:
        x = paddle.to_tensor(a, stop_gradient=False)
        net(x).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), numeric_gradient(loss, a.astype(np.float64)),
                                   rtol=1e-4, atol=1e-4)


def test_saved_layer_takes_both_branches(tmp_path):
    paddle.seed(0)
    net = Written()
    spec = [paddle.static.InputSpec([None, 3], "float32")]
    paddle.jit.save(paddle.jit.to_static(net, input_spec=spec), str(tmp_path / "m"))
    loaded = paddle.jit.load(str(tmp_path / "m"))
    for a in _inputs():
        np.testing.assert_allclose(loaded(paddle.to_tensor(a)).numpy(),
                                   net(paddle.to_tensor(a)).numpy(), rtol=1e-5, atol=1e-6)
