"""Parameter groups: a group's learning_rate scales the optimizer's, its weight_decay replaces
the optimizer's, and optimizer-specific options (beta1, momentum, ...) can be overridden."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.regularizer import L1Decay
from tests.support import parameters_with_grads, run_steps


def test_sgd_groups_scale_lr_and_replace_weight_decay():
    params, grads = parameters_with_grads(0, [(2, 3), (3,), (4,)], 3)
    opt = paddle.optimizer.SGD(0.1, weight_decay=0.01, parameters=[
        {"params": params[:2]},
        {"params": [params[2]], "learning_rate": 0.5, "weight_decay": L1Decay(0.2)}])
    want = [p.numpy().copy() for p in params]
    for step in grads:
        want = [want[0] - 0.1 * (step[0] + 0.01 * want[0]),
                want[1] - 0.1 * (step[1] + 0.01 * want[1]),
                want[2] - 0.05 * (step[2] + 0.2 * np.sign(want[2]))]
    run_steps(opt, params, grads)
    for p, w in zip(params, want):
        np.testing.assert_allclose(p.numpy(), w, rtol=1e-12)


def test_scheduler_drives_every_group():
    params, grads = parameters_with_grads(1, [(2,), (2,)], 3)
    sched = paddle.optimizer.lr.StepDecay(0.4, step_size=1, gamma=0.5)
    opt = paddle.optimizer.SGD(sched, parameters=[{"params": [params[0]]},
                                                  {"params": [params[1]], "learning_rate": 0.1}])
    want = [p.numpy().copy() for p in params]
    for k, step in enumerate(grads):
        lr = 0.4 * 0.5 ** k
        want = [want[0] - lr * step[0], want[1] - lr * 0.1 * step[1]]
    run_steps(opt, params, grads, between=lambda k: sched.step())
    for p, w in zip(params, want):
        np.testing.assert_allclose(p.numpy(), w, rtol=1e-12)


def test_adam_group_overrides_beta1_and_adamw_group_decay():
    params, grads = parameters_with_grads(2, [(3,), (3,)], 3)
    opt = paddle.optimizer.AdamW(0.1, weight_decay=0.01, parameters=[
        {"params": [params[0]]},
        {"params": [params[1]], "weight_decay": 0.5, "beta1": 0.5}])
    state = [dict(m=0.0, v=0.0, b1=b1, b1p=b1, b2p=0.999, wd=wd, x=p.numpy().copy())
             for p, b1, wd in zip(params, (0.9, 0.5), (0.01, 0.5))]
    for step in grads:
        for s, g in zip(state, step):
            start = s["x"] - 0.1 * s["wd"] * s["x"]
            s["m"] = s["b1"] * s["m"] + (1 - s["b1"]) * g
            s["v"] = 0.999 * s["v"] + 0.001 * g * g
            lr_t = 0.1 * np.sqrt(1 - s["b2p"]) / (1 - s["b1p"])
            s["x"] = start - lr_t * s["m"] / (np.sqrt(s["v"]) + 1e-8 * np.sqrt(1 - s["b2p"]))
            s["b1p"] *= s["b1"]
            s["b2p"] *= 0.999
    run_steps(opt, params, grads)
    for p, s in zip(params, state):
        np.testing.assert_allclose(p.numpy(), s["x"], rtol=1e-12)


def test_momentum_group_momentum():
    params, grads = parameters_with_grads(3, [(2,), (2,)], 3)
    opt = paddle.optimizer.Momentum(0.1, momentum=0.9, parameters=[
        {"params": [params[0]]}, {"params": [params[1]], "momentum": 0.1}])
    want, vel = [p.numpy().copy() for p in params], [0.0, 0.0]
    for step in grads:
        for i, mu in enumerate((0.9, 0.1)):
            vel[i] = mu * vel[i] + step[i]
            want[i] = want[i] - 0.1 * vel[i]
    run_steps(opt, params, grads)
    for p, w in zip(params, want):
        np.testing.assert_allclose(p.numpy(), w, rtol=1e-12)


def test_group_errors():
    params, _ = parameters_with_grads(4, [(2,), (2,)], 0)
    with pytest.raises(ValueError, match="more than one parameter group"):
        paddle.optimizer.SGD(0.1, parameters=[{"params": params}, {"params": [params[0]]}])
    with pytest.raises(ValueError, match="params should be set"):
        paddle.optimizer.SGD(0.1, parameters=[{"learning_rate": 0.1}])
    with pytest.raises(TypeError, match="set"):
        paddle.optimizer.SGD(0.1, parameters=[{"params": set(params)}])


def test_group_clip_is_per_group():
    params, grads = parameters_with_grads(5, [(2,), (2,)], 1)
    clip = paddle.nn.ClipGradByGlobalNorm(0.1)
    opt = paddle.optimizer.SGD(1.0, grad_clip=clip,
                               parameters=[{"params": [params[0]]}, {"params": [params[1]]}])
    before = [p.numpy().copy() for p in params]
    run_steps(opt, params, grads)
    for p, b, g in zip(params, before, grads[0]):
        # each group is clipped by its own norm, so each moves by exactly 0.1
        np.testing.assert_allclose(np.linalg.norm(b - p.numpy()), 0.1, rtol=1e-12)
