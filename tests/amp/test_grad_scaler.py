"""paddle.amp.GradScaler / AmpScaler: the loss scale, unscaled gradients, skipped steps on inf /
nan, and the dynamic update rule checked step by step against Paddle's formulas."""
import warnings

import numpy as np
import pytest

import dy2st as paddle
from tests.support import randn


@pytest.fixture(autouse=True)
def _float16_last():
    # GradScaler.scale reads the dtype of the last auto_cast entered (as Paddle's does): start
    # each test after a float16 one, whatever ran before in this process
    with paddle.amp.auto_cast(enable=False):
        pass


def _param_and_opt(lr=0.1):
    p = paddle.create_parameter([3], "float32")
    p.set_value(np.array([1.0, 2.0, 3.0], "float32"))
    return p, paddle.optimizer.SGD(lr, parameters=[p])


def _reference(flags, scale, incr_ratio, decr_ratio, incr_n, decr_n):
    """Paddle's rule, written out: per step (found_inf) the scale and counters after update."""
    good = bad = 0
    out = []
    for found in flags:
        if found:
            good, bad = 0, bad + 1
            if bad == decr_n:
                scale, bad = scale * decr_ratio, 0
        else:
            good, bad = good + 1, 0
            if good == incr_n:
                scale, good = scale * incr_ratio, 0
        out.append((scale, good, bad))
    return out


@pytest.mark.parametrize("incr_n, decr_n", [(2, 1), (3, 2), (1, 3)])
def test_dynamic_scale_follows_paddles_rule_step_by_step(incr_n, decr_n):
    flags = [False, False, True, False, True, True, False, False, False, True, True, True, False]
    scaler = paddle.amp.GradScaler(init_loss_scaling=1024.0, incr_ratio=2.0, decr_ratio=0.5,
                                   incr_every_n_steps=incr_n, decr_every_n_nan_or_inf=decr_n)
    p, opt = _param_and_opt()
    want = _reference(flags, 1024.0, 2.0, 0.5, incr_n, decr_n)
    for found, (scale, good, bad) in zip(flags, want):
        before = p.numpy().copy()
        loss = (p * p).sum()
        scaled = scaler.scale(loss)
        np.testing.assert_allclose(float(scaled), float(loss) * scaler._scale, rtol=1e-6)
        scaled.backward()
        if found:
            p.grad.set_value(np.array([np.inf, 1.0, np.nan], "float32"))
        scaler.step(opt)
        scaler.update()
        opt.clear_grad()
        if found:       # the step was skipped
            np.testing.assert_array_equal(p.numpy(), before)
        else:           # SGD on the unscaled gradient 2p
            np.testing.assert_allclose(p.numpy(), before - 0.1 * 2 * before, rtol=1e-5)
        assert (scaler._scale, scaler._incr_count, scaler._decr_count) == (scale, good, bad)
        np.testing.assert_allclose(scaler.get_loss_scaling().numpy(), [scale])


def test_minimize_unscales_skips_and_updates():
    scaler = paddle.amp.AmpScaler(init_loss_scaling=8.0, decr_every_n_nan_or_inf=1)
    p, opt = _param_and_opt(lr=0.5)
    scaled = scaler.scale((p * 3.0).sum())
    scaled.backward()
    np.testing.assert_allclose(p.grad.numpy(), [24.0, 24.0, 24.0])
    scaler.minimize(opt, scaled)
    np.testing.assert_allclose(p.numpy(), [1 - 1.5, 2 - 1.5, 3 - 1.5], rtol=1e-6)
    opt.clear_grad()
    scaled = scaler.scale((p * 3.0).sum())
    scaled.backward()
    p.grad.set_value(np.array([np.nan, 0, 0], "float32"))
    before = p.numpy().copy()
    scaler.minimize(opt, scaled)
    np.testing.assert_array_equal(p.numpy(), before)
    assert scaler._scale == 4.0


def test_unscale_before_clipping_and_misuse_errors():
    scaler = paddle.amp.GradScaler(init_loss_scaling=4.0)
    p, opt = _param_and_opt()
    scaler.scale((p * 2.0).sum()).backward()
    scaler.unscale_(opt)
    np.testing.assert_allclose(p.grad.numpy(), [2.0, 2.0, 2.0])
    with pytest.raises(RuntimeError, match="already been called"):
        scaler.unscale_(opt)
    scaler.step(opt)                 # not unscaled twice
    np.testing.assert_allclose(p.numpy(), [0.8, 1.8, 2.8], rtol=1e-6)
    with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
        scaler.step(opt)
    with pytest.raises(RuntimeError, match="after step"):
        scaler.unscale_(opt)
    scaler.update()
    scaler.scale((p * 2.0).sum()).backward()
    scaler.step(opt)                 # a new iteration after update()


def test_static_scaling_never_changes_the_scale():
    scaler = paddle.amp.GradScaler(init_loss_scaling=16.0, use_dynamic_loss_scaling=False)
    p, opt = _param_and_opt()
    for bad in (True, False, False):
        scaler.scale(p.sum()).backward()
        if bad:
            p.grad.set_value(np.array([np.inf, 0, 0], "float32"))
        scaler.step(opt)
        scaler.update()
        opt.clear_grad()
    assert scaler._scale == 16.0 and not scaler.is_use_dynamic_loss_scaling()


def test_disabled_scaler_passes_through():
    scaler = paddle.amp.GradScaler(enable=False)
    p, opt = _param_and_opt()
    loss = p.sum()
    assert scaler.scale(loss) is loss
    loss.backward()
    scaler.step(opt)
    scaler.update()
    np.testing.assert_allclose(p.numpy(), [0.9, 1.9, 2.9], rtol=1e-6)
    assert scaler.state_dict() == {} and not scaler.is_enable()


def test_settings_state_dict_and_validation():
    s = paddle.amp.GradScaler()
    assert (s.get_init_loss_scaling(), s.get_incr_ratio(), s.get_decr_ratio(),
            s.get_incr_every_n_steps(), s.get_decr_every_n_nan_or_inf()) == \
        (65536.0, 2.0, 0.5, 2000, 1)
    a = paddle.amp.AmpScaler()
    assert (a.get_init_loss_scaling(), a.get_incr_every_n_steps(),
            a.get_decr_every_n_nan_or_inf()) == (32768.0, 1000, 2)
    s.set_init_loss_scaling(128.0)
    s.set_incr_ratio(3.0)
    s.set_decr_ratio(0.25)
    s.set_incr_every_n_steps(5)
    s.set_decr_every_n_nan_or_inf(2)
    s._incr_count, s._decr_count = 3, 1
    state = s.state_dict()
    t = paddle.amp.GradScaler()
    t.load_state_dict(state)
    assert t.state_dict().keys() == state.keys()
    assert (t._scale, t._incr_ratio, t._decr_ratio, t._incr_every_n_steps,
            t._decr_every_n_nan_or_inf, t._incr_count, t._decr_count) == \
        (128.0, 3.0, 0.25, 5, 2, 3, 1)
    with pytest.raises(ValueError, match="incr_ratio must be > 1.0"):
        paddle.amp.GradScaler(incr_ratio=1.0)
    with pytest.raises(ValueError, match="decr_ratio must be < 1.0"):
        s.set_decr_ratio(1.5)
    with pytest.raises(RuntimeError, match="state dict is empty"):
        t.load_state_dict({})


def test_training_under_auto_cast_with_the_scaler():
    paddle.seed(0)
    net = paddle.nn.Sequential(paddle.nn.Linear(4, 16), paddle.nn.ReLU(), paddle.nn.Linear(16, 1))
    opt = paddle.optimizer.Adam(0.01, parameters=net.parameters())
    scaler = paddle.amp.GradScaler(init_loss_scaling=1024.0)
    x = paddle.to_tensor(randn(0, 32, 4))
    y = paddle.to_tensor(randn(0, 32, 4).sum(axis=1, keepdims=True))
    losses = []
    for _ in range(30):
        with paddle.amp.auto_cast():
            loss = paddle.nn.functional.mse_loss(net(x), y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        opt.clear_grad()
        losses.append(float(loss))
    assert losses[-1] < 0.5 * losses[0]


@pytest.mark.skipif(not paddle.amp.is_bfloat16_supported(),
                    reason="bfloat16 needs the optional ml_dtypes package")
def test_bfloat16_turns_dynamic_scaling_off():
    scaler = paddle.amp.GradScaler()
    loss = paddle.to_tensor(2.0)
    with paddle.amp.auto_cast(dtype="bfloat16"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert scaler.scale(loss) is loss
    assert not scaler.is_enable() and any("bfloat16" in str(w.message) for w in caught)


@pytest.mark.skipif(not paddle.amp.is_bfloat16_supported(),
                    reason="bfloat16 needs the optional ml_dtypes package")
def test_bfloat16_loss_scaled_after_its_block_turns_scaling_off_too():
    scaler = paddle.amp.GradScaler()
    p = paddle.to_tensor(np.ones(2, "float32"), stop_gradient=False)
    with paddle.amp.auto_cast(dtype="bfloat16"):
        loss = (p * 2.0).sum()
    with pytest.warns(UserWarning, match="bfloat16"):
        assert scaler.scale(loss) is loss                   # as Paddle: the last block's dtype
    assert not scaler.is_enable() and scaler.state_dict() == {}
    with paddle.amp.auto_cast(dtype="float16"):
        loss = (p * 2.0).sum()
    fresh = paddle.amp.GradScaler(init_loss_scaling=4.0)
    assert float(fresh.scale(loss)) == 16.0
