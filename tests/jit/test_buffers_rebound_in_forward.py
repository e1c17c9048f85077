"""A buffer given a new value by assignment in forward (`self.steps = self.steps + 1`,
`self.n += 1`, `self.last[0] = v`, also on one path of a tensor `if`): to_static (both
full_graph settings) and a jit.load'ed model carry it into the next call as eager code and
Paddle 3.3.1 do. Each call used to start from the buffer of before the trace (audit round 6)."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec

nn = paddle.nn
SPEC = [InputSpec([None, 3], "float32")]
VALUES = [1.0, -1.0, 2.0, -3.0]


class Rebound(nn.Layer):
    def __init__(self):
        super().__init__()
        self.register_buffer("steps", paddle.zeros([1]))

    def forward(self, x):
        self.steps = self.steps + 1.0
        return x * self.steps


class Augmented(nn.Layer):
    def __init__(self):
        super().__init__()
        self.register_buffer("n", paddle.zeros([1]))

    def forward(self, x):
        self.n += 1.0
        return x * self.n


class ItemWritten(nn.Layer):
    def __init__(self):
        super().__init__()
        self.register_buffer("last", paddle.zeros([2]))

    def forward(self, x):
        y = x * self.last[0] + self.last[1]
        self.last[0] = x.sum()
        self.last[1] = x.max()
        return y


class UnderTensorIf(nn.Layer):
    def __init__(self):
        super().__init__()
        self.register_buffer("n", paddle.zeros([1]))

    def forward(self, x):
        if x.mean() > 0:
            self.n = self.n + 1.0
        else:
            self.n = self.n - 0.5
        return x * self.n


LAYERS = [Rebound, Augmented, ItemWritten, UnderTensorIf]


def _x(v):
    return paddle.to_tensor(np.full([2, 3], v, "float32"))


def _buffer(layer):
    return next(iter(layer.buffers())).numpy()


@pytest.mark.parametrize("full_graph", [True, False])
@pytest.mark.parametrize("cls", LAYERS, ids=lambda c: c.__name__)
def test_the_buffer_moves_on_every_call(cls, full_graph):
    eager, static = cls(), paddle.jit.to_static(cls(), full_graph=full_graph)
    for k, v in enumerate(VALUES):
        np.testing.assert_allclose(static(_x(v)).numpy(), eager(_x(v)).numpy(),
                                   err_msg=f"call {k + 1}")
        np.testing.assert_allclose(_buffer(static), _buffer(eager), err_msg=f"call {k + 1}")


@pytest.mark.parametrize("cls", LAYERS, ids=lambda c: c.__name__)
def test_a_loaded_model_moves_the_buffer_too(cls, tmp_path):
    paddle.jit.save(cls(), str(tmp_path / "m"), input_spec=SPEC)
    loaded, eager = paddle.jit.load(str(tmp_path / "m")), cls()
    for k, v in enumerate(VALUES):
        np.testing.assert_allclose(loaded(_x(v)).numpy(), eager(_x(v)).numpy(),
                                   err_msg=f"call {k + 1}")
