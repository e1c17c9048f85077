"""NAdam, RAdam and ASGD against numpy transcriptions of Paddle's update formulas over several
steps in float64 (both RAdam branches, ASGD's gradient table wrapping round), their defaults and
argument checks."""
import inspect

import numpy as np
import pytest

import dy2st as paddle
from tests.support import check_update_rule

SHAPES = [(3, 4), (4,), ()]
STEPS = 7


def _check(opt_factory, update, state_init, seed=0, grads_fn=None):
    return check_update_rule(opt_factory, update, state_init, SHAPES, STEPS, seed, grads_fn)


@pytest.mark.parametrize("b1,b2,eps,psi", [(0.9, 0.999, 1e-8, 0.004), (0.6, 0.8, 1e-3, 0.5)])
def test_nadam(b1, b2, eps, psi):
    lr = 0.03

    def update(x, g, s, t):
        mu = b1 * (1 - 0.5 * 0.96 ** (t * psi))
        mu_next = b1 * (1 - 0.5 * 0.96 ** ((t + 1) * psi))
        s["prod"] *= mu
        s["m"] = b1 * s["m"] + (1 - b1) * g
        s["v"] = b2 * s["v"] + (1 - b2) * g * g
        m_hat = mu_next * s["m"] / (1 - s["prod"] * mu_next) + (1 - mu) * g / (1 - s["prod"])
        v_hat = s["v"] / (1 - b2 ** t)
        return x - lr * m_hat / (np.sqrt(v_hat) + eps)
    _check(lambda ps: paddle.optimizer.NAdam(lr, b1, b2, eps, psi, parameters=ps), update,
           lambda v: {"m": np.zeros_like(v), "v": np.zeros_like(v), "prod": 1.0})


@pytest.mark.parametrize("b1,b2", [(0.9, 0.999), (0.8, 0.5)])
def test_radam(b1, b2):
    # beta2 = 0.999 and 0.5 keep rho_t <= 5 over these steps (unrectified steps);
    # test_radam_takes_both_branches uses a beta2 whose rho_t crosses 5
    lr, eps = 0.02, 1e-6
    rho_inf = 2 / (1 - b2) - 1

    def update(x, g, s, t):
        s["m"] = b1 * s["m"] + (1 - b1) * g
        s["v"] = b2 * s["v"] + (1 - b2) * g * g
        m_hat = s["m"] / (1 - b1 ** t)
        rho_t = rho_inf - 2 * t * b2 ** t / (1 - b2 ** t)
        if rho_t > 5:
            r = np.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
            return x - lr * m_hat * r * np.sqrt(1 - b2 ** t) / (np.sqrt(s["v"]) + eps)
        return x - lr * m_hat
    _check(lambda ps: paddle.optimizer.RAdam(lr, b1, b2, eps, parameters=ps), update,
           lambda v: {"m": np.zeros_like(v), "v": np.zeros_like(v)})


def test_radam_takes_both_branches():
    b2 = 0.8          # rho_inf = 9: rho_t is 1, 1.9.., then passes 5 at step 5
    rho_inf = 2 / (1 - b2) - 1
    rhos = [rho_inf - 2 * t * b2 ** t / (1 - b2 ** t) for t in range(1, STEPS + 1)]
    assert min(rhos) <= 5 < max(rhos)
    test_radam(0.9, b2)


@pytest.mark.parametrize("batch_num", [1, 3])
def test_asgd(batch_num):
    lr = 0.1

    def update(x, g, s, t):
        i = (t - 1) % batch_num
        s["d"] = s["d"] - s["y"][i] + g
        s["y"][i] = g
        return x - lr * s["d"] / min(t, batch_num)
    opt = _check(lambda ps: paddle.optimizer.ASGD(lr, batch_num, parameters=ps), update,
                 lambda v: {"d": np.zeros_like(v), "y": [np.zeros_like(v)] * batch_num})
    table = [k for k in opt.state_dict() if k.endswith("_y_0")]
    assert table and opt.state_dict()[table[0]].shape[0] == batch_num


def test_defaults_and_checks():
    assert inspect.signature(paddle.optimizer.NAdam).parameters["learning_rate"].default == 0.002
    assert inspect.signature(paddle.optimizer.NAdam).parameters["momentum_decay"].default == 0.004
    assert inspect.signature(paddle.optimizer.RAdam).parameters["learning_rate"].default == 0.001
    assert inspect.signature(paddle.optimizer.ASGD).parameters["batch_num"].default == 1
    w = paddle.create_parameter([2], "float64")
    with pytest.raises(ValueError, match="batch_num"):
        paddle.optimizer.ASGD(0.1, 0, parameters=[w])
    with pytest.raises(ValueError, match="beta1"):
        paddle.optimizer.NAdam(0.1, beta1=1.5, parameters=[w])
    with pytest.raises(ValueError, match="momentum_decay"):
        paddle.optimizer.NAdam(0.1, momentum_decay=-1.0, parameters=[w])
