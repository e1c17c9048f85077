"""A small Paddle-style model with tensor-dependent control flow, used by the examples and the
README: a gated MLP that refines its hidden state a data-dependent number of times."""
import dy2st as paddle
from dy2st import nn


class RefineNet(nn.Layer):
    """Linear -> (relu or tanh, chosen by the data) -> refine until small -> Linear."""

    def __init__(self, width: int = 8) -> None:
        super().__init__()
        self.inp = nn.Linear(4, width)
        self.step = nn.Linear(width, width)
        self.out = nn.Linear(width, 2)

    def forward(self, x):
        h = self.inp(x)
        if h.mean() > 0:
            h = nn.functional.relu(h)
        else:
            h = paddle.tanh(h)
        steps = paddle.zeros([], dtype="int64")
        while h.abs().max() > 0.5 and steps < 10:
            h = paddle.tanh(self.step(h)) + h * 0.5
            steps += 1
        return self.out(h), steps
