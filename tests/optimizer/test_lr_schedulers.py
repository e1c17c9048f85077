"""Learning rate schedulers: values over epochs against their formulas, state_dict round trips,
and the optimizer reading the scheduler's value from its learning-rate tensor."""
import math

import numpy as np
import pytest

import dy2st as paddle
from dy2st.optimizer import lr as L
from tests.support import parameters_with_grads, run_steps

EPOCHS = 12


def _values(sched, n=EPOCHS):
    out = [sched()]
    for _ in range(n - 1):
        sched.step()
        out.append(sched.last_lr)
    return out


CASES = {
    "step": (lambda: L.StepDecay(0.5, step_size=3, gamma=0.2),
             lambda e: 0.5 * 0.2 ** (e // 3)),
    "multistep": (lambda: L.MultiStepDecay(0.5, milestones=[2, 5, 9], gamma=0.5),
                  lambda e: 0.5 * 0.5 ** sum(e >= m for m in (2, 5, 9))),
    "exponential": (lambda: L.ExponentialDecay(0.5, gamma=0.8), lambda e: 0.5 * 0.8 ** e),
    "natural_exp": (lambda: L.NaturalExpDecay(0.5, gamma=0.3), lambda e: 0.5 * math.exp(-0.3 * e)),
    "inverse_time": (lambda: L.InverseTimeDecay(0.5, gamma=0.3), lambda e: 0.5 / (1 + 0.3 * e)),
    "piecewise": (lambda: L.PiecewiseDecay([3, 6], [1.0, 0.5, 0.1]),
                  lambda e: 1.0 if e < 3 else 0.5 if e < 6 else 0.1),
    "polynomial": (lambda: L.PolynomialDecay(0.5, decay_steps=8, end_lr=0.01, power=2.0),
                   lambda e: (0.5 - 0.01) * (1 - min(e, 8) / 8) ** 2 + 0.01),
    "polynomial_cycle": (lambda: L.PolynomialDecay(0.5, decay_steps=4, end_lr=0.0, cycle=True),
                         lambda e: 0.5 * (1 - e / (4 * max(1, math.ceil(e / 4))))),
    "lambda": (lambda: L.LambdaDecay(0.5, lambda e: 0.9 ** e), lambda e: 0.5 * 0.9 ** e),
    "multiplicative": (lambda: L.MultiplicativeDecay(0.5, lambda e: 0.9),
                       lambda e: 0.5 * 0.9 ** e),
    "noam": (lambda: L.NoamDecay(d_model=16, warmup_steps=4, learning_rate=2.0),
             lambda e: 2.0 * 16 ** -0.5 * min(1 if e == 0 else e ** -0.5, e * 4 ** -1.5)),
    "cosine": (lambda: L.CosineAnnealingDecay(0.5, T_max=5, eta_min=0.01),
               lambda e: 0.01 + (0.5 - 0.01) * (1 + math.cos(math.pi * e / 5)) / 2),
    "linear_warmup": (lambda: L.LinearWarmup(0.5, warmup_steps=4, start_lr=0.0, end_lr=0.5),
                      lambda e: 0.5 * e / 4 if e < 4 else 0.5),
    "linear_warmup_sched": (
        lambda: L.LinearWarmup(L.StepDecay(0.5, 2, 0.5), warmup_steps=3, start_lr=0.1,
                               end_lr=0.5),
        lambda e: 0.1 + 0.4 * e / 3 if e < 3 else 0.5 * 0.5 ** ((e - 3) // 2)),
    "warm_restarts": (lambda: L.CosineAnnealingWarmRestarts(0.5, T_0=3, T_mult=2, eta_min=0.0),
                      lambda e: 0.25 * (1 + math.cos(math.pi * _t_cur(e, 3, 2)[0]
                                                      / _t_cur(e, 3, 2)[1]))),
    "linear_lr": (lambda: L.LinearLR(0.5, total_steps=4, start_factor=0.25, end_factor=1.0),
                  lambda e: 0.5 * (0.25 + 0.75 * min(e, 4) / 4)),
    "cyclic": (lambda: L.CyclicLR(0.1, 0.5, step_size_up=2, step_size_down=3),
               lambda e: 0.1 + 0.4 * _triangle(e % 5, 2, 3)),
}


def _t_cur(e, t0, mult):
    ti, t = t0, e
    while t >= ti:
        t -= ti
        ti *= mult
    return t, ti


def _triangle(pos, up, down):
    return pos / up if pos <= up else (up + down - pos) / down


@pytest.mark.parametrize("name", sorted(CASES))
def test_schedule_values(name):
    make, formula = CASES[name]
    got = _values(make())
    np.testing.assert_allclose(got, [formula(e) for e in range(EPOCHS)], rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("three_phase", [False, True])
@pytest.mark.parametrize("anneal", ["cos", "linear"])
def test_one_cycle(three_phase, anneal):
    total, peak, pct = 20, 1.0, 0.3
    init, end = peak / 25.0, 1e-4
    sched = L.OneCycleLR(peak, total_steps=total, phase_pct=pct, anneal_strategy=anneal,
                         three_phase=three_phase)
    got = _values(sched, total)

    def ann(a, b, t):
        return b + (a - b) / 2 * (math.cos(math.pi * t) + 1) if anneal == "cos" \
            else (b - a) * t + a
    up_end = pct * total - 1
    for e, g in enumerate(got):
        if e <= up_end:
            want = ann(init, peak, e / up_end)
        elif three_phase and e <= 2 * pct * total - 2:
            want = ann(peak, init, (e - up_end) / (pct * total - 1))
        elif three_phase:
            start = 2 * pct * total - 2
            want = ann(init, end, (e - start) / (total - 1 - start))
        else:
            want = ann(peak, end, (e - up_end) / (total - 1 - up_end))
        assert g == pytest.approx(want, rel=1e-12), e
    assert got[0] == pytest.approx(init) and max(got) == pytest.approx(peak, rel=1e-2)


def test_cosine_closed_form_when_given_an_epoch():
    sched = L.CosineAnnealingDecay(0.5, T_max=5)
    sched.step(7)
    assert sched.last_epoch == 7
    assert sched() == pytest.approx(0.25 * (1 + math.cos(math.pi * 7 / 5)))


def test_reduce_on_plateau():
    sched = L.ReduceOnPlateau(1.0, factor=0.5, patience=2, cooldown=1, threshold=0.1)
    # improvements (relative threshold 10%) reset the count; then 3 bad epochs halve the lr,
    # the next epoch is cooldown, and 3 more bad epochs halve it again
    lrs = []
    for metric in [10, 8, 7.5, 7.4, 7.3, 7.2, 7.1, 7.0, 6.9, 6.8]:
        sched.step(metric)
        lrs.append(sched())
    assert lrs == [1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.5, 0.5, 0.25]
    assert sched.last_epoch == 10
    sched.step(paddle.to_tensor(np.array([0.1])))        # tensors of one element are accepted
    with pytest.raises(ValueError, match="shape"):
        sched.step(np.array([1.0, 2.0]))
    with pytest.raises(TypeError, match="metrics"):
        sched.step("low")


def test_reduce_on_plateau_max_mode_abs_threshold_and_min_lr():
    sched = L.ReduceOnPlateau(1.0, mode="max", threshold_mode="abs", threshold=0.5,
                              patience=0, factor=0.1, min_lr=0.05)
    for metric in [1.0, 1.4, 1.3]:     # 1.4 is not better than 1.0 + 0.5
        sched.step(metric)
    assert sched() == pytest.approx(0.05)   # 1.0 -> 0.1 -> clipped at min_lr 0.05


@pytest.mark.parametrize("name", sorted(CASES))
def test_state_dict_round_trip_continues_the_same_schedule(name):
    make, _ = CASES[name]
    a = make()
    for _ in range(4):
        a.step()
    b = make()
    b.set_state_dict(a.state_dict())
    assert _values(a, 6) == pytest.approx(_values(b, 6), rel=1e-12)


def test_reduce_on_plateau_state_round_trip():
    a = L.ReduceOnPlateau(1.0, patience=1)
    for m in [3, 4, 5]:
        a.step(m)
    b = L.ReduceOnPlateau(1.0, patience=1)
    b.set_state_dict(a.state_dict())
    assert (b.best, b.num_bad_epochs, b.last_lr, b.last_epoch) == (3.0, 0, 0.1, 3)
    with pytest.raises(RuntimeError, match="cooldown_counter"):
        b.set_state_dict({"last_epoch": 1, "last_lr": 0.1})


def test_bad_scheduler_arguments():
    with pytest.raises(ValueError, match="gamma"):
        L.StepDecay(0.1, step_size=2, gamma=1.5)
    with pytest.raises(TypeError, match="step_size"):
        L.StepDecay(0.1, step_size=2.5)
    with pytest.raises(ValueError, match="incremented"):
        L.MultiStepDecay(0.1, milestones=[3, 2])
    with pytest.raises(ValueError, match="end_lr"):
        L.LinearWarmup(0.1, warmup_steps=2, start_lr=0.5, end_lr=0.1)
    with pytest.raises(TypeError, match="learning rate"):
        L.ExponentialDecay("0.1", gamma=0.5)
    with pytest.raises(ValueError, match="total steps"):
        s = L.OneCycleLR(1.0, total_steps=2)
        for _ in range(3):
            s.step()


# ----------------------------------------------------------------------------- with optimizers
def test_optimizer_reads_the_scheduler_every_step():
    params, grads = parameters_with_grads(0, [(3,)], 5)
    sched = L.ExponentialDecay(0.5, gamma=0.5)
    opt = paddle.optimizer.SGD(sched, parameters=params)
    want = params[0].numpy().copy()
    for k, step in enumerate(grads):
        want = want - 0.5 * 0.5 ** k * step[0]
    seen = []
    run_steps(opt, params, grads, between=lambda k: (seen.append(opt.get_lr()), sched.step()))
    np.testing.assert_allclose(params[0].numpy(), want, rtol=1e-12)
    assert seen == pytest.approx([0.5 * 0.5 ** k for k in range(5)])
    assert float(opt._lr_tensor) == pytest.approx(0.5 ** 6)


def test_set_lr_and_get_lr():
    params, grads = parameters_with_grads(1, [(2,)], 2)
    opt = paddle.optimizer.SGD(0.1, parameters=params)
    assert opt.get_lr() == 0.1
    opt.set_lr(0.3)
    assert opt.get_lr() == 0.3
    before = params[0].numpy().copy()
    run_steps(opt, params, grads[:1])
    np.testing.assert_allclose(params[0].numpy(), before - 0.3 * grads[0][0], rtol=1e-12)
    with pytest.raises(TypeError, match="float"):
        opt.set_lr("big")
    sched_opt = paddle.optimizer.SGD(L.StepDecay(0.1, 1), parameters=params)
    with pytest.raises(RuntimeError, match="LRScheduler"):
        sched_opt.set_lr(0.2)


def test_set_lr_scheduler_switches_the_source():
    params, _ = parameters_with_grads(2, [(2,)], 0)
    opt = paddle.optimizer.Adam(0.1, parameters=params)
    sched = L.StepDecay(0.5, step_size=1, gamma=0.1)
    opt.set_lr_scheduler(sched)
    assert opt.get_lr() == 0.5 and float(opt._lr_tensor) == 0.5
    sched.step()
    assert float(opt._lr_tensor) == pytest.approx(0.05)


def test_scheduler_step_while_tracing_is_refused():
    sched = L.StepDecay(0.5, step_size=1)
    params, _ = parameters_with_grads(3, [(2,)], 0)
    # held: a scheduler whose optimizer is gone drives nothing and may step anywhere, so an
    # unnamed optimizer made the outcome depend on when the garbage collector ran
    opt = paddle.optimizer.SGD(sched, parameters=params)
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        with pytest.raises(RuntimeError, match="outside the converted function"):
            sched.step()
    assert sched.last_epoch == 0
    assert opt.get_lr() == 0.5


def test_scheduler_built_inside_program_guard_as_in_paddle_static_code():
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        sched = L.NoamDecay(d_model=16, warmup_steps=4)
    assert sched.last_epoch == 0
    params, _ = parameters_with_grads(4, [(2,)], 0)
    opt = paddle.optimizer.SGD(sched, parameters=params)
    sched.step()                        # between runs, outside the guard
    assert float(opt._lr_tensor) == pytest.approx(sched.last_lr)
