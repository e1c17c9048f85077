"""Training through to_static: a model with a tensor if, a while loop, dropout and BatchNorm
trained 5 steps eagerly, through to_static(model) with eager backward and update, and with the
whole step in to_static ends with the same parameters and statistics for every optimizer."""
import numpy as np
import pytest

import dy2st as paddle
import dy2st.nn.functional as F
from dy2st.static import InputSpec

OPTIMIZERS = {
    "sgd": lambda ps: paddle.optimizer.SGD(0.05, parameters=ps),
    "momentum": lambda ps: paddle.optimizer.Momentum(0.05, parameters=ps, use_nesterov=True),
    "adam": lambda ps: paddle.optimizer.Adam(0.01, parameters=ps),
    "adamw": lambda ps: paddle.optimizer.AdamW(0.01, parameters=ps, weight_decay=0.1),
    "rmsprop": lambda ps: paddle.optimizer.RMSProp(0.01, parameters=ps),
    "adagrad": lambda ps: paddle.optimizer.Adagrad(0.1, parameters=ps),
}


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = paddle.nn.Linear(6, 8)
        self.bn = paddle.nn.BatchNorm1D(8)
        self.fc2 = paddle.nn.Linear(8, 8)
        self.head = paddle.nn.Linear(8, 3)
        self.drop = paddle.nn.Dropout(0.2)

    def forward(self, x):
        h = self.bn(F.relu(self.fc1(x)))
        if h.mean() > 0.0:
            h = h * 1.5
        else:
            h = h - 0.5
        steps = 0
        while h.abs().mean() < 2.0 and steps < 3:
            h = paddle.tanh(self.fc2(h)) + h
            steps += 1
        return self.head(self.drop(h))


def _model():
    paddle.nn.reset_name_counters()
    paddle.seed(5)
    return Net()


def _batches():
    rng = np.random.default_rng(1)
    return [(paddle.to_tensor((rng.standard_normal((7, 6)) * s).astype("float32")),
             paddle.to_tensor(rng.integers(0, 3, 7).astype("int64"))) for s in (0.2, 1.0, 3.0, 0.5, 2.0)]


def step(model, opt, x, y):
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    opt.clear_grad()
    return loss


def _train(make, mode):
    model = _model()
    opt = make(model.parameters())
    run = step
    if mode == "layer":
        model = paddle.jit.to_static(model, full_graph=True)
    elif mode == "step":
        run = paddle.jit.to_static(step, full_graph=True)
    paddle.seed(9)          # the same dropout masks in every mode
    losses = [float(run(model, opt, x, y)) for x, y in _batches()]
    state = {k: v.numpy().copy() for k, v in model.state_dict().items()}
    return losses, state, run


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_three_ways_of_training_end_with_the_same_parameters(name):
    eager_losses, eager_state, _ = _train(OPTIMIZERS[name], "eager")
    for mode in ("layer", "step"):
        losses, state, run = _train(OPTIMIZERS[name], mode)
        np.testing.assert_allclose(losses, eager_losses, rtol=1e-5, err_msg=mode)
        assert set(state) == set(eager_state)
        for key, value in eager_state.items():
            np.testing.assert_allclose(state[key], value, rtol=1e-4, atol=1e-6,
                                       err_msg=f"{mode}: {key}")
        if mode == "step":
            assert run.num_programs == 1


def test_training_changes_the_loss_and_running_statistics():
    losses, state, _ = _train(OPTIMIZERS["adam"], "step")
    fresh = _model().state_dict()
    assert not np.allclose(state["bn._mean"], fresh["bn._mean"].numpy())
    assert losses[-1] != losses[0]


def test_eval_mode_disables_dropout_and_uses_running_statistics():
    model = _model()
    x = _batches()[0][0]
    model.eval()
    eager = model(x).numpy()
    static = paddle.jit.to_static(model, full_graph=True)
    np.testing.assert_allclose(static(x).numpy(), eager, rtol=1e-6)
    np.testing.assert_allclose(static(x).numpy(), eager, rtol=1e-6)     # deterministic


def test_saved_trained_model_has_no_backward_ops_and_matches(tmp_path):
    model = _model()
    opt = OPTIMIZERS["sgd"](model.parameters())
    run = paddle.jit.to_static(step, full_graph=True)
    for x, y in _batches():
        run(model, opt, x, y)
    model.eval()
    x = _batches()[1][0]
    expected = model(x).numpy()
    paddle.jit.save(model, str(tmp_path / "m"), input_spec=[InputSpec([None, 6], "float32")])
    text = open(tmp_path / "m.json").read()
    for grad_op in ("grad_accumulate", "reduce_as", "tape_push", "getitem_grad"):
        assert f'"{grad_op}"' not in text
    loaded = paddle.jit.load(str(tmp_path / "m"))
    np.testing.assert_allclose(loaded(x).numpy(), expected, rtol=1e-5, atol=1e-6)


def test_paddle_grad_through_a_converted_function_with_a_while_loop():
    def f(x):
        while x.sum() < 10.0:
            x = x * 1.7 + 0.3
        return x * x

    sf = paddle.jit.to_static(f, full_graph=True)
    for start in (0.1, 1.0, 5.0):
        x = paddle.to_tensor(np.full([3], start, "float64"), stop_gradient=False)
        (g_static,) = paddle.grad(paddle.sum(sf(x)), x)
        x2 = paddle.to_tensor(np.full([3], start, "float64"), stop_gradient=False)
        (g_eager,) = paddle.grad(paddle.sum(f(x2)), x2)
        np.testing.assert_allclose(g_static.numpy(), g_eager.numpy(), rtol=1e-10)


def test_freezing_a_parameter_partway_builds_another_gradient_program():
    model = _model()
    sm = paddle.jit.to_static(model, full_graph=True)
    x, y = _batches()[0]
    F.cross_entropy(sm(x), y).backward()
    assert model.fc1.weight.grad is not None
    for p in model.parameters():
        p.clear_grad(set_to_zero=False)
    model.fc1.weight.stop_gradient = True
    F.cross_entropy(sm(x), y).backward()
    assert model.fc1.weight.grad is None
    assert model.head.weight.grad is not None


@pytest.mark.parametrize("full_graph", [True, False])
def test_an_input_that_reaches_only_outputs_given_no_gradient_gets_none(full_graph):
    # one tape node stands for the call: the outputs backward never reached were seeded with
    # zeros, so x got a zero gradient where eager's engine never visits it (x.grad stays None)
    def f(x, w):
        return x * 2.0, w * 3.0, (x * w).sum()

    static = paddle.jit.to_static(f, full_graph=full_graph)
    for fn in (f, static):
        x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
        w = paddle.to_tensor([3.0], stop_gradient=False)
        a, b, c = fn(x, w)
        b.sum().backward()      # c shares nothing with b: its ops are not freed
        assert x.grad is None
        np.testing.assert_allclose(w.grad.numpy(), [3.0])
        c.backward()        # now through an output that reaches x
        np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])
        np.testing.assert_allclose(w.grad.numpy(), [6.0])
