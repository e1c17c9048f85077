"""Train a small classifier whose forward has a tensor `if` and a `while`, through to_static:
the whole train step (forward, backward, optimizer update) is one compiled Program. Then save it
with jit.save, load it back and report its accuracy on held-out data."""
import os
import sys
import tempfile
import time

import numpy as np

import dy2st as paddle
import dy2st.nn.functional as F


def make_data(n: int, seed: int):
    """Three Gaussian blobs in 8 dimensions (float32 features, int64 labels)."""
    centers = np.random.default_rng(0).standard_normal((3, 8)) * 0.8   # the same classes
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 3, n)
    x = centers[labels] + rng.standard_normal((n, 8))
    return x.astype("float32"), labels.astype("int64")


class Classifier(paddle.nn.Layer):
    def __init__(self) -> None:
        super().__init__()
        self.inp = paddle.nn.Linear(8, 32)
        self.hidden = paddle.nn.Linear(32, 32)
        self.out = paddle.nn.Linear(32, 3)
        self.dropout = paddle.nn.Dropout(0.1)

    def forward(self, x):
        h = F.relu(self.inp(x))
        if h.mean() > 1.0:              # tensor if: a `cond` op
            h = h * 0.5
        steps = 0
        while h.abs().mean() < 0.5 and steps < 3:   # tensor while: a `while` op
            h = F.relu(self.hidden(h)) + h
            steps += 1
        return self.out(self.dropout(h))


@paddle.jit.to_static
def train_step(model, opt, x, y):
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    opt.clear_grad()
    return loss


def progress(epoch: int, epochs: int, loss: float, width: int = 30) -> None:
    done = int(width * epoch / epochs)
    sys.stdout.write(f"\r[{'#' * done}{'.' * (width - done)}] epoch {epoch}/{epochs} "
                     f"loss {loss:.4f}")
    sys.stdout.flush()


def main(epochs: int = 20, batch: int = 64) -> float:
    paddle.seed(0)
    x_train, y_train = make_data(1024, seed=1)
    x_test, y_test = make_data(256, seed=2)
    model = Classifier()
    opt = paddle.optimizer.Adam(learning_rate=0.01, parameters=model.parameters())
    model.train()
    start = time.perf_counter()
    for epoch in range(1, epochs + 1):
        order = np.random.default_rng(epoch).permutation(len(x_train))
        losses = []
        for i in range(0, len(order) - batch + 1, batch):
            idx = order[i:i + batch]
            loss = train_step(model, opt, paddle.to_tensor(x_train[idx]),
                              paddle.to_tensor(y_train[idx]))
            losses.append(float(loss))
        progress(epoch, epochs, float(np.mean(losses)))
    print(f"\ntrained in {time.perf_counter() - start:.2f} s "
          f"({train_step.num_programs} compiled train-step program)")

    model.eval()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "classifier")
        paddle.jit.save(model, path, input_spec=[paddle.static.InputSpec([None, 8], "float32")])
        loaded = paddle.jit.load(path)
        logits = loaded(paddle.to_tensor(x_test))
    accuracy = float((logits.numpy().argmax(axis=1) == y_test).mean())
    print(f"accuracy of the saved and reloaded model on held-out data: {accuracy:.3f}")
    return accuracy


if __name__ == "__main__":
    main()
