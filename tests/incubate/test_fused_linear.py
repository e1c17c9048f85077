"""paddle.incubate.nn.FusedLinear and its functional forms: Linear's result for either weight
layout, in eager mode, under to_static, through jit.save / jit.load and ONNX, with gradients."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.incubate.nn import FusedLinear, functional as IF
from tests.support import check_grad, check_layer_converts, onnx_outputs, randn


@pytest.mark.parametrize("transpose_weight", [False, True])
def test_fused_linear_layer(transpose_weight, tmp_path):
    paddle.seed(3)
    layer = FusedLinear(4, 3, transpose_weight=transpose_weight)
    assert layer.weight.shape == ([3, 4] if transpose_weight else [4, 3])
    assert layer.bias.shape == [3]
    x = randn(0, 5, 4)
    w = layer.weight.numpy()
    want = x @ (w.T if transpose_weight else w) + layer.bias.numpy()
    got = check_layer_converts(layer, [x], tmp_path)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_fused_linear_trains():
    paddle.seed(0)
    layer = FusedLinear(4, 2, transpose_weight=True)
    opt = paddle.optimizer.SGD(0.1, parameters=layer.parameters())
    x, y = paddle.to_tensor(randn(1, 8, 4)), paddle.to_tensor(randn(2, 8, 2))
    losses = []
    for _ in range(5):
        loss = ((layer(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    assert losses[-1] < losses[0]


def test_functional_gradients():
    check_grad(lambda x, w, b: IF.fused_linear(x, w, b, transpose_weight=True),
               randn(0, 3, 4, dtype="float64"), randn(1, 2, 4, dtype="float64"),
               randn(2, 2, dtype="float64"))
    check_grad(lambda x, y: IF.fused_matmul_bias(x, y, transpose_x=True),
               randn(0, 4, 3, dtype="float64"), randn(1, 4, 2, dtype="float64"))


def test_isinstance_check_of_swin():
    # Swin: `if isinstance(m, (nn.Linear, paddle.incubate.nn.FusedLinear)): init(m.weight)`
    assert isinstance(paddle.incubate.nn.FusedLinear(2, 2), paddle.nn.Layer)
    assert not isinstance(paddle.nn.Linear(2, 2), paddle.incubate.nn.FusedLinear)


def test_onnx_export(tmp_path):
    paddle.seed(1)
    layer = FusedLinear(4, 3, transpose_weight=True)
    layer.eval()
    path = str(tmp_path / "fused")
    paddle.onnx.export(layer, path, input_spec=[paddle.static.InputSpec([None, 4], "float32")])
    x = randn(0, 6, 4)
    np.testing.assert_allclose(onnx_outputs(path + ".onnx", x)[0], layer(paddle.to_tensor(x)).numpy(),
                               rtol=1e-5, atol=1e-6)
