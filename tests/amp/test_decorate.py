"""paddle.amp.decorate: O1 leaves models alone; O2 casts parameters to float16 (batch norms,
float16's layer / instance norms and excluded layers stay float32, as Paddle 3.3.1's), optimizers keep float32 master weights, save_dtype applies to
state_dict."""
import numpy as np
import pytest

import dy2st as paddle
import dy2st.nn.functional as F
from tests.support import randn


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 8)
        self.bn = paddle.nn.BatchNorm1D(8)
        self.ln = paddle.nn.LayerNorm(8)
        self.head = paddle.nn.Linear(8, 2)

    def forward(self, x):
        return self.head(self.ln(F.relu(self.bn(self.fc(x)))))


def _net():
    paddle.seed(0)
    return Net()


def test_o1_returns_the_models_and_optimizers_unchanged():
    net = _net()
    opt = paddle.optimizer.SGD(0.1, parameters=net.parameters())
    m, o = paddle.amp.decorate(net, opt, level="O1")
    assert m is net and o is opt
    assert all(p.dtype == "float32" for p in net.parameters())
    assert paddle.amp.decorate([net], level="O1") == [net]


def test_o2_casts_all_but_norm_layers():
    net = _net()
    paddle.amp.decorate(net, level="O2")
    assert net.fc.weight.dtype == "float16" and net.head.bias.dtype == "float16"
    assert net.bn.weight.dtype == "float32" and net.bn._mean.dtype == "float32"
    assert net.ln.weight.dtype == "float32"
    with paddle.amp.auto_cast(level="O2"):
        out = net(paddle.to_tensor(randn(0, 5, 4)))
    assert out.dtype == "float16"


def test_excluded_layers_stay_float32():
    net = _net()
    paddle.amp.decorate(net, level="O2", excluded_layers=[net.head])
    assert net.head.weight.dtype == "float32" and net.fc.weight.dtype == "float16"
    other = _net()
    paddle.amp.decorate(other, level="O2", excluded_layers=paddle.nn.Linear)
    assert other.fc.weight.dtype == "float32"
    seq = paddle.nn.Sequential(paddle.nn.Linear(2, 2), paddle.nn.Sequential(paddle.nn.Linear(2, 2)))
    paddle.amp.decorate(seq, level="O2", excluded_layers=[seq[1]])     # with its sublayers
    assert seq[0].weight.dtype == "float16" and seq[1][0].weight.dtype == "float32"
    with pytest.raises(TypeError, match="excluded_layers must be"):
        paddle.amp.decorate(_net(), level="O2", excluded_layers=["fc"])


class Norms(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.gn = paddle.nn.GroupNorm(2, 4)
        self.inn = paddle.nn.InstanceNorm2D(4)
        self.ln = paddle.nn.LayerNorm(3)
        self.bn = paddle.nn.BatchNorm2D(4)

    def forward(self, x):
        return self.bn(self.ln(self.inn(self.gn(x))))


@pytest.mark.parametrize("dtype, kept", [
    ("float16", {"inn", "ln", "bn"}),
    pytest.param("bfloat16", {"bn"}, marks=pytest.mark.skipif(
        not paddle.amp.is_bfloat16_supported(), reason="ml_dtypes not installed"))])
def test_which_norms_stay_float32_follows_paddle_need_keep_fp32(dtype, kept):
    # Paddle 3.3.1: batch norms always; layer / instance norms for float16 only; group norm never
    paddle.seed(0)
    net = Norms()
    x = paddle.to_tensor(randn(1, 2, 4, 3, 3))
    ref = net(x).numpy()
    paddle.amp.decorate(net, level="O2", dtype=dtype)
    got = {n.split(".")[0] for n, p in net.named_parameters() if p.dtype == paddle.float32}
    assert got == kept
    with paddle.amp.auto_cast(level="O2", dtype=dtype):
        out = net(x)
    np.testing.assert_allclose(out.astype("float32").numpy(), ref, atol=0.1)


def test_master_weights_keep_small_updates_that_float16_would_lose():
    p = paddle.create_parameter([4], "float32")
    p.set_value(np.ones(4, "float32"))
    holder = paddle.nn.Layer()
    holder.p = p
    opt = paddle.optimizer.SGD(1e-4, parameters=[p])
    paddle.amp.decorate(holder, opt, level="O2")
    assert p.dtype == "float16"
    for _ in range(10):
        p.grad = paddle.to_tensor(np.ones(4, "float16"))
        opt.step()
    # each update (1e-4) is below float16's spacing at 1.0; the master copy adds them up
    np.testing.assert_allclose(opt._master_weights[id(p)], np.full(4, 1 - 1e-3), rtol=1e-6)
    assert p.dtype == "float16"
    np.testing.assert_allclose(p.numpy().astype(np.float32), np.float16(1 - 1e-3), rtol=1e-3)

    q = paddle.create_parameter([4], "float32")
    q.set_value(np.ones(4, "float32"))
    holder2 = paddle.nn.Layer()
    holder2.q = q
    opt2 = paddle.optimizer.SGD(1e-4, parameters=[q])
    paddle.amp.decorate(holder2, opt2, level="O2", master_weight=False)
    for _ in range(10):
        q.grad = paddle.to_tensor(np.ones(4, "float16"))
        opt2.step()
    np.testing.assert_array_equal(q.numpy(), np.ones(4, "float16"))


def test_o2_training_with_master_weights_tracks_float32_training():
    x, y = paddle.to_tensor(randn(1, 16, 4)), paddle.to_tensor(randn(2, 16, 2))
    ref, net = _net(), _net()
    opt_ref = paddle.optimizer.Adam(0.01, parameters=ref.parameters())
    opt = paddle.optimizer.Adam(0.01, parameters=net.parameters())
    net, opt = paddle.amp.decorate(net, opt, level="O2")
    for _ in range(5):
        F.mse_loss(ref(x), y).backward()
        opt_ref.step()
        opt_ref.clear_grad()
        with paddle.amp.auto_cast(level="O2"):
            loss = F.mse_loss(net(x).astype("float32"), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
    np.testing.assert_allclose(net.fc.weight.numpy().astype(np.float32), ref.fc.weight.numpy(),
                               rtol=2e-2, atol=2e-3)


def test_save_dtype_and_argument_checks():
    net = _net()
    paddle.amp.decorate(net, level="O2", save_dtype="float32")
    sd = net.state_dict()
    assert all(v.dtype == "float32" for v in sd.values())
    assert net.fc.weight.dtype == "float16"
    with pytest.raises(ValueError, match="level should be O1 or O2"):
        paddle.amp.decorate(net, level="O3")
    with pytest.raises(ValueError, match="save_dtype can only be"):
        paddle.amp.decorate(net, level="O1", save_dtype="int8")
    with pytest.raises(TypeError, match="must be Layers"):
        paddle.amp.decorate("net")
