"""paddle.static's training helpers: ExponentialMovingAverage (averages updated by each run,
bias-corrected in apply(), thres_steps), WeightNormParamAttr (g and v parameters that train),
auc (global and sliding-window histograms across runs) and py_func (a Python function and its
Python backward as ops)."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st import static
from dy2st.metric import Auc

RNG = np.random.default_rng(0)
XS = RNG.standard_normal((6, 3)).astype("float32")


def _trainables(main):
    return [t for t in main.persistables.values() if getattr(t, "trainable", False)]


@pytest.mark.parametrize("thres_steps", [None, 3])
def test_ema_follows_the_parameter_trajectory(static_mode, thres_steps):
    main = static.Program()
    with static.program_guard(main):
        x = static.data("x", [None, 3], "float32")
        loss = (static.nn.fc(x, 2) ** 2).mean()
        paddle.optimizer.SGD(0.1).minimize(loss)
        ema = static.ExponentialMovingAverage(0.9, thres_steps=thres_steps)
        ema.update()
    exe = static.Executor()
    params = _trainables(main)
    decay = 0.9 if thres_steps is None else min(0.9, (1 + 3) / (10 + 3))
    averages = [np.zeros_like(p.numpy()) for p in params]
    for _ in range(3):
        exe.run(main, feed={"x": XS}, fetch_list=[loss])
        averages = [decay * a + (1 - decay) * p.numpy() for a, p in zip(averages, params)]
    trained = [p.numpy().copy() for p in params]
    with ema.apply(exe):
        for p, a in zip(params, averages):
            np.testing.assert_allclose(p.numpy(), a / (1 - decay ** 3), rtol=1e-5)
    for p, t in zip(params, trained):
        np.testing.assert_array_equal(p.numpy(), t)
    with ema.apply(exe, need_restore=False):
        pass
    assert not np.array_equal(params[0].numpy(), trained[0])
    ema.restore(exe)
    np.testing.assert_array_equal(params[0].numpy(), trained[0])


def test_ema_errors():
    with pytest.raises(ValueError, match="decay"):
        static.ExponentialMovingAverage(1.5)
    with pytest.raises(RuntimeError, match="update"):
        with static.ExponentialMovingAverage().apply():
            pass


@pytest.mark.parametrize("dim", [None, 1])
def test_weight_norm_param_attr_trains_g_and_v(static_mode, dim):
    main = static.Program()
    with static.program_guard(main):
        x = static.data("x", [None, 3], "float32")
        y = static.nn.fc(x, 2, weight_attr=static.WeightNormParamAttr(dim=dim, name="w"))
        loss = (y ** 2).mean()
        paddle.optimizer.SGD(0.1).minimize(loss)
    named = {t.name: t for t in main.persistables.values()}
    v, g = named["w_v"], named["w_g"]
    axes = (0, 1) if dim is None else (0,)
    v0, g0 = v.numpy().copy(), g.numpy().copy()
    np.testing.assert_allclose(g0, np.sqrt((v0 ** 2).sum(axis=axes)).reshape(g0.shape), rtol=1e-6)
    assert g0.shape == ((1,) if dim is None else (2,))
    out = static.Executor().run(main, feed={"x": XS}, fetch_list=[y])[0]
    w = v0 * (g0 / np.sqrt((v0 ** 2).sum(axis=axes, keepdims=True)))
    np.testing.assert_allclose(out, XS @ w, rtol=1e-5, atol=1e-6)
    assert not np.array_equal(v.numpy(), v0) and not np.array_equal(g.numpy(), g0)


def test_weight_norm_param_attr_is_static_only():
    with pytest.raises(RuntimeError, match="static-graph attribute"):
        paddle.nn.Linear(3, 2, weight_attr=static.WeightNormParamAttr())


@pytest.mark.parametrize("slide_steps", [1, 2, 0])
def test_auc_global_and_window_across_runs(static_mode, slide_steps):
    main = static.Program()
    with static.program_guard(main):
        p = static.data("p", [None, 1], "float32")
        label = static.data("label", [None, 1], "int64")
        auc, batch_auc, stats = static.auc(paddle.concat([1 - p, p], axis=1), label,
                                           num_thresholds=7, slide_steps=slide_steps)
    exe = static.Executor()
    batches = [(RNG.uniform(0, 1, (8, 1)).astype("float32"), RNG.integers(0, 2, (8, 1)))
               for _ in range(4)]
    for k, (pb, lb) in enumerate(batches):
        got, got_batch, pos = exe.run(main, feed={"p": pb, "label": lb},
                                      fetch_list=[auc, batch_auc, stats[2]])
        whole, window = Auc(num_thresholds=7), Auc(num_thresholds=7)
        for pj, lj in batches[:k + 1]:
            whole.update(pj, lj)
        for pj, lj in batches[max(0, k + 1 - slide_steps) if slide_steps else 0:k + 1]:
            window.update(pj, lj)
        assert float(got) == pytest.approx(whole.accumulate())
        assert float(got_batch) == pytest.approx(window.accumulate())
        assert int(np.asarray(pos).sum()) == int(sum((lj != 0).sum() for _, lj in batches[:k + 1]))


def test_auc_matches_paddles_recorded_values(static_mode):
    # Paddle 3.3.1 (legacy static executor) on these batches: global 1/6, 0.29365, 0.44286,
    # 0.39087 and per-batch 1/6, 0.4, 0.9, 0.21875 (num_thresholds=7, slide_steps=1)
    rng = np.random.default_rng(0)
    batches = [(rng.uniform(0, 1, (8, 1)).astype("float32"), rng.integers(0, 2, (8, 1)))
               for _ in range(4)]
    main = static.Program()
    with static.program_guard(main):
        p = static.data("p", [None, 1], "float32")
        label = static.data("label", [None, 1], "int64")
        auc, batch_auc, _ = static.auc(paddle.concat([1 - p, p], axis=1), label, num_thresholds=7)
    exe = static.Executor()
    got = [[float(v) for v in exe.run(main, feed={"p": pb, "label": lb},
                                      fetch_list=[auc, batch_auc])] for pb, lb in batches]
    np.testing.assert_allclose(got, [[1 / 6, 1 / 6], [0.2936507936507936, 0.4],
                                     [0.4428571428571429, 0.9],
                                     [0.39087301587301587, 0.21875]], rtol=1e-12)


def test_py_func_forward_and_backward(static_mode):
    calls = []

    def tanh(x):
        calls.append("f")
        return np.tanh(x)

    def tanh_grad(y, dy):
        calls.append("b")
        return dy * (1 - np.square(y))

    main = static.Program()
    with static.program_guard(main):
        x = static.data("x", [None, 3], "float32")
        x.stop_gradient = False
        hidden = static.nn.fc(x, 3)
        out = main.global_block().create_var(name="py_out", dtype="float32",
                                              shape=[-1, 3])
        static.py_func(tanh, hidden, out, backward_func=tanh_grad,
                       skip_vars_in_backward_input=hidden)
        loss = out.mean()
        grads = static.gradients([loss], [x])
    exe = static.Executor()
    got, gx = exe.run(main, feed={"x": XS}, fetch_list=[out, grads[0]])
    w, b = _trainables(main)
    h = XS @ w.numpy() + b.numpy()
    np.testing.assert_allclose(got, np.tanh(h), rtol=1e-6)
    np.testing.assert_allclose(gx, ((1 - np.tanh(h) ** 2) / h.size) @ w.numpy().T, rtol=1e-5,
                               atol=1e-7)
    assert calls == ["f", "b"]


def test_py_func_errors(static_mode):
    main = static.Program()
    with static.program_guard(main):
        x = static.data("x", [None, 3], "float32")
        out = main.global_block().create_var(name="o", dtype="float32", shape=[-1, 3])
        static.nn.py_func(lambda a: (a, a), x, out)
    with pytest.raises(ValueError, match="returned 2 value"):
        static.Executor().run(main, feed={"x": XS}, fetch_list=[out])
    paddle.disable_static()
    with pytest.raises(RuntimeError, match="program_guard"):
        static.py_func(np.tanh, paddle.ones([2]), None)
