"""Paddle's static-graph mode: enable_static(), static.nn.fc, Program.clone(for_test=True),
opt.minimize + Executor.run training, schedulers between runs, and inference-model files."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st import static


def _data(n=16, seed=0):
    rng = np.random.default_rng(seed)
    xs = rng.standard_normal((n, 4)).astype("float32")
    ys = ((xs[:, :1] > 0).astype("int64") + (xs[:, 1:2] > 0.5)).astype("int64")
    return xs, ys


def _params(program):
    return [t for t in program.persistables.values() if getattr(t, "trainable", False)]


def test_enable_static_builds_ops_into_the_default_program(static_mode):
    assert not paddle.in_dynamic_mode()
    x = static.data("x", [None, 3], "float32")
    y = paddle.exp(x) + 1.0
    assert isinstance(y, static.Variable)
    assert y.block.program is static.default_main_program()
    got, = static.Executor().run(feed={"x": np.zeros((2, 3), "float32")}, fetch_list=[y])
    np.testing.assert_allclose(got, np.full((2, 3), 2.0))
    paddle.disable_static()
    assert paddle.in_dynamic_mode()
    assert float(paddle.exp(paddle.to_tensor(0.0))) == 1.0


def test_static_mode_switches_refuse_the_wrong_place(static_mode):
    with static.program_guard(static.Program()):
        with pytest.raises(RuntimeError, match="leave the guard"):
            paddle.disable_static()
    paddle.disable_static()
    with static.program_guard(static.Program()):
        with pytest.raises(RuntimeError, match="top level"):
            paddle.enable_static()


def test_fc_flattens_from_num_flatten_dims_and_applies_the_activation(static_mode):
    x = static.data("x", [None, 2, 3], "float32")
    y = static.nn.fc(x, size=5, num_flatten_dims=1, activation="relu")
    z = static.nn.fc([x, x], size=2, num_flatten_dims=2, bias_attr=False)
    weights = [t for t in _params(static.default_main_program())]
    assert [list(w.shape) for w in weights] == [[6, 5], [5], [3, 2], [3, 2]]
    xs = np.random.default_rng(1).standard_normal((4, 2, 3)).astype("float32")
    got_y, got_z = static.Executor().run(feed={"x": xs}, fetch_list=[y, z])
    w, b, w1, w2 = (t.numpy() for t in weights)
    np.testing.assert_allclose(got_y, np.maximum(xs.reshape(4, 6) @ w + b, 0), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(got_z, xs @ w1 + xs @ w2, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="num_flatten_dims"):
        static.nn.fc(x, size=2, num_flatten_dims=3)


def test_minimize_and_executor_runs_train_as_eager_does(static_mode):
    xs, ys = _data()
    x = static.data("x", [None, 4], "float32")
    label = static.data("label", [None, 1], "int64")
    hidden = static.nn.fc(x, size=8, activation="tanh")
    logits = static.nn.fc(hidden, size=3)
    loss = paddle.nn.functional.cross_entropy(logits, label).mean()
    paddle.optimizer.SGD(0.2).minimize(loss)
    start = [t.numpy().copy() for t in _params(static.default_main_program())]
    exe = static.Executor(paddle.CPUPlace())
    exe.run(static.default_startup_program())
    static_losses = [float(exe.run(feed={"x": xs, "label": ys}, fetch_list=[loss])[0])
                     for _ in range(3)]
    trained = [t.numpy() for t in _params(static.default_main_program())]
    paddle.disable_static()

    params = [paddle.to_tensor(a, stop_gradient=False) for a in start]
    w1, b1, w2, b2 = params
    eager_losses = []
    for _ in range(3):
        h = paddle.tanh(paddle.to_tensor(xs) @ w1 + b1)
        loss = paddle.nn.functional.cross_entropy(h @ w2 + b2, paddle.to_tensor(ys)).mean()
        loss.backward()
        with paddle.no_grad():
            for p in params:
                p.set_value(p - 0.2 * p.grad)
                p.clear_grad()
        eager_losses.append(float(loss))
    np.testing.assert_allclose(static_losses, eager_losses, rtol=1e-5)
    for got, want in zip(trained, params):
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-6)


def test_a_scheduler_stepped_between_runs_sets_the_next_runs_learning_rate(static_mode):
    x = static.data("x", [None, 1], "float32")
    w = paddle.create_parameter([1], "float32",
                                default_initializer=paddle.nn.initializer.Constant(1.0))
    loss = (x * w).sum()                      # d loss / d w = sum(x) = 1 below
    sched = paddle.optimizer.lr.StepDecay(0.5, step_size=1, gamma=0.1)
    paddle.optimizer.SGD(sched, parameters=[w]).minimize(loss)
    exe = static.Executor()
    for _ in range(3):
        exe.run(feed={"x": np.ones((1, 1), "float32")}, fetch_list=[loss])
        sched.step()
    np.testing.assert_allclose(w.numpy(), [1.0 - 0.5 - 0.05 - 0.005], rtol=1e-6)


def test_a_test_clone_turns_dropout_off_and_batch_norm_to_its_running_statistics(static_mode):
    xs, ys = _data()
    x = static.data("x", [None, 4], "float32")
    label = static.data("label", [None, 1], "int64")
    bn = paddle.nn.BatchNorm1D(4)
    lin = paddle.nn.Linear(4, 3)
    logits = lin(paddle.nn.functional.dropout(bn(x), 0.5))
    loss = paddle.nn.functional.cross_entropy(logits, label).mean()
    test_program = static.default_main_program().clone(for_test=True)
    paddle.optimizer.Adam(0.01).minimize(loss)
    exe = static.Executor()
    for _ in range(3):
        exe.run(feed={"x": xs, "label": ys}, fetch_list=[loss])
    mean, var = bn._mean.numpy().copy(), bn._variance.numpy().copy()
    assert not np.allclose(mean, 0.0)               # training moved the running statistics
    weights = [t.numpy().copy() for t in (bn.weight, bn.bias, lin.weight, lin.bias)]
    first, = exe.run(test_program, feed={"x": xs, "label": ys}, fetch_list=[logits])
    second, = exe.run(test_program, feed={"x": xs, "label": ys}, fetch_list=[logits])
    np.testing.assert_array_equal(first, second)    # no dropout draws
    normed = (xs - mean) / np.sqrt(var + 1e-5) * weights[0] + weights[1]
    np.testing.assert_allclose(first, normed @ weights[2] + weights[3], rtol=1e-4, atol=1e-5)
    # running the test program updates nothing
    np.testing.assert_array_equal(bn._mean.numpy(), mean)
    np.testing.assert_array_equal(lin.weight.numpy(), weights[2])


def test_a_test_clone_taken_after_minimize_drops_the_updates(static_mode):
    xs, ys = _data()
    x = static.data("x", [None, 4], "float32")
    label = static.data("label", [None, 1], "int64")
    logits = static.nn.fc(paddle.nn.functional.dropout(x, 0.2), size=3)
    loss = paddle.nn.functional.cross_entropy(logits, label).mean()
    paddle.optimizer.Momentum(0.1).minimize(loss)
    test_program = static.default_main_program().clone(for_test=True)
    before = [t.numpy().copy() for t in _params(test_program)]
    got, = static.Executor().run(test_program, feed={"x": xs, "label": ys}, fetch_list=[loss])
    assert np.isfinite(got)
    for t, b in zip(_params(test_program), before):
        np.testing.assert_array_equal(t.numpy(), b)


def test_inference_model_files_round_trip_through_executor_and_jit_load(static_mode, tmp_path):
    xs, ys = _data()
    x = static.data("x", [None, 4], "float32")
    label = static.data("label", [None, 1], "int64")
    hidden = paddle.nn.functional.dropout(static.nn.fc(x, size=6, activation="relu"), 0.5)
    pred = static.nn.fc(hidden, size=3, activation="softmax")
    loss = paddle.nn.functional.cross_entropy(pred, label, use_softmax=False).mean()
    test_program = static.default_main_program().clone(for_test=True)
    paddle.optimizer.Adam(0.05).minimize(loss)
    exe = static.Executor()
    for _ in range(2):
        exe.run(feed={"x": xs, "label": ys}, fetch_list=[loss])
    want, = exe.run(test_program, feed={"x": xs, "label": ys}, fetch_list=[pred])
    prefix = str(tmp_path / "infer")
    static.save_inference_model(prefix, [x], [pred], exe)
    program, feeds, fetches = static.load_inference_model(prefix, exe)
    assert feeds == ["x"]
    got, = exe.run(program, feed={"x": xs[:5]}, fetch_list=fetches)
    np.testing.assert_allclose(got, want[:5], rtol=1e-5, atol=1e-6)
    assert not any(op.type in ("dropout", "cross_entropy") for op in program.global_block().ops)
    paddle.disable_static()
    loaded = paddle.jit.load(prefix)
    np.testing.assert_allclose(loaded(paddle.to_tensor(xs)).numpy(), want, rtol=1e-5, atol=1e-6)


def test_save_inference_model_refuses_what_is_not_a_program_variable(static_mode, tmp_path):
    x = static.data("x", [None, 4], "float32")
    y = static.nn.fc(x, size=2)
    with pytest.raises(TypeError, match="feed_vars"):
        static.save_inference_model(str(tmp_path / "m"), [np.zeros(3)], [y], None)
    with pytest.raises(ValueError, match="not a variable of the program"):
        static.save_inference_model(str(tmp_path / "m"), [x], [y], None,
                                    program=static.Program())


def test_save_inference_model_of_the_test_clone_takes_the_main_programs_variables(static_mode,
                                                                                 tmp_path):
    # Paddle's scripts pass the variables they built to program=main.clone(for_test=True)
    xs, _ = _data()
    x = static.data("x", [None, 4], "float32")
    pred = paddle.nn.functional.dropout(static.nn.fc(x, size=3), 0.5)
    test_program = static.default_main_program().clone(for_test=True)
    exe = static.Executor()
    want, = exe.run(test_program, feed={"x": xs}, fetch_list=[pred])
    prefix = str(tmp_path / "clone")
    static.save_inference_model(prefix, [x], [pred], exe, program=test_program)
    program, feeds, fetches = static.load_inference_model(prefix, exe)
    got, = exe.run(program, feed={"x": xs}, fetch_list=fetches)
    assert feeds == ["x"]
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_compiled_program_runs_its_program(static_mode):
    x = static.data("x", [None, 2], "float32")
    y = x * 3.0
    compiled = static.CompiledProgram(static.default_main_program(), static.BuildStrategy())
    got, = static.Executor().run(compiled, feed={"x": np.ones((1, 2), "float32")},
                                 fetch_list=[y])
    np.testing.assert_allclose(got, [[3.0, 3.0]])
    with pytest.raises(TypeError, match="expects a Program"):
        static.Executor().run(object())


def test_a_jit_saved_model_loads_as_an_inference_program_by_directory_and_file(tmp_path):
    model = paddle.nn.Sequential(paddle.nn.Linear(4, 3), paddle.nn.Softmax())
    spec = [static.InputSpec([None, 4], "float32", "img")]
    paddle.jit.save(model, str(tmp_path / "mnist"), input_spec=spec)
    xs, _ = _data()
    want = model(paddle.to_tensor(xs)).numpy()
    exe = static.Executor()
    program, feeds, fetches = static.io.load_inference_model(
        str(tmp_path), exe, model_filename="mnist.pdmodel", params_filename="mnist.pdiparams")
    got, = exe.run(program, feed=dict(zip(feeds, [xs])), fetch_list=fetches)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_program_lists_its_variables_parameters_and_state(static_mode):
    x = static.data("x", [None, 4], "float32")
    loss = static.nn.fc(x, size=2).mean()
    paddle.optimizer.SGD(0.1).minimize(loss)
    main = static.default_main_program()
    assert main.num_blocks == 1
    assert {"x", loss.name} <= {v.name for v in main.list_vars()}
    params = main.global_block().all_parameters()
    assert sorted(list(p.shape) for p in params) == [[2], [4, 2]]
    assert main.all_parameters() == params
    state, only = main.state_dict(), main.state_dict("param")
    assert set(only) == {p.name for p in params} and set(only) < set(state)
    with pytest.raises(ValueError, match="mode must be"):
        main.state_dict("bad")
