"""paddle.static.amp.fp16_guard in a forward (ResNet's): the block's values and gradients are
those of the block run directly, eagerly and under to_static."""
import numpy as np

import dy2st as paddle
from tests.support import randn, three_modes


def test_fp16_guard_leaves_the_block_unchanged(tmp_path):
    def fn(x):
        with paddle.static.amp.fp16_guard():
            y = paddle.nn.functional.relu(x) * 2.0
        return y + 1.0

    x = randn(0, 3, 4)
    for got in three_modes(fn, [x], [[None, 4]], tmp_path):
        np.testing.assert_allclose(got[0], np.maximum(x, 0) * 2.0 + 1.0, rtol=1e-6)


def test_fp16_guard_passes_gradients():
    x = paddle.to_tensor(randn(1, 5), stop_gradient=False)
    with paddle.static.amp.fp16_guard():
        y = (x * x).sum()
    (g,) = paddle.grad(y, [x])
    np.testing.assert_allclose(g.numpy(), 2 * x.numpy(), rtol=1e-6)
