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


def _closures_over_the_batch(x):
    fs = [lambda t: t * r for r in range(x.shape[0])]
    out = x
    for g in fs:
        out = g(out)
    return out


def test_closures_made_per_row_of_an_unknown_batch_are_refused_at_the_users_line(tmp_path):
    """Eager code and to_static agree (every lambda sees the last r); with a None batch dim the
    number of lambdas is unknown while traced, so jit.save refuses at the line that needs it
    (Paddle 3.3.1's jit.save of this did not finish in 300 s)."""
    x = paddle.ones([3, 2])
    np.testing.assert_allclose(paddle.jit.to_static(_closures_over_the_batch)(x).numpy(),
                               _closures_over_the_batch(x).numpy())
    with pytest.raises(Exception, match=r"line \d+: fs = \[lambda t: t \* r for r in "
                                        r"range\(x.shape\[0\]\)\][\s\S]*taken from a symbolic "
                                        r"tensor") as info:
        paddle.jit.save(paddle.jit.to_static(_closures_over_the_batch), str(tmp_path / "c"),
                        input_spec=[paddle.static.InputSpec([None, 2], "float32")])
    assert __file__ in str(info.value) and not (tmp_path / "c.json").exists()
