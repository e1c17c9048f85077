"""Optimizer state: state_dict names Paddle's accumulators, and training resumed from a saved
state (set_state_dict, also through paddle.save / paddle.load) continues exactly like
uninterrupted training."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.optimizer import lr as L
from tests.support import parameters_with_grads, run_steps

OPTIMIZERS = {
    "sgd": lambda ps, lr: paddle.optimizer.SGD(lr, parameters=ps),
    "momentum": lambda ps, lr: paddle.optimizer.Momentum(lr, parameters=ps, use_nesterov=True),
    "adam": lambda ps, lr: paddle.optimizer.Adam(lr, parameters=ps, amsgrad=True),
    "adamw": lambda ps, lr: paddle.optimizer.AdamW(lr, parameters=ps),
    "rmsprop": lambda ps, lr: paddle.optimizer.RMSProp(lr, parameters=ps, centered=True,
                                                       momentum=0.5),
    "adagrad": lambda ps, lr: paddle.optimizer.Adagrad(lr, parameters=ps),
}


def _clone(params):
    from dy2st.runtime.tensor import Parameter
    return [Parameter(p.numpy().copy(), name=p.name) for p in params]


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
@pytest.mark.parametrize("through_file", [False, True])
def test_resume_equals_uninterrupted(name, through_file, tmp_path):
    make = OPTIMIZERS[name]
    params, grads = parameters_with_grads(0, [(3, 2), (2,)], 6)
    resumed = _clone(params)

    sched_a = L.StepDecay(0.1, step_size=2, gamma=0.5)
    opt_a = make(params, sched_a)
    run_steps(opt_a, params, grads, between=lambda k: sched_a.step())

    sched_b = L.StepDecay(0.1, step_size=2, gamma=0.5)
    opt_b = make(resumed, sched_b)
    run_steps(opt_b, resumed, grads[:3], between=lambda k: sched_b.step())
    state = opt_b.state_dict()
    values = [p.numpy().copy() for p in resumed]
    if through_file:
        path = str(tmp_path / "opt.pdopt")
        paddle.save(state, path)
        state = paddle.load(path)

    # a new optimizer (and scheduler) on parameters holding the values at the break
    fresh = _clone(resumed)
    for p, v in zip(fresh, values):
        p.set_value(v)
    sched_c = L.StepDecay(0.1, step_size=2, gamma=0.5)
    opt_c = make(fresh, sched_c)
    opt_c.set_state_dict(state)
    assert sched_c.last_epoch == 3 and opt_c.get_lr() == sched_b.last_lr
    run_steps(opt_c, fresh, grads[3:], between=lambda k: sched_c.step())
    for a, c in zip(params, fresh):
        np.testing.assert_array_equal(a.numpy(), c.numpy())


def test_state_dict_names_follow_paddle():
    params, grads = parameters_with_grads(1, [(2,)], 1)
    opt = paddle.optimizer.Adam(0.1, parameters=params, name="enc")
    assert opt.state_dict() == {}               # nothing is created before the first step
    run_steps(opt, params, grads)
    n = params[0].name
    assert sorted(opt.state_dict()) == sorted(
        f"{n}_enc_{a}_0" for a in ("moment1", "moment2", "beta1_pow_acc", "beta2_pow_acc"))
    sched_opt = paddle.optimizer.SGD(L.StepDecay(0.1, 1), parameters=params)
    assert sched_opt.state_dict() == {"LR_Scheduler": {"last_epoch": 0, "last_lr": 0.1}}


def test_set_state_dict_before_the_first_step_is_used_when_state_is_created():
    params, grads = parameters_with_grads(2, [(2,)], 2)
    twin = _clone(params)
    a = paddle.optimizer.Momentum(0.1, parameters=params)
    run_steps(a, params, grads[:1])
    b = paddle.optimizer.Momentum(0.1, parameters=twin)
    b.set_state_dict(a.state_dict())
    for p, v in zip(twin, params):
        p.set_value(v.numpy())
    run_steps(a, params, grads[1:])
    run_steps(b, twin, grads[1:])
    np.testing.assert_array_equal(params[0].numpy(), twin[0].numpy())


def test_set_state_dict_errors():
    params, grads = parameters_with_grads(3, [(2,)], 1)
    opt = paddle.optimizer.Adam(0.1, parameters=params)
    run_steps(opt, params, grads)
    state = opt.state_dict()
    missing = {k: v for k, v in state.items() if "moment1" not in k}
    with pytest.raises(KeyError, match="moment1"):
        opt.set_state_dict(missing)
    wrong = dict(state)
    key = next(k for k in state if "moment2" in k)
    wrong[key] = np.zeros(5)
    with pytest.raises(ValueError, match="shape"):
        opt.set_state_dict(wrong)
    sched_opt = paddle.optimizer.SGD(L.StepDecay(0.1, 1), parameters=params)
    with pytest.raises(KeyError, match="LR_Scheduler"):
        sched_opt.set_state_dict({})
