"""Paddle 3.x's torch-style names in paddle.nn: Module/ModuleList/ModuleDict, Parameter,
ParameterDict, Conv*d, AdaptiveMaxPool*d and LPPool*d."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st import nn
from dy2st.nn import functional as F
from tests.support import check_layer_converts, randn, run_static


def test_module_names_are_the_layer_classes():
    assert nn.Module is nn.Layer
    assert nn.ModuleList is nn.LayerList
    assert nn.ModuleDict is nn.LayerDict


def test_parameter_from_data_registers_on_assignment_and_trains():
    layer = nn.Layer()
    layer.scale = nn.Parameter(paddle.to_tensor([1.0, 2.0, 3.0]))
    layer.frozen = nn.Parameter(np.ones([2], "float32"), requires_grad=False)
    names = [n for n, _ in layer.named_parameters()]
    assert names == ["scale", "frozen"]
    assert layer.scale.trainable and not layer.scale.stop_gradient
    assert not layer.frozen.trainable and layer.frozen.stop_gradient
    assert layer.scale.dtype == paddle.float32
    np.testing.assert_array_equal(layer.state_dict()["scale"].numpy(), [1.0, 2.0, 3.0])
    x = paddle.to_tensor([1.0, 1.0, 1.0])
    (layer.scale * x).sum().backward()
    np.testing.assert_array_equal(layer.scale.grad.numpy(), [1.0, 1.0, 1.0])
    assert nn.Parameter().shape == [0]
    assert nn.Parameter([1.0, 2.0]).dtype == paddle.float32       # a Python list takes the default dtype
    assert nn.Parameter(np.zeros(2)).dtype == paddle.float64      # an array keeps its own


def test_parameter_dict_registers_by_key():
    pd = nn.ParameterDict({"a": nn.Parameter(np.ones([2, 2], "float32"))})
    pd["b"] = nn.Parameter(np.full([2, 3], 2.0, "float32"))
    assert list(pd) == ["a", "b"] and len(pd) == 2 and "b" in pd
    assert [n for n, _ in pd.named_parameters()] == ["a", "b"]
    with pytest.raises(TypeError, match="Parameters"):
        pd["c"] = paddle.ones([2])
    del pd["a"]
    assert list(pd.keys()) == ["b"]


class DictNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.params = nn.ParameterDict({f"t{i}": nn.Parameter(randn(i, 3, 3)) for i in range(3)})
        self.blocks = nn.ModuleDict({"fc": nn.Linear(3, 3), "act": nn.Tanh()})

    def forward(self, x):
        for key in self.params:
            x = paddle.matmul(x, self.params[key])
        return self.blocks["act"](self.blocks["fc"](x))


def test_parameter_dict_model_converts_and_round_trips(tmp_path):
    x = randn(1, 4, 3)
    net = DictNet()
    want = x @ randn(0, 3, 3) @ randn(1, 3, 3) @ randn(2, 3, 3)
    fc = net.blocks["fc"]
    want = np.tanh(want @ fc.weight.numpy() + fc.bias.numpy())
    out = check_layer_converts(net, [x], tmp_path)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("cls, base, shape", [(nn.Conv1d, nn.Conv1D, (2, 2, 7)),
                                              (nn.Conv2d, nn.Conv2D, (2, 2, 6, 5)),
                                              (nn.Conv3d, nn.Conv3D, (1, 2, 4, 5, 4))])
def test_conv_d_takes_torch_arguments_and_computes_as_conv_D(cls, base, shape):
    x = randn(3, *shape)
    paddle.seed(5)
    a = cls(2, 4, 3, stride=1, padding=1, bias=False)
    paddle.seed(5)
    b = base(2, 4, 3, stride=1, padding=1, bias_attr=False)
    assert isinstance(a, base) and a.bias is None
    np.testing.assert_allclose(a(paddle.to_tensor(x)).numpy(), b(paddle.to_tensor(x)).numpy(), rtol=1e-6)
    with_bias = cls(2, 4, 3)
    assert with_bias.bias is not None and with_bias.bias.shape == [4]


def test_adaptive_max_pool_d_return_indices():
    x = randn(4, 2, 3, 6, 6)
    m = nn.AdaptiveMaxPool2d(3, return_indices=True)
    out, idx = m(paddle.to_tensor(x))
    want = x.reshape(2, 3, 3, 2, 3, 2).max(axis=(3, 5))
    np.testing.assert_array_equal(out.numpy(), want)
    assert idx.shape == [2, 3, 3, 3]
    np.testing.assert_array_equal(nn.AdaptiveMaxPool1d(2)(paddle.to_tensor(x[:, :, 0])).numpy(),
                                  x[:, :, 0].reshape(2, 3, 2, 3).max(-1))
    x3 = randn(5, 1, 2, 4, 4, 4)
    np.testing.assert_array_equal(nn.AdaptiveMaxPool3d(2)(paddle.to_tensor(x3)).numpy(),
                                  x3.reshape(1, 2, 2, 2, 2, 2, 2, 2).max(axis=(3, 5, 7)))


def test_lp_pool_d_uses_torch_argument_order():
    x = np.abs(randn(6, 2, 3, 8)) + 0.1
    m = nn.LPPool1d(2, 2, 2, True)           # ceil_mode positional, as torch spells it
    assert m.ceil_mode is True and m.padding == 0
    want = np.sqrt((x.reshape(2, 3, 4, 2) ** 2).sum(-1))
    np.testing.assert_allclose(m(paddle.to_tensor(x)).numpy(), want, rtol=1e-5)
    np.testing.assert_allclose(run_static(m, x, shapes=[[None, 3, 8]]), want, rtol=1e-5)
    x2 = np.abs(randn(7, 1, 2, 4, 4)) + 0.1
    want2 = (x2.reshape(1, 2, 2, 2, 2, 2) ** 3).sum(axis=(3, 5)) ** (1 / 3)
    np.testing.assert_allclose(nn.LPPool2d(3, 2)(paddle.to_tensor(x2)).numpy(), want2, rtol=1e-5)


class CompatNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.convs = nn.ModuleList([nn.Conv2d(2, 4, 3, padding=1), nn.Conv2d(4, 4, 3, bias=False)])
        self.pool = nn.AdaptiveMaxPool2d(2)
        self.lp = nn.LPPool2d(2, 2)
        self.gain = nn.Parameter(paddle.to_tensor([1.5]))

    def forward(self, x):
        for conv in self.convs:
            x = F.relu(conv(x))
        return self.pool(x) * self.gain + self.lp(x)[:, :, :2, :2]


def test_compat_model_converts_and_round_trips(tmp_path):
    out = check_layer_converts(CompatNet(), [randn(8, 2, 2, 6, 6)], tmp_path)
    assert out.shape == (2, 4, 2, 2)
