"""Training with every optimizer: a few eager steps of a small model lower its loss, and the
update an optimizer records while a Program is traced computes what the eager update does."""
import numpy as np
import pytest

import dy2st as paddle
import dy2st.nn.functional as F
from dy2st.optimizer import lr as L
from tests.support import parameters_with_grads, randn

OPTIMIZERS = {
    "sgd": lambda ps: paddle.optimizer.SGD(0.1, parameters=ps),
    "momentum": lambda ps: paddle.optimizer.Momentum(0.05, parameters=ps),
    "nesterov": lambda ps: paddle.optimizer.Momentum(0.05, parameters=ps, use_nesterov=True,
                                                     weight_decay=1e-4),
    "adam": lambda ps: paddle.optimizer.Adam(0.01, parameters=ps),
    "adamw": lambda ps: paddle.optimizer.AdamW(0.01, parameters=ps),
    "rmsprop": lambda ps: paddle.optimizer.RMSProp(0.01, parameters=ps),
    "adagrad": lambda ps: paddle.optimizer.Adagrad(0.1, parameters=ps),
    "adam_clip_sched": lambda ps: paddle.optimizer.Adam(
        L.LinearWarmup(0.01, 2, 0.001, 0.01), parameters=ps,
        grad_clip=paddle.nn.ClipGradByGlobalNorm(1.0)),
}


def _model():
    paddle.seed(11)
    return paddle.nn.Sequential(paddle.nn.Linear(6, 16), paddle.nn.ReLU(),
                                paddle.nn.Linear(16, 3))


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_five_eager_steps_lower_the_loss(name):
    model = _model()
    opt = OPTIMIZERS[name](model.parameters())
    x = paddle.to_tensor(randn(0, 32, 6))
    target = paddle.to_tensor(randn(2, 32, 3))
    losses = []
    for _ in range(5):
        out = model(x)
        loss = F.mse_loss(out, target)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    assert losses[-1] < losses[0], losses
    assert all(np.isfinite(losses))


def test_issue_example_momentum_step():
    model = paddle.nn.Linear(32, 32)
    x = paddle.to_tensor(np.random.random([1, 1, 1, 32]).astype("float32"), name="input_data")
    res = model(x)
    target = paddle.sum(res)
    target.backward()
    w = model.weight.numpy().copy()
    g = model.weight.grad.numpy().copy()
    opt = paddle.optimizer.Momentum(parameters=model.parameters())
    opt.step()
    np.testing.assert_allclose(model.weight.numpy(), w - 0.001 * g, rtol=1e-6)


@pytest.mark.parametrize("name", ["sgd", "nesterov", "adam", "adamw", "rmsprop", "adagrad"])
def test_traced_update_computes_the_eager_update(name):
    """The ops a traced step() records (with a symbolic gradient) compute the same new
    parameter and state as the eager step: fetch the values recorded for each write."""
    from dy2st.runtime.tensor import Parameter
    params, grads = parameters_with_grads(5, [(3, 2), (2,)], 1, dtype="float32")
    twins = [Parameter(p.numpy().copy(), name=p.name) for p in params]
    traced, eager = OPTIMIZERS[name](params), OPTIMIZERS[name](twins)
    for p, g in zip(twins, grads[0]):
        p.grad = paddle.to_tensor(g)
    eager.step()

    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        gs = [paddle.static.data(f"g{i}", list(g.shape), "float32")
              for i, g in enumerate(grads[0])]
        # what step() does once p.grad is symbolic inside a traced train step
        for group in traced._groups():
            traced._apply(list(zip(params, gs)), group)
    writes = main.persistable_writes
    assert {p.name for p in params} <= set(writes)
    # every state tensor the update changes (RMSProp's mean_grad only when centered)
    names = [p.name for p in params] + sorted(k for k in traced.state_dict() if k in writes)
    assert len(names) > len(params) or name == "sgd"
    lr_var = traced._lr_tensor
    assert any(t is lr_var for t in main.persistables.values())     # read at run time
    fetched = paddle.static.Executor().run(
        main, feed={f"g{i}": g for i, g in enumerate(grads[0])},
        fetch_list=[main.find_var(writes[n]) for n in names])
    want = {p.name: p.numpy() for p in twins}
    want.update({k: v.numpy() for k, v in eager.state_dict().items()})
    for n, got in zip(names, fetched):
        np.testing.assert_allclose(got, want[n], rtol=1e-6, atol=1e-7, err_msg=n)


def test_static_minimize_appends_backward_and_records_the_update():
    """Paddle's static style: minimize(loss) under program_guard appends the gradient ops and
    records the parameter writes (fetched here: Executor.run itself does not store them)."""
    def make():
        paddle.nn.reset_name_counters()
        paddle.seed(4)
        return paddle.nn.Linear(3, 2)
    x, y = randn(7, 4, 3), randn(8, 4, 2)
    eager_model = make()
    loss = F.mse_loss(eager_model(paddle.to_tensor(x)), paddle.to_tensor(y))
    loss.backward()
    paddle.optimizer.SGD(0.1, parameters=eager_model.parameters()).step()

    model = make()
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        xv = paddle.static.data("x", [4, 3], "float32")
        yv = paddle.static.data("y", [4, 2], "float32")
        loss_v = F.mse_loss(model(xv), yv)
        _, params_grads = paddle.optimizer.SGD(0.1, parameters=model.parameters()).minimize(loss_v)
    assert {id(p) for p, _ in params_grads} == {id(model.weight), id(model.bias)}
    writes = main.persistable_writes
    got = paddle.static.Executor().run(
        main, feed={"x": x, "y": y},
        fetch_list=[main.find_var(writes[p.name]) for p in model.parameters()])
    for g, p in zip(got, eager_model.parameters()):
        np.testing.assert_allclose(g, p.numpy(), rtol=1e-6)
