"""Every optimizer and option against a numpy transcription of Paddle's update formula (the phi
kernels), over several steps, in float64 so that the comparison is tight."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.regularizer import L1Decay, L2Decay
from tests.support import parameters_with_grads, run_steps

SHAPES = [(3, 4), (4,), ()]
STEPS = 4


def _reference(update, params, grads, state_init):
    """Apply `update(p, g, state) -> p` (numpy) step by step to copies of the parameters."""
    values = [p.numpy().copy() for p in params]
    states = [state_init(v) for v in values]
    for step in grads:
        values = [update(v, g, s) for v, g, s in zip(values, step, states)]
    return values


def _check(opt_factory, update, state_init=lambda v: {}, seed=0):
    params, grads = parameters_with_grads(seed, SHAPES, STEPS)
    want = _reference(update, params, grads, state_init)
    opt = opt_factory(params)
    run_steps(opt, params, grads)
    for p, w in zip(params, want):
        np.testing.assert_allclose(p.numpy(), w, rtol=1e-12, atol=1e-14)
    return params, opt


# --------------------------------------------------------------------------------------- SGD
@pytest.mark.parametrize("decay", [None, 0.1, L2Decay(0.05), L1Decay(0.03)])
def test_sgd(decay):
    def term(v):
        if decay is None:
            return 0.0
        if isinstance(decay, L1Decay):
            return decay.coeff * np.sign(v)
        return (decay if isinstance(decay, float) else decay.coeff) * v

    def update(v, g, s):
        return v - 0.2 * (g + term(v))
    _check(lambda ps: paddle.optimizer.SGD(0.2, parameters=ps, weight_decay=decay), update)


def test_sgd_parameters_are_updated_in_place_objects():
    params, grads = parameters_with_grads(1, [(2, 2)], 1)
    ident = id(params[0])
    run_steps(paddle.optimizer.SGD(0.1, parameters=params), params, grads)
    assert id(params[0]) == ident and isinstance(params[0], paddle.Parameter)


# --------------------------------------------------------------------------------------- Momentum
@pytest.mark.parametrize("nesterov", [False, True])
@pytest.mark.parametrize("decay", [None, 0.01, L1Decay(0.02)])
@pytest.mark.parametrize("rescale", [1.0, 0.5])
def test_momentum(nesterov, decay, rescale):
    lr, mu = 0.1, 0.8

    def update(v, g, s):
        if isinstance(decay, L1Decay):
            g = g + decay.coeff * np.sign(v)     # added to the raw gradient, then rescaled
        g = g * rescale
        if isinstance(decay, float):
            g = g + decay * v                    # L2: folded into the kernel after rescale
        s["vel"] = s["vel"] * mu + g
        return v - (g + mu * s["vel"]) * lr if nesterov else v - lr * s["vel"]

    _check(lambda ps: paddle.optimizer.Momentum(lr, mu, parameters=ps, use_nesterov=nesterov,
                                                weight_decay=decay, rescale_grad=rescale),
           update, lambda v: {"vel": np.zeros_like(v)})


def test_momentum_defaults_match_paddle():
    params, _ = parameters_with_grads(2, [(2,)], 0)
    opt = paddle.optimizer.Momentum(parameters=params)
    assert opt.get_lr() == 0.001 and opt._momentum == 0.9 and opt._use_nesterov is False


# --------------------------------------------------------------------------------------- Adam
def _adam_update(lr, b1, b2, eps, decoupled=0.0, coupled=0.0, amsgrad=False, decay_mask=None):
    def update(v, g, s):
        g = g + coupled * v
        start = v
        if decoupled and (decay_mask is None or decay_mask(v)):
            start = v - lr * decoupled * v
        s["m"] = b1 * s["m"] + (1 - b1) * g
        s["v"] = b2 * s["v"] + (1 - b2) * g * g
        second = s["v"]
        if amsgrad:
            s["vmax"] = np.maximum(s["vmax"], s["v"])
            second = s["vmax"]
        lr_t = lr * np.sqrt(1 - s["b2p"]) / (1 - s["b1p"])
        out = start - lr_t * (s["m"] / (np.sqrt(second) + eps * np.sqrt(1 - s["b2p"])))
        s["b1p"] *= b1
        s["b2p"] *= b2
        return out

    def init(v):
        # Paddle's beta power accumulators start at beta, not at 1
        return {"m": np.zeros_like(v), "v": np.zeros_like(v), "vmax": np.zeros_like(v),
                "b1p": b1, "b2p": b2}
    return update, init


@pytest.mark.parametrize("kw", [{}, {"beta1": 0.8, "beta2": 0.99, "epsilon": 1e-3},
                                {"amsgrad": True}, {"weight_decay": 0.01}])
def test_adam(kw):
    b1, b2, eps = kw.get("beta1", 0.9), kw.get("beta2", 0.999), kw.get("epsilon", 1e-8)
    update, init = _adam_update(0.05, b1, b2, eps, coupled=kw.get("weight_decay", 0.0),
                                amsgrad=kw.get("amsgrad", False))
    params, opt = _check(lambda ps: paddle.optimizer.Adam(0.05, parameters=ps, **kw),
                         update, init)
    b1p = opt.state_dict()[f"{params[0].name}_beta1_pow_acc_0"]
    np.testing.assert_allclose(b1p.numpy(), [b1 ** (STEPS + 1)])


def test_adam_betas_given_as_tensors_are_read_at_run_time():
    update, init = _adam_update(0.05, 0.7, 0.95, 1e-8)
    params, grads = parameters_with_grads(3, SHAPES, STEPS)
    b1 = paddle.to_tensor(np.array([0.7]))
    b2 = paddle.to_tensor(np.array([0.95]))

    def init_tensor_betas(v):
        s = init(v)
        s["b1p"], s["b2p"] = 0.9, 0.999     # Paddle starts the powers at its defaults then
        return s
    want = _reference(update, params, grads, init_tensor_betas)
    opt = paddle.optimizer.Adam(0.05, beta1=b1, beta2=b2, parameters=params)
    run_steps(opt, params, grads)
    for p, w in zip(params, want):
        np.testing.assert_allclose(p.numpy(), w, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("coeff", [0.01, 0.3])
def test_adamw_decoupled_decay(coeff):
    update, init = _adam_update(0.05, 0.9, 0.999, 1e-8, decoupled=coeff)
    _check(lambda ps: paddle.optimizer.AdamW(0.05, parameters=ps, weight_decay=coeff),
           update, init)


def test_adamw_apply_decay_param_fun_and_lr_ratio():
    params, grads = parameters_with_grads(4, [(3,), (2, 2)], STEPS)
    decayed = params[1].name
    upd_decay, init = _adam_update(0.05 * 0.5, 0.9, 0.999, 1e-8, decoupled=0.1)
    upd_plain, _ = _adam_update(0.05 * 0.5, 0.9, 0.999, 1e-8)
    want = [_reference(upd_plain, [params[0]], [[g[0]] for g in grads], init)[0],
            _reference(upd_decay, [params[1]], [[g[1]] for g in grads], init)[0]]
    opt = paddle.optimizer.AdamW(0.05, parameters=params, weight_decay=0.1,
                                 apply_decay_param_fun=lambda n: n == decayed,
                                 lr_ratio=lambda p: 0.5)
    run_steps(opt, params, grads)
    for p, w in zip(params, want):
        np.testing.assert_allclose(p.numpy(), w, rtol=1e-12)


def test_adam_and_adamw_defaults_match_paddle():
    params, _ = parameters_with_grads(5, [(2,)], 0)
    adam = paddle.optimizer.Adam(parameters=params)
    adamw = paddle.optimizer.AdamW(parameters=params)
    assert (adam.get_lr(), adam._beta1, adam._beta2, adam._epsilon) == (0.001, 0.9, 0.999, 1e-8)
    assert adamw._weight_decay == 0.01 and adamw.regularization is None


@pytest.mark.parametrize("bad", [{"beta1": 1.0}, {"beta2": -0.1}, {"epsilon": -1.0}])
def test_adam_rejects_bad_hyper_parameters(bad):
    params, _ = parameters_with_grads(6, [(2,)], 0)
    with pytest.raises(ValueError, match=next(iter(bad))):
        paddle.optimizer.Adam(parameters=params, **bad)


# --------------------------------------------------------------------------------------- RMSProp
@pytest.mark.parametrize("centered", [False, True])
@pytest.mark.parametrize("momentum", [0.0, 0.7])
def test_rmsprop(centered, momentum):
    lr, rho, eps = 0.01, 0.9, 1e-6

    def update(v, g, s):
        s["ms"] = rho * s["ms"] + (1 - rho) * g * g
        if centered:
            s["mg"] = rho * s["mg"] + (1 - rho) * g
            denom = np.sqrt(s["ms"] - s["mg"] ** 2 + eps)
        else:
            denom = np.sqrt(s["ms"] + eps)
        s["mom"] = momentum * s["mom"] + lr * g / denom
        return v - s["mom"]
    _check(lambda ps: paddle.optimizer.RMSProp(lr, rho=rho, epsilon=eps, momentum=momentum,
                                               centered=centered, parameters=ps),
           update, lambda v: {"ms": np.zeros_like(v), "mg": np.zeros_like(v),
                              "mom": np.zeros_like(v)})


# --------------------------------------------------------------------------------------- Adagrad
@pytest.mark.parametrize("init_value", [0.0, 0.1])
def test_adagrad(init_value):
    lr, eps = 0.1, 1e-6

    def update(v, g, s):
        s["mom"] = s["mom"] + g * g
        return v - lr * g / (np.sqrt(s["mom"]) + eps)
    _check(lambda ps: paddle.optimizer.Adagrad(lr, epsilon=eps, parameters=ps,
                                               initial_accumulator_value=init_value),
           update, lambda v: {"mom": np.full_like(v, init_value)})


# --------------------------------------------------------------------------------------- common
def test_parameters_without_gradient_or_frozen_are_left_alone():
    params, grads = parameters_with_grads(7, [(2,), (3,)], 1)
    before = [p.numpy().copy() for p in params]
    params[1].stop_gradient = True
    params[0].grad = paddle.to_tensor(grads[0][0])
    opt = paddle.optimizer.Adam(0.1, parameters=params)
    opt.step()
    assert not np.allclose(params[0].numpy(), before[0])
    np.testing.assert_array_equal(params[1].numpy(), before[1])
    assert not any(params[1].name in k for k in opt.state_dict())


def test_clear_grad_zeroes_or_drops():
    params, grads = parameters_with_grads(8, [(2,)], 1)
    params[0].grad = paddle.to_tensor(grads[0][0])
    opt = paddle.optimizer.SGD(0.1, parameters=params)
    opt.clear_grad()
    np.testing.assert_array_equal(params[0].grad.numpy(), np.zeros(2))
    opt.clear_grad(set_to_zero=False)
    assert params[0].grad is None
    opt.clear_gradients()          # Paddle's alias


def test_minimize_uses_the_gradients_backward_left():
    paddle.seed(3)
    lin = paddle.nn.Linear(3, 2)
    x = paddle.to_tensor(np.ones((4, 3), "float32"))
    loss = paddle.mean(lin(x))
    loss.backward()
    w_before = lin.weight.numpy().copy()
    grad = lin.weight.grad.numpy().copy()
    ops, params_grads = paddle.optimizer.SGD(0.5, parameters=lin.parameters()).minimize(loss)
    assert ops == [] and {id(p) for p, _ in params_grads} == {id(lin.weight), id(lin.bias)}
    np.testing.assert_allclose(lin.weight.numpy(), w_before - 0.5 * grad, rtol=1e-6)


@pytest.mark.parametrize("bad, err", [
    (lambda ps: paddle.optimizer.SGD(0.1, parameters=ps[0]), TypeError),
    (lambda ps: paddle.optimizer.SGD(0.1, parameters=None), AttributeError),
    (lambda ps: paddle.optimizer.SGD("0.1", parameters=ps), TypeError),
    (lambda ps: paddle.optimizer.SGD(0.1, parameters=ps, grad_clip=1.0), TypeError),
    (lambda ps: paddle.optimizer.SGD(0.1, parameters=ps, weight_decay="l2"), TypeError),
    (lambda ps: paddle.optimizer.SGD(0.1, parameters={"params": ps}), TypeError),
])
def test_bad_arguments_are_refused(bad, err):
    params, _ = parameters_with_grads(9, [(2,)], 0)
    with pytest.raises(err):
        bad(params)


def test_parameters_may_be_omitted_only_while_a_program_is_built():
    with pytest.raises(AttributeError, match="should not be None"):
        paddle.optimizer.Adam(0.1)
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        opt = paddle.optimizer.Adam(0.1)        # Paddle's static style: minimize(loss) later
    assert opt._parameter_list == [] and opt.get_lr() == 0.1
