"""A whole train step (forward, backward, opt.step(), opt.clear_grad()) converted by to_static
is one Program and leaves the same parameters and optimizer state, step by step, as eager
training, for every optimizer (with schedules, clipping and weight decay)."""
import numpy as np
import pytest

import dy2st as paddle
import dy2st.nn.functional as F
from dy2st.optimizer import lr as L

OPTIMIZERS = {
    "sgd": lambda ps: paddle.optimizer.SGD(0.1, parameters=ps),
    "momentum": lambda ps: paddle.optimizer.Momentum(0.05, parameters=ps, use_nesterov=True,
                                                     weight_decay=1e-3),
    "adam": lambda ps: paddle.optimizer.Adam(0.01, parameters=ps, amsgrad=True),
    "adamw_sched_clip": lambda ps: paddle.optimizer.AdamW(
        L.StepDecay(0.01, 2, 0.5), parameters=ps,
        grad_clip=paddle.nn.ClipGradByGlobalNorm(0.5)),
    "rmsprop": lambda ps: paddle.optimizer.RMSProp(0.01, parameters=ps, centered=True,
                                                   momentum=0.3),
    "adagrad": lambda ps: paddle.optimizer.Adagrad(
        0.1, parameters=ps, weight_decay=paddle.regularizer.L1Decay(1e-3)),
    "groups": lambda ps: paddle.optimizer.Momentum(
        0.05, parameters=[{"params": ps[:2]}, {"params": ps[2:], "learning_rate": 0.5}],
        grad_clip=paddle.nn.ClipGradByValue(0.2)),
    "adamax": lambda ps: paddle.optimizer.Adamax(0.01, parameters=ps, weight_decay=1e-3),
    "adadelta": lambda ps: paddle.optimizer.Adadelta(1.0, parameters=ps),
    "rprop": lambda ps: paddle.optimizer.Rprop(0.01, parameters=ps),
    "lamb": lambda ps: paddle.optimizer.Lamb(0.01, parameters=ps),
    "nadam": lambda ps: paddle.optimizer.NAdam(0.01, parameters=ps, weight_decay=1e-3),
    "radam": lambda ps: paddle.optimizer.RAdam(0.01, parameters=ps, beta2=0.5),
    "asgd": lambda ps: paddle.optimizer.ASGD(0.05, batch_num=3, parameters=ps),
}
STEPS = 5


def _model():
    paddle.nn.reset_name_counters()     # the same parameter (and optimizer state) names each time
    paddle.seed(3)
    return paddle.nn.Sequential(paddle.nn.Linear(6, 8), paddle.nn.ReLU(), paddle.nn.Linear(8, 3))


def _data():
    rng = np.random.default_rng(0)
    return [(paddle.to_tensor(rng.standard_normal((5, 6)).astype("float32")),
             paddle.to_tensor(rng.standard_normal((5, 3)).astype("float32")))
            for _ in range(STEPS)]


def train_step(model, opt, x, y):
    loss = F.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    opt.clear_grad()
    return loss


def _train(make, step):
    model = _model()
    opt = make(model.parameters())
    history = []
    for x, y in _data():
        loss = float(step(model, opt, x, y))
        if isinstance(opt._learning_rate, L.LRScheduler):
            opt._learning_rate.step()         # outside the compiled step, read at run time
        history.append((loss, [p.numpy().copy() for p in model.parameters()]))
    return history, opt


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_whole_step_in_to_static_matches_eager(name):
    eager, eager_opt = _train(OPTIMIZERS[name], train_step)
    compiled = paddle.jit.to_static(train_step)
    static, static_opt = _train(OPTIMIZERS[name], compiled)
    assert compiled.num_programs == 1
    for k, ((le, pe), (ls, pst)) in enumerate(zip(eager, static)):
        assert ls == pytest.approx(le, rel=1e-6), k
        for a, b in zip(pe, pst):
            np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-7, err_msg=f"step {k}")
    se, ss = eager_opt.state_dict(), static_opt.state_dict()
    assert set(se) == set(ss)
    for key, value in se.items():
        if key != "LR_Scheduler":
            np.testing.assert_allclose(ss[key].numpy(), value.numpy(), rtol=1e-5, atol=1e-7)
    for p in static_opt._all_params():
        assert p.grad is None or not np.any(p.grad.numpy())       # clear_grad ran


@pytest.mark.parametrize("with_backward", [True, False])
def test_minimize_inside_to_static(with_backward):
    def eager_step(model, opt, x, y):
        loss = F.mse_loss(model(x), y)
        loss.backward()
        opt.minimize(loss)
        opt.clear_grad()
        return loss

    def step(model, opt, x, y):
        loss = F.mse_loss(model(x), y)
        if with_backward:
            loss.backward()
        opt.minimize(loss)          # without backward(): Paddle's static minimize appends it
        opt.clear_grad()
        return loss

    make = OPTIMIZERS["adam"]
    eager, _ = _train(make, eager_step)
    compiled = paddle.jit.to_static(step)
    static, _ = _train(make, compiled)
    assert compiled.num_programs == 1
    for (le, pe), (ls, pst) in zip(eager, static):
        assert ls == pytest.approx(le, rel=1e-6)
        for a, b in zip(pe, pst):
            np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-7)


def _step_of_an_argument(w, x, opt):
    loss = ((w * x).sum() - 1.0) ** 2
    loss.backward()
    opt.step()
    opt.clear_grad()
    return loss


def _parameter_and_sgd():
    w = paddle.create_parameter([3], "float32")
    w.set_value(paddle.to_tensor(np.array([0.5, -0.25, 1.0], "float32")))
    return w, paddle.optimizer.SGD(0.1, parameters=[w])


def test_a_step_of_a_parameter_passed_as_an_argument_breaks_the_graph():
    # the loss reaches the feed that stands for the argument, not the parameter the optimizer
    # updates: the step used to leave the parameter as it was, silently, on every call
    x = paddle.to_tensor(np.array([1.0, 2.0, 3.0], "float32"))
    (w, opt), (w2, opt2) = _parameter_and_sgd(), _parameter_and_sgd()
    fn = paddle.jit.to_static(_step_of_an_argument, full_graph=False)
    for _ in range(3):
        want = _step_of_an_argument(w, x, opt).numpy()
        np.testing.assert_allclose(fn(w2, x, opt2).numpy(), want, rtol=1e-6)
        np.testing.assert_allclose(w2.numpy(), w.numpy(), rtol=1e-6)


def test_a_step_of_a_parameter_passed_as_an_argument_is_refused_in_one_graph():
    w, opt = _parameter_and_sgd()
    step = _step_of_an_argument
    fn = paddle.jit.to_static(step, full_graph=True)
    with pytest.raises(TypeError, match="takes as the argument 'w'") as info:
        fn(w, paddle.to_tensor(np.ones(3, "float32")), opt)
    assert "opt.step()" in str(info.value)
    np.testing.assert_array_equal(w.numpy(), [0.5, -0.25, 1.0])
