"""nn.SyncBatchNorm in one process: BatchNorm's values, gradients and running statistics (and
Paddle 3.3.1's BatchNorm's, whose SyncBatchNorm has no CPU kernel), its gradient against finite
differences, convert_sync_batchnorm, to_static on both backends, ONNX export in eval mode. The
statistics across processes are checked by tests/distributed/test_collectives.py."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st import nn
from tests.support import check_layer_converts, numeric_gradient, onnx_outputs, randn

LAYOUTS = [  # (data_format, input shape, the BatchNorm of the same layout)
    ("NCHW", (4, 3, 2, 2), lambda c: nn.BatchNorm2D(c)),
    ("NHWC", (4, 2, 2, 3), lambda c: nn.BatchNorm2D(c, data_format="NHWC")),
    ("NCL", (4, 3, 5), lambda c: nn.BatchNorm1D(c)),
    ("NC", (6, 3), lambda c: nn.BatchNorm1D(c)),
    ("NDHWC", (2, 2, 2, 2, 3), lambda c: nn.BatchNorm3D(c, data_format="NDHWC")),
]


def pair(fmt, make_bn, seed=0):
    """A SyncBatchNorm and a BatchNorm with the same (non-trivial) weight and bias."""
    sync, bn = nn.SyncBatchNorm(3, momentum=0.8, data_format=fmt), make_bn(3)
    bn._momentum = 0.8
    for layer in (sync, bn):
        layer.weight.set_value(np.array([1.5, -0.5, 2.0], "float32"))
        layer.bias.set_value(np.array([0.1, 0.2, -0.3], "float32"))
    return sync, bn


@pytest.mark.parametrize("fmt,shape,make_bn", LAYOUTS, ids=[p[0] for p in LAYOUTS])
def test_one_process_is_batch_norm_in_training_and_eval(fmt, shape, make_bn):
    sync, bn = pair(fmt, make_bn)
    x = randn(0, *shape, shift=2.0, scale=3.0)
    cot = paddle.to_tensor(randn(1, *shape))
    grads = []
    for layer in (sync, bn):
        t = paddle.to_tensor(x, stop_gradient=False)
        y = layer(t)
        (y * cot).sum().backward()
        grads.append((y.numpy(), t.grad.numpy(), layer.weight.grad.numpy(), layer.bias.grad.numpy(),
                      layer._mean.numpy(), layer._variance.numpy()))
    for a, b in zip(*grads):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    sync.eval()
    bn.eval()        # the running statistics
    np.testing.assert_allclose(sync(paddle.to_tensor(x)).numpy(), bn(paddle.to_tensor(x)).numpy(),
                               rtol=1e-5, atol=1e-6)


def test_the_gradients_match_finite_differences():
    layer = nn.SyncBatchNorm(2, data_format="NCL")
    layer.weight.set_value(np.array([1.5, -0.7], "float32"))
    x = np.random.default_rng(3).standard_normal((3, 2, 2)) * 2.0 + 1.0
    cot = np.random.default_rng(4).standard_normal((3, 2, 2))

    def loss(a):
        return float((layer(paddle.to_tensor(a.astype("float32"))).numpy() * cot).sum())

    t = paddle.to_tensor(x.astype("float32"), stop_gradient=False)
    (layer(t) * paddle.to_tensor(cot.astype("float32"))).sum().backward()
    np.testing.assert_allclose(t.grad.numpy(), numeric_gradient(loss, x, eps=1e-2),
                               rtol=2e-2, atol=2e-3)


def test_parity_with_paddle_331():
    paddle_ref = pytest.importorskip("paddle")
    theirs = paddle_ref.nn.SyncBatchNorm(3, momentum=0.8, epsilon=1e-3)
    ours = nn.SyncBatchNorm(3, momentum=0.8, epsilon=1e-3)
    assert str(ours) == str(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert str(nn.SyncBatchNorm(3, data_format="NHWC", name="sbn")) == \
        str(paddle_ref.nn.SyncBatchNorm(3, data_format="NHWC", name="sbn"))
    # Paddle's SyncBatchNorm has no CPU kernel: in one process it is its BatchNorm2D
    ref = paddle_ref.nn.BatchNorm2D(3, momentum=0.8, epsilon=1e-3)
    x = randn(5, 4, 3, 2, 2, shift=1.0, scale=2.0)
    cot = randn(6, 4, 3, 2, 2)
    t_ref = paddle_ref.to_tensor(x, stop_gradient=False)
    (ref(t_ref) * paddle_ref.to_tensor(cot)).sum().backward()
    t = paddle.to_tensor(x, stop_gradient=False)
    y = ours(t)
    (y * paddle.to_tensor(cot)).sum().backward()
    np.testing.assert_allclose(y.numpy(), ref(paddle_ref.to_tensor(x)).numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(t.grad.numpy(), t_ref.grad.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ours.weight.grad.numpy(), ref.weight.grad.numpy(), rtol=1e-4, atol=1e-5)
    # ref ran twice (the second forward without backward): compare after one update of ours
    np.testing.assert_allclose(ours._mean.numpy(), x.mean(axis=(0, 2, 3)) * 0.2, rtol=1e-5)


def test_without_affine_parameters_the_scale_and_shift_are_fixed():
    layer = nn.SyncBatchNorm(2, weight_attr=False, bias_attr=False)
    assert list(layer.state_dict()) == ["weight", "bias", "_mean", "_variance"]
    assert layer.weight.stop_gradient and layer.bias.stop_gradient
    np.testing.assert_array_equal(layer.weight.numpy(), [1.0, 1.0])
    np.testing.assert_array_equal(layer.bias.numpy(), [0.0, 0.0])
    x = randn(0, 3, 2)
    want = (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5)
    np.testing.assert_allclose(layer(paddle.to_tensor(x)).numpy(), want, rtol=1e-5, atol=1e-5)


def test_convert_sync_batchnorm_replaces_every_batch_norm_and_keeps_its_state():
    model = nn.Sequential(nn.Conv2D(3, 4, 1), nn.BatchNorm2D(4, data_format="NCHW"),
                          nn.Sequential(nn.Flatten(), nn.BatchNorm1D(16)), nn.LayerNorm(16))
    model.train()
    model(paddle.to_tensor(randn(0, 2, 3, 2, 2)))        # the running statistics move
    before = {k: v.numpy().copy() for k, v in model.state_dict().items()}
    converted = nn.SyncBatchNorm.convert_sync_batchnorm(model)
    assert isinstance(converted[1], nn.SyncBatchNorm)
    assert isinstance(converted[2][1], nn.SyncBatchNorm)
    assert isinstance(converted[3], nn.LayerNorm) and isinstance(converted[0], nn.Conv2D)
    assert converted[1].weight is model[1].weight and converted[2][1]._mean is model[2][1]._mean
    assert "data_format=NCL" in str(converted[2][1])
    after = converted.state_dict()
    assert list(after) == list(before)
    for k, v in before.items():
        np.testing.assert_array_equal(after[k].numpy(), v)
    one = nn.SyncBatchNorm.convert_sync_batchnorm(nn.BatchNorm1D(5, momentum=0.7, epsilon=1e-3))
    assert type(one) is nn.SyncBatchNorm and (one._momentum, one._epsilon) == (0.7, 1e-3)
    attr = paddle.ParamAttr(name="bn_w")
    nn.SyncBatchNorm.convert_sync_batchnorm(nn.BatchNorm2D(2, weight_attr=attr))
    assert attr.name == "bn_w_sync"       # as Paddle: the new parameter gets a name of its own


def test_bad_data_format_and_rank_are_named():
    with pytest.raises(ValueError, match="for data_format, got 'NWC'"):
        nn.SyncBatchNorm(3, data_format="NWC")(paddle.ones([2, 3]))
    with pytest.raises(ValueError, match="rank 2 to 5"):
        nn.SyncBatchNorm(3)(paddle.ones([3]))


@pytest.mark.parametrize("backend", ["numpy", "xla"])
def test_a_compiled_train_step_matches_eager(backend):
    if backend == "xla":
        pytest.importorskip("jax")
    x = randn(2, 4, 3, 2, shift=1.0)

    def run(compile_):
        paddle.seed(0)
        layer = nn.SyncBatchNorm(3, data_format="NCL")
        opt = paddle.optimizer.SGD(0.5, parameters=layer.parameters())

        def step(t):
            loss = (layer(t) ** 3).mean()
            loss.backward()
            opt.step()
            opt.clear_grad()
            return loss
        f = paddle.jit.to_static(step, backend=backend, full_graph=True) if compile_ else step
        losses = [f(paddle.to_tensor(x * (i + 1))).numpy() for i in range(2)]
        return losses, [v.numpy() for v in layer.state_dict().values()]

    for a, b in zip(*[sum(run(c), []) for c in (False, True)]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_eval_mode_converts_saves_and_exports_to_onnx_as_batch_norm(tmp_path):
    pytest.importorskip("onnxruntime")
    layer = nn.SyncBatchNorm(3)
    layer(paddle.to_tensor(randn(0, 4, 3, 2, 2, shift=1.0)))      # the running statistics move
    x = randn(1, 2, 3, 2, 2)
    eager = check_layer_converts(layer, [x], tmp_path)
    path = str(tmp_path / "sbn")
    paddle.onnx.export(layer, path, input_spec=[paddle.static.InputSpec([None, 3, 2, 2], "float32")])
    np.testing.assert_allclose(onnx_outputs(path + ".onnx", x)[0], eager, rtol=1e-5, atol=1e-6)


def test_a_static_test_clone_reads_the_running_statistics_without_the_collective():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 3, 2], "float32")
        layer = nn.SyncBatchNorm(3, data_format="NCL")
        y = layer(x)
    test = main.clone(for_test=True)
    assert "sync_batch_norm_stats" in {op.type for op in main.global_block().ops}
    assert "sync_batch_norm_stats" not in {op.type for op in test.global_block().ops}
    exe = paddle.static.Executor(paddle.CPUPlace())
    data = randn(0, 4, 3, 2, shift=1.0)
    exe.run(main, feed={"x": data}, fetch_list=[y])          # training: the statistics move
    mean, var = layer._mean.numpy(), layer._variance.numpy()
    np.testing.assert_allclose(mean, data.mean(axis=(0, 2)) * 0.1, rtol=1e-5)
    got = exe.run(test, feed={"x": data}, fetch_list=[y])[0]
    want = (data - mean[:, None]) / np.sqrt(var[:, None] + 1e-5)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
