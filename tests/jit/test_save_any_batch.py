"""jit.save without input_spec, after a call: the saved model takes any batch size when the code
traces with an unknown first dim (as Paddle's does), and keeps the call's shapes otherwise."""
import numpy as np
import pytest

import dy2st as paddle


class Head(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 2)

    @paddle.jit.to_static
    def forward(self, x):
        return self.fc(x).mean(axis=1)


class FixedBatch(paddle.nn.Layer):
    @paddle.jit.to_static
    def forward(self, x):
        rows = np.arange(x.shape[0], dtype="float32")   # numpy needs the batch while traced
        return x + paddle.to_tensor(rows).unsqueeze(1)


def test_a_model_saved_after_a_call_takes_other_batch_sizes(tmp_path):
    model = Head()
    model(paddle.rand([2, 3]))
    paddle.jit.save(model, str(tmp_path / "head"))
    loaded = paddle.jit.load(str(tmp_path / "head"))
    for batch in (1, 5):
        x = paddle.rand([batch, 3])
        np.testing.assert_allclose(loaded(x).numpy(), model(x).numpy(), rtol=1e-6)


def test_code_that_needs_the_batch_while_traced_keeps_the_call_shape(tmp_path):
    model = FixedBatch()
    x = paddle.rand([2, 3])
    model(x)
    paddle.jit.save(model, str(tmp_path / "fixed"))
    loaded = paddle.jit.load(str(tmp_path / "fixed"))
    np.testing.assert_allclose(loaded(x).numpy(), model(x).numpy())
    with pytest.raises(ValueError, match=r"expects float32\[2, 3\], got float32\[4, 3\]"):
        loaded(paddle.rand([4, 3]))
