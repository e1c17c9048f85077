"""group_norm, instance_norm, local_response_norm and the fluid-style BatchNorm against numpy
written by hand, eager and static (unknown batch), with gradients by finite differences."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st import nn
from dy2st.nn import functional as F
from tests.support import check_grad, run_static

RNG = np.random.default_rng(21)


def rnd(*shape):
    return RNG.standard_normal(shape).astype("float32")


def group_norm_ref(x, groups, eps=1e-5, w=None, b=None):
    """Channel-first: statistics per sample over each group's channels and all positions."""
    n, c = x.shape[:2]
    g = x.astype(np.float64).reshape(n, groups, -1)
    out = ((g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + eps)).reshape(x.shape)
    shape = (1, c) + (1,) * (x.ndim - 2)
    if w is not None:
        out = out * w.reshape(shape)
    if b is not None:
        out = out + b.reshape(shape)
    return out


def lrn_ref(x, size, alpha, beta, k):
    c = x.shape[1]
    out = np.zeros_like(x, dtype=np.float64)
    for i in range(c):
        lo, hi = max(0, i - size // 2), min(c, i + (size - 1) // 2 + 1)
        out[:, i] = x[:, i] / (k + alpha * (x[:, lo:hi] ** 2).sum(1) / size) ** beta
    return out


def both(fn, *arrays):
    eager = fn(*[paddle.to_tensor(a) for a in arrays]).numpy()
    shapes = [[None] + list(a.shape[1:]) if i == 0 else list(a.shape) for i, a in enumerate(arrays)]
    np.testing.assert_allclose(run_static(fn, *arrays, shapes=shapes), eager, rtol=1e-5, atol=1e-6)
    return eager


@pytest.mark.parametrize("shape, groups", [((2, 6, 3, 4), 3), ((2, 4, 5), 1), ((1, 4, 2, 2, 3), 4)])
def test_group_norm(shape, groups):
    x, w, b = rnd(*shape), rnd(shape[1]), rnd(shape[1])
    out = both(lambda x, w, b: F.group_norm(x, groups, 1e-5, w, b), x, w, b)
    np.testing.assert_allclose(out, group_norm_ref(x, groups, 1e-5, w, b), rtol=1e-4, atol=1e-5)


def test_group_norm_channel_last():
    x = rnd(2, 3, 4, 6)
    out = both(lambda x: F.group_norm(x, 2, data_format="NHWC"), x)
    np.testing.assert_allclose(out, group_norm_ref(x.transpose(0, 3, 1, 2), 2).transpose(0, 2, 3, 1),
                               rtol=1e-4, atol=1e-5)


def test_instance_norm_input_stats_and_running_stats():
    x, w, b = rnd(2, 3, 4, 5), rnd(3), rnd(3)
    out = both(lambda x, w, b: F.instance_norm(x, weight=w, bias=b), x, w, b)
    np.testing.assert_allclose(out, group_norm_ref(x, 3, 1e-5, w, b), rtol=1e-4, atol=1e-5)
    rm, rv = rnd(3), np.abs(rnd(3)) + 0.5
    out = F.instance_norm(paddle.to_tensor(x), paddle.to_tensor(rm), paddle.to_tensor(rv),
                          use_input_stats=False).numpy()
    np.testing.assert_allclose(out, (x - rm.reshape(1, 3, 1, 1)) / np.sqrt(rv.reshape(1, 3, 1, 1) + 1e-5),
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("size", [3, 4, 5])
def test_local_response_norm(size):
    x = rnd(2, 6, 3, 3)
    out = both(lambda x: F.local_response_norm(x, size, alpha=0.1, beta=0.75, k=2.0), x)
    np.testing.assert_allclose(out, lrn_ref(x, size, 0.1, 0.75, 2.0), rtol=1e-5, atol=1e-6)


def test_local_response_norm_channel_last():
    x = rnd(2, 3, 3, 5)
    out = F.local_response_norm(paddle.to_tensor(x), 3, data_format="NHWC").numpy()
    want = lrn_ref(x.transpose(0, 3, 1, 2), 3, 1e-4, 0.75, 1.0).transpose(0, 2, 3, 1)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)


def test_gradients_match_finite_differences():
    x, w, b = RNG.standard_normal((2, 4, 3)), RNG.standard_normal(4), RNG.standard_normal(4)
    check_grad(lambda x, w, b: F.group_norm(x, 2, 1e-5, w, b), x, w, b, rtol=1e-4, atol=1e-7)
    check_grad(lambda x: F.instance_norm(x, data_format="NLC"), x, rtol=1e-4, atol=1e-7)
    check_grad(lambda x: F.local_response_norm(x, 3, alpha=0.5, beta=0.75, k=1.0),
               RNG.standard_normal((1, 4, 2, 2)))


def test_errors_name_the_problem():
    with pytest.raises(ValueError, match="groups"):
        F.group_norm(paddle.zeros([1, 6, 2]), 4)
    with pytest.raises(ValueError, match="num_groups"):
        nn.GroupNorm(4, 6)
    with pytest.raises(ValueError, match="rank"):
        nn.InstanceNorm2D(3)(paddle.zeros([1, 3, 4]))
    with pytest.raises(ValueError, match="act"):
        nn.BatchNorm(3, act="nope")


def test_layers():
    x = rnd(2, 4, 3, 3)
    gn = nn.GroupNorm(2, 4)
    assert gn.weight.shape == [4] and gn.bias.shape == [4]
    np.testing.assert_allclose(gn(paddle.to_tensor(x)).numpy(), group_norm_ref(x, 2), rtol=1e-4, atol=1e-5)
    inorm = nn.InstanceNorm2D(4)
    assert inorm.scale.shape == [4]
    np.testing.assert_allclose(inorm(paddle.to_tensor(x)).numpy(), group_norm_ref(x, 4), rtol=1e-4, atol=1e-5)
    assert nn.InstanceNorm1D(4, weight_attr=False, bias_attr=False).scale is None
    x1, x3 = rnd(2, 4, 7), rnd(1, 2, 2, 3, 3)
    np.testing.assert_allclose(nn.InstanceNorm1D(4)(paddle.to_tensor(x1)).numpy(), group_norm_ref(x1, 4),
                               rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(nn.InstanceNorm3D(2)(paddle.to_tensor(x3)).numpy(), group_norm_ref(x3, 2),
                               rtol=1e-4, atol=1e-5)
    lrn = nn.LocalResponseNorm(3, alpha=0.2)
    np.testing.assert_allclose(lrn(paddle.to_tensor(x)).numpy(), lrn_ref(x, 3, 0.2, 0.75, 1.0), rtol=1e-5)


def test_fluid_batch_norm_train_eval_and_act():
    bn = nn.BatchNorm(3, act="relu", momentum=0.8)
    x = rnd(4, 3, 2, 2)
    out = bn(paddle.to_tensor(x)).numpy()
    mean, var = x.mean((0, 2, 3)), x.var((0, 2, 3))
    want = np.maximum((x - mean.reshape(1, 3, 1, 1)) / np.sqrt(var.reshape(1, 3, 1, 1) + 1e-5), 0)
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bn._mean.numpy(), 0.2 * mean, rtol=1e-5, atol=1e-6)
    bn.eval()
    rm, rv = bn._mean.numpy(), bn._variance.numpy()
    want = np.maximum((x - rm.reshape(1, 3, 1, 1)) / np.sqrt(rv.reshape(1, 3, 1, 1) + 1e-5), 0)
    np.testing.assert_allclose(bn(paddle.to_tensor(x)).numpy(), want, rtol=1e-4, atol=1e-5)
    assert [n for n, _ in bn.named_parameters()] == ["weight", "bias"]
    assert set(bn.state_dict()) == {"weight", "bias", "_mean", "_variance"}


def test_fluid_batch_norm_nhwc_and_rank2():
    x = rnd(5, 3)
    bn = nn.BatchNorm(3, is_test=True)
    np.testing.assert_allclose(bn(paddle.to_tensor(x)).numpy(), x / np.sqrt(1 + 1e-5), rtol=1e-5)
    x4 = rnd(2, 2, 2, 3)
    nhwc = nn.BatchNorm(3, data_layout="NHWC")(paddle.to_tensor(x4)).numpy()
    m, v = x4.mean((0, 1, 2)), x4.var((0, 1, 2))
    np.testing.assert_allclose(nhwc, (x4 - m) / np.sqrt(v + 1e-5), rtol=1e-4, atol=1e-5)


def test_fluid_batch_norm_updates_running_stats_under_to_static_as_eager():
    x = paddle.to_tensor(rnd(4, 3, 2, 2))
    stats = []
    for convert in (False, True):
        bn = nn.BatchNorm(3, act="relu", momentum=0.7)
        run = paddle.jit.to_static(bn) if convert else bn
        outs = [run(x).numpy() for _ in range(2)]
        stats.append((outs, bn._mean.numpy(), bn._variance.numpy()))
    (e_out, e_mean, e_var), (s_out, s_mean, s_var) = stats
    assert not np.allclose(e_mean, 0)
    np.testing.assert_allclose(s_mean, e_mean, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(s_var, e_var, rtol=1e-5, atol=1e-7)
    for a, b in zip(s_out, e_out):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
