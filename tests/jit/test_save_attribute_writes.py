"""A forward that stores a Python value on `self` (`self.batch_size = src.shape[0]`, as Paddle's
seq2seq model does) runs with a graph break, and still saves: the export traces a copy of the
layer tree, so the write lands on the copy and the user's layer keeps its own value."""
import numpy as np

import dy2st as paddle
from dy2st.static import InputSpec


class Reshaper(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(6, 2)
        self.batch_size = 0

    def forward(self, x):
        self.batch_size = x.shape[0]
        return self.fc(paddle.reshape(x, [self.batch_size, 6]))


class Appender(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.seen = []

    def forward(self, x):
        self.seen.append(1)
        return x * 2.0


def test_a_layer_that_stores_a_shape_on_self_converts_and_saves(tmp_path):
    model = Reshaper()
    static = paddle.jit.to_static(Reshaper())
    static.set_state_dict(model.state_dict())
    x = paddle.rand([3, 2, 3])
    np.testing.assert_allclose(static(x).numpy(), model(x).numpy(), rtol=1e-6)
    assert static.batch_size == 3
    paddle.jit.save(static, str(tmp_path / "m"), input_spec=[InputSpec([None, 2, 3], "float32")])
    assert static.batch_size == 3          # the export wrote to a copy
    loaded = paddle.jit.load(str(tmp_path / "m"))
    for batch in (1, 5):
        y = paddle.rand([batch, 2, 3])
        np.testing.assert_allclose(loaded(y).numpy(), model(y).numpy(), rtol=1e-6)


def test_a_layer_that_grows_a_list_on_self_saves_without_changing_it(tmp_path):
    # as Paddle exports NetWithControlFlowIf (which writes self.constant_vars): the export
    # traces a copy whose list is a copy, so the Layer's own list is left as it was
    layer = Appender()
    static = paddle.jit.to_static(layer)
    static(paddle.rand([2, 2]))
    assert layer.seen == [1]
    paddle.jit.save(static, str(tmp_path / "a"), input_spec=[InputSpec([None, 2], "float32")])
    assert layer.seen == [1]
    loaded = paddle.jit.load(str(tmp_path / "a"))
    x = paddle.rand([3, 2])
    np.testing.assert_allclose(loaded(x).numpy(), x.numpy() * 2.0)
    static(x)
    assert layer.seen == [1, 1]
