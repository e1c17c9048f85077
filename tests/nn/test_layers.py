"""Concrete layers and containers: eager against numpy, static programs against eager."""
import math

import numpy as np
import pytest

import dy2st as paddle
from dy2st import nn
from dy2st.nn import functional as F

RNG = np.random.default_rng(3)
X = RNG.standard_normal((5, 4)).astype("float32")


def run_layer_static(layer, *arrays, dtypes=None):
    """Run layer on static.data inputs with an unknown batch dim."""
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        xs = [paddle.static.data(f"x{i}", [None] + list(a.shape[1:]), str(a.dtype))
              for i, a in enumerate(arrays)]
        out = layer(*xs)
    res, = paddle.static.Executor().run(main, feed={f"x{i}": a for i, a in enumerate(arrays)},
                                        fetch_list=[out])
    return res


def check_layer(layer, ref, *arrays, rtol=1e-5, atol=1e-6):
    eager = layer(*[paddle.to_tensor(a) for a in arrays]).numpy()
    np.testing.assert_allclose(eager, ref(*arrays), rtol=rtol, atol=atol)
    np.testing.assert_allclose(run_layer_static(layer, *arrays), eager, rtol=1e-6, atol=1e-7)
    return eager


# ----------------------------------------------------------------------------- Linear
def test_linear_shapes_init_and_output():
    lin = nn.Linear(4, 3)
    assert lin.weight.shape == [4, 3] and lin.bias.shape == [3]
    assert not lin.bias.numpy().any()
    limit = math.sqrt(6 / (4 + 3))                # XavierUniform default
    assert np.abs(lin.weight.numpy()).max() <= limit and lin.weight.numpy().std() > 0
    check_layer(lin, lambda x: x @ lin.weight.numpy() + lin.bias.numpy(), X)


def test_linear_without_bias_and_with_weight_initializer():
    lin = nn.Linear(4, 2, weight_attr=nn.initializer.Constant(0.5), bias_attr=False)
    assert lin.bias is None and [n for n, _ in lin.named_parameters()] == ["weight"]
    check_layer(lin, lambda x: x.sum(1, keepdims=True).repeat(2, 1) * 0.5, X)


# ----------------------------------------------------------------------------- Embedding
def test_embedding_layer_and_padding_idx():
    emb = nn.Embedding(10, 3, padding_idx=2)
    ids = np.array([[2, 5], [7, 2]], dtype="int64")
    out = check_layer(emb, lambda i: np.where((i == 2)[..., None], 0, emb.weight.numpy()[i]), ids)
    assert out.shape == (2, 2, 3) and not out[0, 0].any() and out[0, 1].any()
    assert emb.weight.shape == [10, 3]
    with pytest.raises(ValueError, match="padding_idx"):
        nn.Embedding(4, 2, padding_idx=4)


# ----------------------------------------------------------------------------- norms
def test_layer_norm_layer():
    ln = nn.LayerNorm(4)
    assert ln.weight.numpy().tolist() == [1.0] * 4 and not ln.bias.numpy().any()
    ln.weight.set_value(np.array([1, 2, 3, 4], "float32"))
    ref = lambda x: (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-5) * [1, 2, 3, 4]
    check_layer(ln, ref, X)


def test_batch_norm1d_eval_uses_running_stats():
    bn = nn.BatchNorm1D(4)
    assert [n for n, _ in bn.named_buffers()] == ["_mean", "_variance"]
    assert list(bn.state_dict()) == ["weight", "bias", "_mean", "_variance"]
    bn._mean.set_value(np.array([1, 0, -1, 2], "float32"))
    bn._variance.set_value(np.array([4, 1, 0.25, 1], "float32"))
    bn.eval()
    check_layer(bn, lambda x: (x - [1, 0, -1, 2]) / np.sqrt(np.array([4, 1, 0.25, 1]) + 1e-5), X)


def test_batch_norm1d_train_uses_batch_stats_and_updates_running_mean():
    bn = nn.BatchNorm1D(4, momentum=0.5)
    out = bn(paddle.to_tensor(X)).numpy()
    np.testing.assert_allclose(out, (X - X.mean(0)) / np.sqrt(X.var(0) + 1e-5), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bn._mean.numpy(), 0.5 * X.mean(0), rtol=1e-5)
    np.testing.assert_allclose(bn._variance.numpy(), 0.5 + 0.5 * X.var(0), rtol=1e-5)


def test_batch_norm1d_three_dim_input_and_rank_check():
    bn = nn.BatchNorm1D(3).eval()
    x = RNG.standard_normal((2, 3, 5)).astype("float32")
    check_layer(bn, lambda x: x / np.sqrt(1 + 1e-5), x)
    with pytest.raises(ValueError, match="rank 2 or 3"):
        bn(paddle.zeros([3]))


def test_batch_norm_running_stats_in_static_program_are_read_at_run_time():
    bn = nn.BatchNorm1D(4).eval()
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        out = bn(paddle.static.data("x", [None, 4]))
    exe = paddle.static.Executor()
    first, = exe.run(main, feed={"x": X}, fetch_list=[out])
    bn._mean.set_value(np.ones(4, "float32"))
    second, = exe.run(main, feed={"x": X}, fetch_list=[out])
    np.testing.assert_allclose(first - second, 1 / np.sqrt(1 + 1e-5), rtol=1e-5)


# ----------------------------------------------------------------------------- dropout, activations
def test_dropout_layer_train_and_eval():
    drop = nn.Dropout(0.5)
    x = paddle.ones([50, 50])
    out = drop(x).numpy()
    assert set(np.unique(out).tolist()) == {0.0, 2.0}
    drop.eval()
    assert drop(x) is x or np.array_equal(drop(x).numpy(), x.numpy())
    np.testing.assert_array_equal(run_layer_static(drop, X), X)
    with pytest.raises(ValueError):
        nn.Dropout(-0.1)


def test_dropout_layer_seed_determinism():
    drop = nn.Dropout(0.5)
    x = paddle.ones([8, 8])
    paddle.seed(5)
    a = drop(x).numpy()
    paddle.seed(5)
    assert np.array_equal(a, drop(x).numpy())


@pytest.mark.parametrize("layer, fn", [
    (nn.ReLU(), F.relu), (nn.GELU(), F.gelu), (nn.GELU(approximate=True), lambda x: F.gelu(x, True)),
    (nn.Sigmoid(), F.sigmoid), (nn.Tanh(), F.tanh), (nn.Softmax(axis=0), lambda x: F.softmax(x, 0)),
    (nn.LogSoftmax(), F.log_softmax), (nn.LeakyReLU(0.3), lambda x: F.leaky_relu(x, 0.3)),
    (nn.ELU(), F.elu), (nn.Silu(), F.silu), (nn.ReLU6(), F.relu6), (nn.Softplus(), F.softplus),
])
def test_activation_layers_match_functional(layer, fn):
    check_layer(layer, lambda x: fn(paddle.to_tensor(x)).numpy(), X * 4)


def test_activation_values_spot_check():
    x = paddle.to_tensor(np.array([-1.0, 0.0, 2.0], "float32"))
    assert nn.ReLU()(x).numpy().tolist() == [0.0, 0.0, 2.0]
    np.testing.assert_allclose(nn.Sigmoid()(x).numpy(), [1 / (1 + math.e), 0.5, 1 / (1 + math.exp(-2))], rtol=1e-6)
    np.testing.assert_allclose(nn.GELU()(x).numpy(), [-0.15865525, 0.0, 1.9544997], rtol=1e-6)


# ----------------------------------------------------------------------------- shape layers
def test_flatten_and_identity():
    x = RNG.standard_normal((2, 3, 4)).astype("float32")
    check_layer(nn.Flatten(), lambda a: a.reshape(2, 12), x)
    check_layer(nn.Flatten(0, 1), lambda a: a.reshape(6, 4), x)
    t = paddle.to_tensor(x)
    assert nn.Identity(5, foo=1)(t) is t


# ----------------------------------------------------------------------------- containers
def test_sequential_positional_and_named():
    seq = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    assert len(seq) == 3 and [n for n, _ in seq.named_children()] == ["0", "1", "2"]
    assert [n for n, _ in seq.named_parameters()] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    ref = lambda x: np.maximum(x @ seq[0].weight.numpy() + seq[0].bias.numpy(), 0) @ seq[2].weight.numpy() + seq[2].bias.numpy()
    check_layer(seq, ref, X)
    assert seq[-1] is seq[2] and isinstance(seq[1], nn.ReLU)
    assert [type(l).__name__ for l in seq] == ["Linear", "ReLU", "Linear"]
    head = seq[:2]
    assert isinstance(head, nn.Sequential) and len(head) == 2 and head[0] is seq[0]
    with pytest.raises(IndexError, match="out of range"):
        seq[3]

    named = nn.Sequential(("enc", nn.Linear(4, 2)), ("act", nn.Tanh()))
    assert [n for n, _ in named.named_parameters()] == ["enc.weight", "enc.bias"]
    assert named["act"] is named[1]
    np.testing.assert_allclose(named(paddle.to_tensor(X)).numpy(),
                               np.tanh(X @ named.enc.weight.numpy() + named.enc.bias.numpy()), rtol=1e-5)


def test_sequential_setitem_delitem_append():
    seq = nn.Sequential(nn.ReLU(), nn.Tanh())
    seq[0] = nn.Sigmoid()
    assert isinstance(seq[0], nn.Sigmoid)
    del seq[0]
    assert len(seq) == 1 and isinstance(seq[0], nn.Tanh)
    seq.append(nn.ReLU())
    assert len(seq) == 2 and [type(l).__name__ for l in seq] == ["Tanh", "ReLU"]


def test_layer_list_operations():
    ll = nn.LayerList([nn.Linear(2, 2) for _ in range(2)])
    ll.append(nn.Linear(2, 3))
    ll.extend([nn.ReLU()])
    ll.insert(0, nn.Tanh())
    assert len(ll) == 5
    assert [type(l).__name__ for l in ll] == ["Tanh", "Linear", "Linear", "Linear", "ReLU"]
    assert [n for n, _ in ll.named_children()] == ["0", "1", "2", "3", "4"]
    assert ll[-1] is ll[4] and ll[-2].weight.shape == [2, 3]
    assert isinstance(ll[1:3], nn.LayerList) and len(ll[1:3]) == 2
    assert len(ll.parameters()) == 6
    del ll[0]
    assert type(ll[0]).__name__ == "Linear" and [n for n, _ in ll.named_children()] == ["0", "1", "2", "3"]
    with pytest.raises(IndexError):
        ll[4]


def test_layer_list_inside_a_model_runs_eager_and_static():
    class Stack(nn.Layer):
        def __init__(self):
            super().__init__()
            self.blocks = nn.LayerList([nn.Linear(4, 4) for _ in range(3)])

        def forward(self, x):
            for block in self.blocks:
                x = F.relu(block(x))
            return x

    net = Stack()
    assert [n for n, _ in net.named_parameters()][:2] == ["blocks.0.weight", "blocks.0.bias"]

    def ref(x):
        for b in net.blocks:
            x = np.maximum(x @ b.weight.numpy() + b.bias.numpy(), 0)
        return x
    check_layer(net, ref, X)


def test_parameter_list():
    layer = nn.Layer()
    params = nn.ParameterList([layer.create_parameter([2]) for _ in range(2)])
    params.append(layer.create_parameter([3]))
    assert len(params) == 3 and params[-1].shape == [3]
    assert [n for n, _ in params.named_parameters()] == ["0", "1", "2"]
    assert [p.shape for p in params] == [[2], [2], [3]]
    with pytest.raises(TypeError, match="Parameters"):
        params.append(paddle.zeros([1]))

    class Holder(nn.Layer):
        def __init__(self):
            super().__init__()
            self.ps = params

    assert list(Holder().state_dict()) == ["ps.0", "ps.1", "ps.2"]


def test_layer_dict():
    d = nn.LayerDict({"a": nn.Linear(2, 2), "b": nn.ReLU()})
    assert list(d.keys()) == ["a", "b"] and "a" in d and len(d) == 2
    assert [n for n, _ in d.named_parameters()] == ["a.weight", "a.bias"]


# ----------------------------------------------------------------------------- loss layers
def test_loss_layers():
    logits = RNG.standard_normal((4, 3)).astype("float32")
    labels = np.array([0, 2, 1, 1], "int64")
    ce = nn.CrossEntropyLoss()(paddle.to_tensor(logits), paddle.to_tensor(labels)).numpy()
    logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    np.testing.assert_allclose(ce, -logp[np.arange(4), labels].mean(), rtol=1e-5)
    y = RNG.standard_normal((4, 3)).astype("float32")
    np.testing.assert_allclose(nn.MSELoss()(paddle.to_tensor(logits), paddle.to_tensor(y)).numpy(),
                               ((logits - y) ** 2).mean(), rtol=1e-5)
    np.testing.assert_allclose(nn.L1Loss("sum")(paddle.to_tensor(logits), paddle.to_tensor(y)).numpy(),
                               np.abs(logits - y).sum(), rtol=1e-5)
