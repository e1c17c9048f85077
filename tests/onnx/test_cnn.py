"""A small CNN (conv -> batch norm -> pool -> interpolate -> activations) exported with a None
batch dim, checked by onnx's full checker and run in onnxruntime at two batch sizes."""
import numpy as np

import dy2st as paddle
import dy2st.nn.functional as F
from tests.support import flat_results, onnx_outputs, randn


class SmallCNN(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv1 = paddle.nn.Conv2D(3, 8, 3, padding=1)
        self.bn = paddle.nn.BatchNorm2D(8)
        self.conv2 = paddle.nn.Conv2D(8, 8, 3, stride=2, groups=4, padding="SAME")
        self.up = paddle.nn.Conv2DTranspose(8, 4, 2, stride=2)
        self.head = paddle.nn.Conv1D(4, 2, 3)

    def forward(self, x):
        y = F.selu(self.bn(self.conv1(x)))
        y, mask = F.max_pool2d(y, 2, return_mask=True)
        y = F.celu(self.conv2(y)) + F.avg_pool2d(y, 3, stride=2, padding=1)
        y = F.interpolate(y, scale_factor=2, mode="bilinear", align_corners=False)
        y = F.hardshrink(self.up(y), 0.1)
        pooled = F.adaptive_avg_pool2d(y, [1, 6])
        logits = self.head(paddle.squeeze(pooled, 2))
        return F.glu(F.log_sigmoid(logits), axis=1), mask


def test_small_cnn_exports_with_a_batch_dim_and_runs_at_two_batch_sizes(tmp_path):
    import onnx
    paddle.seed(11)
    net = SmallCNN()
    net(paddle.to_tensor(randn(1, 4, 3, 12, 12)))       # batch norm statistics move
    net.eval()
    path = str(tmp_path / "cnn")
    paddle.onnx.export(net, path, input_spec=[paddle.static.InputSpec([None, 3, 12, 12], "float32",
                                                                      "image")])
    model = onnx.load(path + ".onnx")
    onnx.checker.check_model(model, full_check=True)
    dims = model.graph.input[0].type.tensor_type.shape.dim
    assert dims[0].dim_param == "batch" and [d.dim_value for d in dims[1:]] == [3, 12, 12]
    ops = {n.op_type for n in model.graph.node}
    assert {"Conv", "ConvTranspose", "MaxPool", "AveragePool", "Resize"} <= ops, ops
    for batch in (1, 5):
        x = randn(batch, batch, 3, 12, 12)
        want = flat_results(net(paddle.to_tensor(x)))
        got = onnx_outputs(path + ".onnx", x)
        assert [g.shape for g in got] == [w.shape for w in want]
        assert want[0].shape == (batch, 1, 4)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


def test_the_cnn_exports_at_the_lowest_opset(tmp_path):
    # opset 13: Split without num_outputs, Reduce* axes as attributes, Resize's empty inputs
    paddle.seed(12)
    net = SmallCNN()
    net.eval()
    path = str(tmp_path / "cnn13")
    spec = [paddle.static.InputSpec([None, 3, 12, 12], "float32")]
    paddle.onnx.export(net, path, input_spec=spec, opset_version=13)
    x = randn(2, 3, 3, 12, 12)
    for g, w in zip(onnx_outputs(path + ".onnx", x), flat_results(net(paddle.to_tensor(x)))):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)
    with_global = lambda v: F.adaptive_max_pool2d(v, 1, return_mask=True)  # noqa: E731
    paddle.onnx.export(with_global, path, opset_version=13,
                       input_spec=[paddle.static.InputSpec([None, 3, 4, 5], "float32")])
    for g, w in zip(onnx_outputs(path + ".onnx", x[:, :, :4, :5]),
                    flat_results(with_global(paddle.to_tensor(x[:, :, :4, :5])))):
        np.testing.assert_array_equal(g, w)
