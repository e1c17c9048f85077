"""Static-mode training: `opt.minimize(loss)` in a Program, then `Executor.run` updates the
parameters, optimizer state and running statistics after every run, as eager training does."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st import static


def _data(seed=0):
    rng = np.random.default_rng(seed)
    xs = rng.standard_normal((8, 3)).astype("float32")
    ys = (xs @ np.array([[1.0], [-2.0], [0.5]], "float32") + 0.3).astype("float32")
    return xs, ys


def _model(seed, batch_norm):
    paddle.seed(seed)
    layers = [paddle.nn.Linear(3, 4)]
    if batch_norm:
        layers.append(paddle.nn.BatchNorm1D(4))
    layers += [paddle.nn.Tanh(), paddle.nn.Linear(4, 1)]
    return paddle.nn.Sequential(*layers)


def _optimizer(kind, params):
    if kind == "sgd":
        return paddle.optimizer.SGD(0.1, parameters=params)
    if kind == "momentum":
        return paddle.optimizer.Momentum(0.05, momentum=0.9, parameters=params)
    return paddle.optimizer.Adam(0.05, parameters=params)


def _train_eager(kind, batch_norm, steps):
    xs, ys = _data()
    model = _model(1, batch_norm)
    opt = _optimizer(kind, model.parameters())
    losses = []
    for _ in range(steps):
        loss = ((model(paddle.to_tensor(xs)) - paddle.to_tensor(ys)) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    return model, losses


def _train_static(kind, batch_norm, steps):
    xs, ys = _data()
    model = _model(1, batch_norm)
    main = static.Program()
    with static.program_guard(main):
        x = static.data("x", [None, 3], "float32")
        y = static.data("y", [None, 1], "float32")
        loss = ((model(x) - y) ** 2).mean()
        _optimizer(kind, model.parameters()).minimize(loss)
    exe = static.Executor()
    losses = [float(exe.run(main, feed={"x": xs, "y": ys}, fetch_list=[loss])[0])
              for _ in range(steps)]
    return model, losses


@pytest.mark.parametrize("kind", ["sgd", "momentum", "adam"])
@pytest.mark.parametrize("batch_norm", [False, True])
def test_executor_runs_of_a_minimized_program_train_like_eager(kind, batch_norm):
    eager, eager_losses = _train_eager(kind, batch_norm, 4)
    stat, static_losses = _train_static(kind, batch_norm, 4)
    np.testing.assert_allclose(static_losses, eager_losses, rtol=1e-5, atol=1e-6)
    assert static_losses[-1] < static_losses[0]
    for (name, a), (_, b) in zip(eager.state_dict().items(), stat.state_dict().items()):
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-5, atol=1e-6, err_msg=name)


def test_a_program_without_updates_leaves_its_parameters_alone():
    xs, ys = _data()
    model = _model(1, False)
    before = {k: v.numpy().copy() for k, v in model.state_dict().items()}
    main = static.Program()
    with static.program_guard(main):
        x = static.data("x", [None, 3], "float32")
        out = model(x)
    got, = static.Executor().run(main, feed={"x": xs}, fetch_list=[out])
    assert got.shape == (8, 1)
    for k, v in model.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), before[k])
