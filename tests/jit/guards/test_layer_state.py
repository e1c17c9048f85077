"""Layer state a compiled program depends on beyond its parameters: a sublayer swapped for one
without parameters, a LayerList/LayerDict/Sequential changed, and the attributes, mode, hooks
and sublayers of dy2st's own layers called in the trace (their forward reads them as library
code: a Dropout's p, a LeakyReLU's slope), checked only after some layer attribute changed."""
import numpy as np
import pytest

import dy2st as paddle

nn = paddle.nn
X = np.array([[1.0, -2.0, 0.5]], "float32")


def _x():
    return paddle.to_tensor(X)


def _same(static, eager):
    np.testing.assert_allclose(static(_x()).numpy(), eager(_x()).numpy(), rtol=1e-6)


class Holder(nn.Layer):
    def __init__(self):
        super().__init__()
        self.act = nn.Tanh()
        self.layers = nn.LayerList([nn.Tanh()])
        self.heads = nn.LayerDict({"a": nn.Tanh()})
        self.seq = nn.Sequential(nn.LeakyReLU(0.1))
        self.drop = nn.Dropout(p=0.0, mode="downscale_in_infer")

    def forward(self, x):
        h = self.act(x)
        for layer in self.layers:
            h = layer(h)
        return self.drop(self.seq(self.heads["a"](h) - 1.0))


CHANGES = [
    ("sublayer swapped", lambda m: setattr(m, "act", nn.ReLU())),
    ("LayerList appended", lambda m: m.layers.append(nn.Sigmoid())),
    ("LayerList item replaced", lambda m: m.layers.__setitem__(0, nn.Identity())),
    ("LayerDict item replaced", lambda m: m.heads.__setitem__("a", nn.Sigmoid())),
    ("Sequential grown", lambda m: m.seq.add_sublayer("1", nn.Tanh())),
    ("LeakyReLU slope", lambda m: setattr(m.seq[0], "_negative_slope", 0.5)),
    ("Dropout p", lambda m: setattr(m.drop, "p", 0.5)),
    ("hook on a sublayer", lambda m: m.act.register_forward_post_hook(
        lambda layer, inp, out: out * 3.0)),
]


@pytest.mark.parametrize("full_graph", [True, False])
@pytest.mark.parametrize("name,change", CHANGES, ids=[c[0] for c in CHANGES])
def test_a_layer_change_is_seen(name, change, full_graph):
    eager, model = Holder(), Holder()
    eager.eval()
    model.eval()
    static = paddle.jit.to_static(model, full_graph=full_graph)
    _same(static, eager)
    change(eager)
    change(model)
    _same(static, eager)


def test_nothing_changed_keeps_the_program_and_an_unrelated_write_too():
    model = Holder()
    model.eval()
    static = paddle.jit.to_static(model)
    static(_x())
    other = nn.Linear(2, 2)
    for i in range(5):
        other.some_flag = i             # moves Layer.state_epoch: the states are compared
        static(_x())
    assert static.forward.num_programs == 1


def test_the_state_coming_back_picks_the_first_program_again():
    model = Holder()
    model.eval()
    static = paddle.jit.to_static(model)
    first = static(_x()).numpy()
    model.drop.p = 0.5
    assert not np.allclose(static(_x()).numpy(), first)
    model.drop.p = 0.0
    np.testing.assert_allclose(static(_x()).numpy(), first)
    assert static.forward.num_programs == 2


def test_a_dropout_sublayer_put_in_eval_alone():
    class Net(nn.Layer):
        def __init__(self):
            super().__init__()
            self.drop = nn.Dropout(p=0.5, mode="downscale_in_infer")

        def forward(self, x):
            return self.drop(x)

    eager, model = Net(), Net()
    for m in (eager, model):
        m.drop.eval()
    static = paddle.jit.to_static(model)
    _same(static, eager)
    for m in (eager, model):
        m.drop.p = 0.25
    _same(static, eager)
