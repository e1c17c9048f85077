"""What the hapi tests share: a small seeded classification dataset and network, and the
hand-written eager training loop Model.fit is compared against."""
import numpy as np

import dy2st as paddle
from dy2st import nn


class ToyData(paddle.io.Dataset):
    """n samples of 4 features and an int64 label in [0, 3), fixed by `seed`."""

    def __init__(self, n=20, seed=0):
        rng = np.random.RandomState(seed)
        self.x = rng.randn(n, 4).astype("float32")
        self.y = rng.randint(0, 3, (n, 1)).astype("int64")

    def __getitem__(self, i):
        return self.x[i], self.y[i]

    def __len__(self):
        return len(self.x)


def make_net(seed=3):
    paddle.seed(seed)
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))


def make_optimizer(kind, params, learning_rate=0.05):
    if kind == "sgd":
        return paddle.optimizer.SGD(learning_rate=learning_rate, parameters=params)
    return paddle.optimizer.Adam(learning_rate=learning_rate, parameters=params)


def hand_loop(net, opt, data, epochs, batch_size, shuffle, accumulate=1):
    """The eager loop Model.fit stands for: Paddle's fit reads a shuffled dataset in the
    order numpy.random.RandomState(epoch) permutes it."""
    loss_fn = nn.CrossEntropyLoss()
    n = len(data)
    for epoch in range(epochs):
        order = np.arange(n)
        if shuffle:
            np.random.RandomState(epoch).shuffle(order)
        batches = [order[k:k + batch_size] for k in range(0, n, batch_size)]
        for step, idx in enumerate(batches):
            x = paddle.to_tensor(data.x[idx])
            y = paddle.to_tensor(data.y[idx])
            loss_fn(net(x), y).backward()
            if (step + 1) % accumulate == 0 or step + 1 == len(batches):
                opt.step()
                opt.clear_grad()


def specs():
    return ([paddle.static.InputSpec([None, 4], "float32", "x")],
            [paddle.static.InputSpec([None, 1], "int64", "label")])
