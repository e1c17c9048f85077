"""paddle.amp.auto_cast on the CPU: Paddle's white / black / gray rules at O1, O2 and OD, custom
lists, results against float32 within float16 tolerance, float32 gradients, and the same casts
under to_static, through jit.save / jit.load and ONNX."""
import numpy as np
import pytest

import dy2st as paddle
import dy2st.nn.functional as F
from dy2st.static import InputSpec
from tests.support import onnx_outputs, randn


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = paddle.nn.Linear(6, 16)
        self.norm = paddle.nn.LayerNorm(16)
        self.fc2 = paddle.nn.Linear(16, 4)

    def forward(self, x):
        h = F.relu(self.fc1(x))
        h = self.norm(h)
        return F.softmax(self.fc2(h), axis=-1)


def _net(seed=0):
    paddle.seed(seed)
    return Net()


def test_o1_casts_white_ops_down_and_black_ops_up():
    x = paddle.to_tensor(randn(0, 3, 6))
    w = paddle.to_tensor(randn(1, 6, 5))
    with paddle.amp.auto_cast():
        y = paddle.matmul(x, w)                  # white
        r = F.relu(y)                            # gray, float16 input
        s = F.softmax(y)                         # black
        m = y.mean()                             # black
        mixed = y + paddle.ones([5])             # gray with a float32 input: promoted
        e = paddle.exp(x)                        # black on float32: unchanged
    assert (y.dtype, r.dtype, s.dtype, m.dtype, mixed.dtype, e.dtype) == \
        ("float16", "float16", "float32", "float32", "float32", "float32")
    np.testing.assert_allclose(y.numpy().astype(np.float32), x.numpy() @ w.numpy(), rtol=5e-3,
                               atol=5e-3)


def test_a_model_under_o1_matches_float32_within_half_precision():
    net = _net()
    x = paddle.to_tensor(randn(2, 8, 6))
    want = net(x).numpy()
    with paddle.amp.auto_cast(level="O1"):
        got = net(x)
    assert got.dtype == "float32"              # softmax is black
    np.testing.assert_allclose(got.numpy(), want, rtol=2e-2, atol=2e-3)


def test_gradients_are_float32_and_close_to_float32_training():
    x, y = paddle.to_tensor(randn(3, 8, 6)), paddle.to_tensor(randn(4, 8, 4))
    ref, net = _net(1), _net(1)
    F.mse_loss(ref(x), y).backward()
    with paddle.amp.auto_cast():
        loss = F.mse_loss(net(x), y)
    loss.backward()
    for p, q in zip(net.parameters(), ref.parameters()):
        assert p.grad.dtype == "float32"
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=5e-2, atol=2e-3)


def test_o2_runs_gray_ops_low_and_keeps_the_extra_black_list():
    x = paddle.to_tensor(randn(0, 4, 6)).astype("float16")
    ids = paddle.to_tensor(np.array([[1, 2], [3, 0]], "int64"))
    table = paddle.to_tensor(randn(1, 5, 3))
    with paddle.amp.auto_cast(level="O2"):
        m = x.mean()                             # black at O1, gray at O2
        e = paddle.exp(x)
        emb = F.embedding(ids, table.astype("float16"))      # extra black: float32
    assert (m.dtype, e.dtype, emb.dtype) == ("float16", "float16", "float32")
    with paddle.amp.auto_cast(level="O2", use_promote=False):
        assert (x + paddle.ones([6])).dtype == "float16"
    with paddle.amp.auto_cast(level="O2"):
        assert (x + paddle.ones([6])).dtype == "float32"


def test_od_runs_only_white_ops_low():
    x = paddle.to_tensor(randn(0, 4, 6)).astype("float16")
    with paddle.amp.auto_cast(level="OD"):
        assert paddle.matmul(x, x.T).dtype == "float16"
        assert F.relu(x).dtype == "float32"


def test_custom_lists_and_disabled_blocks():
    x = paddle.to_tensor(randn(0, 3, 6))
    w = paddle.to_tensor(randn(1, 6, 5))
    with paddle.amp.auto_cast(custom_black_list=["matmul_v2"]):
        assert paddle.matmul(x, w).dtype == "float32"
    with paddle.amp.auto_cast(custom_white_list=["exp"]):
        assert paddle.exp(x).dtype == "float16"
    with paddle.amp.auto_cast():
        with paddle.amp.auto_cast(enable=False):
            assert paddle.matmul(x, w).dtype == "float32"
        assert paddle.matmul(x, w).dtype == "float16"
    with paddle.amp.auto_cast(level="O0"):
        assert paddle.matmul(x, w).dtype == "float32"
    assert paddle.matmul(x, w).dtype == "float32"


@pytest.mark.parametrize("kwargs, match", [({"level": "O3"}, "level must be one of"),
                                           ({"dtype": "float64"}, "dtype must be"),
                                           ({"custom_white_list": ["exp"],
                                             "custom_black_list": ["exp"]}, "in both")])
def test_bad_arguments_are_explained(kwargs, match):
    with pytest.raises(ValueError, match=match):
        with paddle.amp.auto_cast(**kwargs):
            pass


def test_to_static_under_auto_cast_matches_eager_and_keeps_its_own_program():
    net = _net(2)
    x = paddle.to_tensor(randn(5, 4, 6))
    with paddle.amp.auto_cast():
        eager = net.fc2(F.relu(net.fc1(x)))
    static = paddle.jit.to_static(lambda t: net.fc2(F.relu(net.fc1(t))), full_graph=True)
    with paddle.amp.auto_cast():
        got = static(x)
    assert got.dtype == "float16"
    np.testing.assert_allclose(got.numpy(), eager.numpy(), rtol=1e-3, atol=1e-3)
    # the same function outside auto_cast traces its float32 program
    plain = static(x)
    assert plain.dtype == "float32"
    with paddle.amp.auto_cast():
        assert static(x).dtype == "float16"


def test_to_static_gradients_under_auto_cast():
    x, y = paddle.to_tensor(randn(3, 8, 6)), paddle.to_tensor(randn(4, 8, 4))
    eager_net, static_net = _net(3), _net(3)
    with paddle.amp.auto_cast():
        F.mse_loss(eager_net(x), y).backward()
    sf = paddle.jit.to_static(static_net, full_graph=True)
    with paddle.amp.auto_cast():
        F.mse_loss(sf(x), y).backward()
    for p, q in zip(static_net.parameters(), eager_net.parameters()):
        assert p.grad.dtype == "float32"
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-2, atol=1e-3)


def test_saved_under_auto_cast_keeps_the_casts(tmp_path):
    net = _net(4)
    net.eval()
    x = randn(6, 3, 6)
    with paddle.amp.auto_cast():
        want = net(paddle.to_tensor(x)).numpy()
        paddle.jit.save(net, str(tmp_path / "amp"), input_spec=[InputSpec([None, 6], "float32")])
    loaded = paddle.jit.load(str(tmp_path / "amp"))
    assert "cast" in str(loaded.program())
    np.testing.assert_allclose(loaded(paddle.to_tensor(x)).numpy(), want, rtol=1e-3, atol=1e-4)


def test_onnx_export_under_auto_cast(tmp_path):
    net = _net(5)
    net.eval()
    x = randn(7, 3, 6)
    path = str(tmp_path / "amp")
    with paddle.amp.auto_cast():
        want = net(paddle.to_tensor(x)).numpy()
        paddle.onnx.export(net, path, input_spec=[InputSpec([None, 6], "float32")])
    np.testing.assert_allclose(onnx_outputs(path + ".onnx", x)[0], want, rtol=1e-2, atol=1e-3)


def test_operator_stats_show_which_ops_ran_low():
    net = _net(6)
    with paddle.amp.debugging.collect_operator_stats() as stats:
        with paddle.amp.auto_cast():
            net(paddle.to_tensor(randn(0, 2, 6)))
    assert stats["linear"] == {"float16": 2}
    assert stats["softmax"] == {"float32": 1}
    assert stats["layer_norm"] == {"float32": 1}


@pytest.mark.skipif(paddle.amp.is_bfloat16_supported(), reason="bfloat16 tensors exist")
def test_bfloat16_is_refused_with_the_alternative():
    with pytest.raises(ValueError, match=r"needs the ml_dtypes package.*dy2st\[bf16\].*float16"):
        with paddle.amp.auto_cast(dtype="bfloat16"):
            pass


def test_support_queries():
    assert paddle.amp.is_float16_supported() is True
    assert isinstance(paddle.amp.is_bfloat16_supported(), bool)
    assert paddle.amp.amp_guard is paddle.amp.auto_cast


@pytest.mark.skipif(not paddle.amp.is_bfloat16_supported(), reason="ml_dtypes not installed")
def test_bfloat16_o1_keeps_paddle_331_black_list_in_float32():
    # Paddle 3.3.1: bfloat16 shares float16's white and black lists
    x = paddle.to_tensor(randn(1, 2, 4))
    w = paddle.to_tensor(randn(2, 4, 4))
    with paddle.amp.auto_cast(level="O1", dtype="bfloat16"):
        y = paddle.matmul(x, w)                  # white
        s, m, e = F.softmax(y), y.mean(), paddle.exp(y)     # black on bfloat16: float32
        r = F.relu(y)                            # gray: keeps bfloat16
    assert y.dtype == paddle.bfloat16 and r.dtype == paddle.bfloat16
    assert (s.dtype, m.dtype, e.dtype) == (paddle.float32,) * 3
    with paddle.amp.auto_cast(level="O2", dtype="bfloat16"):
        assert F.softmax(paddle.matmul(x, w)).dtype == paddle.bfloat16


@pytest.mark.parametrize("convert", [False, True])
def test_bmm_is_gray_not_white_as_in_paddle(convert):
    def f(a, b):
        return paddle.bmm(a, b), paddle.matmul(a, b)

    run = paddle.jit.to_static(f) if convert else f
    a, b = paddle.to_tensor(randn(0, 2, 3, 4)), paddle.to_tensor(randn(1, 2, 4, 5))
    with paddle.amp.auto_cast(level="O1", dtype="float16"):
        batched, product = run(a, b)
        low = run(a.astype("float16"), b.astype("float16"))[0]
    assert batched.dtype == paddle.float32 and product.dtype == paddle.float16
    assert low.dtype == paddle.float16
    np.testing.assert_allclose(batched.numpy(), np.matmul(a.numpy(), b.numpy()), rtol=1e-5)
