"""paddle.static.amp: the lists (Paddle 3.3.1's sets, custom updates, errors), decorate's two
signatures and defaults, the casts its minimize puts into a Program (O1, O2, OD, custom lists,
black variable names, fp16_guard), the loss scaling against Paddle's update rule (and Paddle's
own kernel when installed), skipped updates on overflow, and training close to float32."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.runtime.dtype import dtype_name
from dy2st.static import amp


def build(make_opt, guard=False):
    """A 2-layer net, its loss and the decorated optimizer's minimize in a fresh program."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    startup.random_seed = 1
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 4], "float32")
        h = paddle.static.nn.fc(x, 8)
        if guard:
            with amp.fp16_guard():
                out = paddle.static.nn.fc(paddle.nn.functional.relu(h), 2)
        else:
            out = paddle.static.nn.fc(paddle.nn.functional.relu(h), 2)
        loss = paddle.mean(out * out)
        opt = make_opt()
        opt.minimize(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    return main, exe, loss, opt


def dtypes_of(main, op_type):
    block = main.global_block()
    return [dtype_name(block.vars[op.outputs[0]].dtype) for op in block.ops if op.type == op_type]


def test_the_lists_are_paddles_and_custom_lists_move_ops(static_mode):
    lists = amp.AutoMixedPrecisionLists()
    assert {"matmul_v2", "conv2d", "resnet_unit"} <= lists.white_list
    assert {"softmax", "reduce_mean", "lookup_table_v2"} <= lists.black_list
    assert {"relu", "elementwise_add"} <= lists.gray_list and lists.black_varnames is None
    moved = amp.CustomOpLists(custom_white_list=["tanh", "softmax"],
                              custom_black_list=["matmul_v2"], custom_black_varnames=["x"])
    assert {"tanh", "softmax"} <= moved.white_list and "softmax" not in moved.black_list
    assert "tanh" not in moved.gray_list and "matmul_v2" in moved.black_list
    assert "matmul_v2" not in moved.white_list and moved.black_varnames == {"x"}
    with pytest.raises(ValueError, match="overlaps custom_black_list with < a >"):
        amp.AutoMixedPrecisionLists(custom_white_list=["a"], custom_black_list=["a"])
    with pytest.raises(ValueError, match="dtype should be 'float16' or 'bfloat16'"):
        amp.AutoMixedPrecisionLists(dtype="float32")
    bf = amp.bf16.AutoMixedPrecisionListsBF16(custom_fp32_list=["relu"])
    assert "relu" in bf.fp32_list and "layer_norm" in bf.gray_list and "matmul" in bf.bf16_list


def test_the_lists_equal_paddle_331s():
    ref = pytest.importorskip("paddle").static.amp
    for dtype in ("float16", "bfloat16"):
        ours, theirs = amp.AutoMixedPrecisionLists(dtype=dtype), ref.AutoMixedPrecisionLists(dtype=dtype)
        assert (ours.white_list, ours.black_list, ours.gray_list) == \
            (theirs.white_list, theirs.black_list, theirs.gray_list)
    ours, theirs = amp.bf16.AutoMixedPrecisionListsBF16(), ref.bf16.AutoMixedPrecisionListsBF16()
    assert (ours.bf16_list, ours.fp32_list, ours.gray_list) == \
        (theirs.bf16_list, theirs.fp32_list, theirs.gray_list)


def test_decorate_takes_both_of_paddles_signatures(static_mode):
    sgd = paddle.optimizer.SGD(0.1)
    common = amp.decorate(sgd)
    assert (common._amp_level, common._amp_dtype, common._init_loss_scaling,
            common._incr_every_n_steps, common._decr_every_n_nan_or_inf, common._decr_ratio,
            common._use_dynamic_loss_scaling) == ("O1", "float16", 2.0 ** 16, 2000, 1, 0.5, True)
    assert amp.decorate(sgd, level="O2", dtype="bfloat16")._use_dynamic_loss_scaling is False
    old = amp.decorate(sgd, None, 128.0)                  # a float third argument: the old one
    assert (old._init_loss_scaling, old._incr_every_n_steps, old._decr_every_n_nan_or_inf,
            old._decr_ratio) == (128.0, 1000, 2, 0.8)
    pure = amp.decorate(sgd, use_pure_fp16=True)
    assert (pure._amp_level, pure._use_amp_guard) == ("O2", True)
    assert amp.decorate(sgd, use_bf16=True)._amp_dtype == "bfloat16"
    with pytest.raises(TypeError, match="unexpected keyword"):
        amp.decorate(sgd, use_pure_fp16=True, level="O2")
    with pytest.raises(ValueError, match="level must be one of"):
        amp.decorate(sgd, level="O3")
    assert common.get_lr() == 0.1                          # the wrapped optimizer's methods


def test_minimize_casts_the_forward_as_the_lists_say(static_mode):
    sgd = lambda: paddle.optimizer.SGD(0.1)  # noqa: E731
    main = build(lambda: amp.decorate(sgd()))[0]
    assert dtypes_of(main, "matmul")[:2] == ["float16", "float16"]          # white
    assert dtypes_of(main, "mean")[0] == "float32"                          # black
    assert dtypes_of(main, "relu")[0] == "float32"      # gray: fc's bias add promoted it
    black = amp.AutoMixedPrecisionLists(custom_black_list=["matmul_v2"])
    main = build(lambda: amp.decorate(sgd(), black))[0]
    assert "float16" not in dtypes_of(main, "matmul")
    main = build(lambda: amp.decorate(sgd(), amp.AutoMixedPrecisionLists(
        custom_black_varnames=["x"])))[0]
    assert dtypes_of(main, "matmul")[:2] == ["float32", "float16"]    # the op reading x: fp32
    main = build(lambda: amp.decorate(sgd(), level="O2"))[0]
    assert dtypes_of(main, "relu")[0] == "float16" and dtypes_of(main, "mean")[0] == "float32"
    main = build(lambda: amp.decorate(sgd(), level="O2", use_amp_guard=True), guard=True)[0]
    assert dtypes_of(main, "matmul")[:2] == ["float32", "float16"]    # only the guarded fc
    main = build(lambda: amp.decorate(sgd(), level="OD"))[0]
    assert dtypes_of(main, "matmul")[0] == "float16" and dtypes_of(main, "relu")[0] == "float32"


def paddle_rule(found, scale, good, bad, incr_n, decr_n, incr_ratio, decr_ratio):
    """Paddle's update_loss_scaling, step by step."""
    if found:
        good, bad = 0, bad + 1
        if bad == decr_n:
            scale, bad = max(scale * decr_ratio, 1.0), 0
    else:
        good, bad = good + 1, 0
        if good == incr_n:
            new = scale * incr_ratio
            scale, good = (new if new <= float(np.finfo(np.float32).max) else scale), 0
    return scale, good, bad


def test_loss_scaling_follows_paddles_rule_and_overflows_skip_the_update(static_mode):
    main, exe, loss, opt = build(lambda: amp.decorate(
        paddle.optimizer.SGD(0.1), init_loss_scaling=4.0, incr_every_n_steps=2,
        decr_every_n_nan_or_inf=2, decr_ratio=0.25))
    params = main.all_parameters()
    state = (4.0, 0, 0)
    feeds = [1, 1, np.inf, np.nan, np.inf, 1, np.inf, np.inf, 1, 1]
    scales = []
    for value in feeds:
        x = np.full((3, 4), value, "float32")
        before = [p.numpy().copy() for p in params]
        exe.run(main, feed={"x": x}, fetch_list=[loss])
        state = paddle_rule(not np.isfinite(value), *state, 2, 2, 2.0, 0.25)
        got = (float(opt.get_loss_scaling().numpy()[0]), int(opt._num_good_steps.numpy()[0]),
               int(opt._num_bad_steps.numpy()[0]))
        assert got == state, (value, got, state)
        changed = any(not np.array_equal(b, p.numpy()) for b, p in zip(before, params))
        assert changed == bool(np.isfinite(value)), value
        scales.append(got[0])
    # up after 2 clean steps, down after 2 overflows (4 * 0.25 ... clamped at 1), up again
    assert scales == [4.0, 8.0, 8.0, 2.0, 2.0, 2.0, 2.0, 1.0, 1.0, 2.0]


def test_the_rule_is_paddles_kernel():
    ref = pytest.importorskip("paddle")
    for found, scale, good, bad in [(True, 1.5, 4, 1), (True, 8.0, 4, 0), (False, 8.0, 2, 1),
                                    (False, 3e38, 2, 1), (False, 8.0, 0, 1)]:
        s = ref.to_tensor([scale], "float32")
        g, b = ref.to_tensor([good], "int32"), ref.to_tensor([bad], "int32")
        ref._C_ops.update_loss_scaling_([ref.to_tensor([1.0])], ref.to_tensor([found]), s, g, b,
                                        3, 2, 2.0, 0.5, False)
        want = paddle_rule(found, scale, good, bad, 3, 2, 2.0, 0.5)
        assert (float(s.numpy()[0]), int(g.numpy()[0]), int(b.numpy()[0])) == \
            (pytest.approx(want[0]), want[1], want[2])


def test_mixed_precision_training_stays_close_to_float32(static_mode):
    rng = np.random.default_rng(0)
    data = [rng.standard_normal((6, 4)).astype("float32") for _ in range(3)]

    def train(make_opt):
        main, exe, loss, _ = build(make_opt)
        losses = [exe.run(main, feed={"x": x}, fetch_list=[loss])[0] for x in data]
        return np.array(losses), [p.numpy().copy() for p in main.all_parameters()]

    plain_losses, plain = train(lambda: paddle.optimizer.SGD(0.05))
    mixed_losses, mixed = train(lambda: amp.decorate(paddle.optimizer.SGD(0.05)))
    np.testing.assert_allclose(mixed_losses, plain_losses, rtol=2e-2, atol=1e-3)
    for a, b in zip(mixed, plain):
        assert a.dtype == np.float32          # the parameters stay float32 masters
        np.testing.assert_allclose(a, b, rtol=2e-2, atol=2e-3)


def test_bf16_decorate_and_eager_misuse(static_mode):
    if not paddle.amp.is_bfloat16_supported():
        pytest.skip("bfloat16 needs ml_dtypes")
    main, exe, loss, opt = build(lambda: amp.bf16.decorate_bf16(paddle.optimizer.SGD(0.1)))
    assert "bfloat16" in dtypes_of(main, "matmul")
    exe.run(main, feed={"x": np.ones((2, 4), "float32")}, fetch_list=[loss])
    assert float(opt.get_loss_scaling().numpy()[0]) == 1.0


def test_minimize_of_an_eager_loss_says_what_to_use():
    opt = amp.decorate(paddle.optimizer.SGD(0.1, parameters=paddle.nn.Linear(2, 2).parameters()))
    with pytest.raises(TypeError, match="paddle.amp.auto_cast and paddle.amp.GradScaler"):
        opt.minimize(paddle.ones([1]))
