"""Adamax, Adadelta, Rprop and Lamb against numpy transcriptions of Paddle's published update
formulas, over several steps in float64; their defaults and argument checks."""
import inspect

import numpy as np
import pytest

import dy2st as paddle
from tests.support import check_update_rule, parameters_with_grads, run_steps

SHAPES = [(3, 4), (4,), ()]
STEPS = 5


def _check(opt_factory, update, state_init, seed=0, grads_fn=None):
    return check_update_rule(opt_factory, update, state_init, SHAPES, STEPS, seed, grads_fn)


@pytest.mark.parametrize("b1,b2,eps", [(0.9, 0.999, 1e-8), (0.5, 0.8, 1e-3)])
def test_adamax(b1, b2, eps):
    lr = 0.05

    def update(v, g, s, t):
        s["m"] = b1 * s["m"] + (1 - b1) * g
        s["u"] = np.maximum(b2 * s["u"] + eps, np.abs(g))
        return v - lr / (1 - b1 ** t) * s["m"] / s["u"]
    _check(lambda ps: paddle.optimizer.Adamax(lr, beta1=b1, beta2=b2, epsilon=eps, parameters=ps),
           update, lambda v: {"m": np.zeros_like(v), "u": np.zeros_like(v)})


@pytest.mark.parametrize("rho,eps", [(0.95, 1e-6), (0.5, 1e-2)])
def test_adadelta(rho, eps):
    lr = 0.7

    def update(v, g, s, t):
        s["eg"] = rho * s["eg"] + (1 - rho) * g * g
        upd = -np.sqrt((s["edx"] + eps) / (s["eg"] + eps)) * g
        s["edx"] = rho * s["edx"] + (1 - rho) * upd * upd
        return v + lr * upd
    _check(lambda ps: paddle.optimizer.Adadelta(lr, epsilon=eps, rho=rho, parameters=ps),
           update, lambda v: {"eg": np.zeros_like(v), "edx": np.zeros_like(v)})


def test_rprop_grows_shrinks_and_clamps_its_steps():
    lr, lo, hi, eta_m, eta_p = 0.01, 1e-3, 0.02, 0.5, 1.2

    def signs(grads):
        # alternate some signs so that every branch (same sign, flip, after a zeroed step) occurs
        out = []
        for k, step in enumerate(grads):
            out.append([g * (-1.0 if (k % 3 == 1) else 1.0) for g in step])
        return out

    def update(v, g, s, t):
        prod = g * s["prev"]
        s["lr"] = np.where(prod > 0, np.minimum(s["lr"] * eta_p, hi),
                           np.where(prod < 0, np.maximum(s["lr"] * eta_m, lo), s["lr"]))
        g = np.where(prod < 0, 0.0, g)
        s["prev"] = g
        return v - np.sign(g) * s["lr"]
    _check(lambda ps: paddle.optimizer.Rprop(lr, learning_rate_range=(lo, hi), parameters=ps,
                                             etas=(eta_m, eta_p)),
           update, lambda v: {"prev": np.zeros_like(v), "lr": np.full_like(v, lr)},
           grads_fn=signs)


@pytest.mark.parametrize("wd,always_adapt", [(0.01, False), (0.0, False), (0.0, True)])
def test_lamb(wd, always_adapt):
    lr, b1, b2, eps = 0.02, 0.9, 0.99, 1e-6

    def update(v, g, s, t):
        s["m"] = b1 * s["m"] + (1 - b1) * g
        s["v"] = b2 * s["v"] + (1 - b2) * g * g
        r = (s["m"] / (1 - b1 ** t)) / (np.sqrt(s["v"] / (1 - b2 ** t)) + eps) + wd * v
        ratio = 1.0
        if wd > 0 or always_adapt:
            pn, rn = np.sqrt(np.sum(v * v)), np.sqrt(np.sum(r * r))
            ratio = pn / rn if pn > 0 and rn > 0 else 1.0
        return v - lr * ratio * r
    _check(lambda ps: paddle.optimizer.Lamb(lr, lamb_weight_decay=wd, beta1=b1, beta2=b2,
                                            epsilon=eps, parameters=ps, always_adapt=always_adapt),
           update, lambda v: {"m": np.zeros_like(v), "v": np.zeros_like(v)})


def test_lamb_exclude_from_weight_decay_fn():
    params, grads = parameters_with_grads(3, [(2, 3), (3,)], 2)
    excluded = params[1].name
    opt = paddle.optimizer.Lamb(0.1, lamb_weight_decay=0.5, parameters=params,
                                exclude_from_weight_decay_fn=lambda p: p.name == excluded)
    start = params[1].numpy().copy()
    run_steps(opt, params, grads)
    ref_p = paddle.create_parameter([3], "float64",
                                    default_initializer=paddle.nn.initializer.Assign(start))
    ref = paddle.optimizer.Lamb(0.1, lamb_weight_decay=0.0, parameters=[ref_p])
    run_steps(ref, [ref_p], [[g[1]] for g in grads])
    np.testing.assert_allclose(params[1].numpy(), ref_p.numpy(), rtol=1e-12)


def test_signatures_and_defaults_are_paddles():
    o = paddle.optimizer
    want = {
        o.Adamax: [("learning_rate", 0.001), ("beta1", 0.9), ("beta2", 0.999), ("epsilon", 1e-08),
                   ("parameters", None), ("weight_decay", None), ("grad_clip", None),
                   ("name", None)],
        o.Adadelta: [("learning_rate", 0.001), ("epsilon", 1e-06), ("rho", 0.95),
                     ("parameters", None), ("weight_decay", None), ("grad_clip", None),
                     ("name", None)],
        o.Rprop: [("learning_rate", 0.001), ("learning_rate_range", (1e-5, 50)),
                  ("parameters", None), ("etas", (0.5, 1.2)), ("grad_clip", None),
                  ("multi_precision", False), ("name", None)],
        o.Lamb: [("learning_rate", 0.001), ("lamb_weight_decay", 0.01), ("beta1", 0.9),
                 ("beta2", 0.999), ("epsilon", 1e-06), ("parameters", None),
                 ("grad_clip", None), ("exclude_from_weight_decay_fn", None),
                 ("multi_precision", False), ("always_adapt", False), ("name", None)],
    }
    for cls, params in want.items():
        sig = inspect.signature(cls.__init__)
        got = [(n, p.default) for n, p in sig.parameters.items() if n != "self"]
        assert got == params, cls.__name__


@pytest.mark.parametrize("make,err", [
    (lambda ps: paddle.optimizer.Adamax(beta1=1.5, parameters=ps), "beta1"),
    (lambda ps: paddle.optimizer.Adadelta(rho=None, parameters=ps), "rho"),
    (lambda ps: paddle.optimizer.Rprop(1.0, learning_rate_range=(1e-5, 0.5), parameters=ps),
     "learning_rate_range"),
    (lambda ps: paddle.optimizer.Rprop(etas=(1.5, 1.2), parameters=ps), "etas"),
    (lambda ps: paddle.optimizer.Lamb(beta2=-0.1, parameters=ps), "beta2"),
])
def test_bad_hyper_parameters_are_refused(make, err):
    params, _ = parameters_with_grads(0, [(2,)], 1)
    with pytest.raises(ValueError, match=err):
        make(params)


@pytest.mark.parametrize("name", ["Adamax", "Adadelta", "Rprop", "Lamb"])
def test_state_dict_round_trip_continues_identically(name):
    cls = getattr(paddle.optimizer, name)
    params_a, grads = parameters_with_grads(5, [(3,)], 4)
    opt_a = cls(learning_rate=0.01, parameters=params_a)
    run_steps(opt_a, params_a, grads[:2])
    state = opt_a.state_dict()
    params_b = [paddle.create_parameter([3], "float64", default_initializer=paddle.nn.initializer
                                        .Assign(params_a[0].numpy()))]
    params_b[0].name = params_a[0].name
    opt_b = cls(learning_rate=0.01, parameters=params_b)
    opt_b.set_state_dict(state)
    run_steps(opt_a, params_a, grads[2:])
    run_steps(opt_b, params_b, grads[2:])
    np.testing.assert_allclose(params_b[0].numpy(), params_a[0].numpy(), rtol=1e-12)
