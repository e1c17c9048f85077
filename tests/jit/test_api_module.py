"""`from paddle.jit.api import to_static` works as Paddle code writes it."""
import numpy as np

import dy2st as paddle
from dy2st.jit.api import to_static


def test_api_to_static_is_the_decorator():
    assert to_static is paddle.jit.to_static

    class Net(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = paddle.nn.Linear(3, 2)

        @to_static
        def forward(self, x):
            if x.mean() > 0:
                return self.fc(x)
            return -self.fc(x)

    net = Net()
    x = paddle.to_tensor(np.array([[1.0, 2.0, 3.0]], "float32"))
    out = net(x)
    assert net.forward.num_programs == 1
    paddle.jit.enable_to_static(False)
    try:
        eager = net(x)
    finally:
        paddle.jit.enable_to_static(True)
    np.testing.assert_allclose(out.numpy(), eager.numpy(), rtol=1e-6)
