"""Convolutions exported to ONNX (Conv, ConvTranspose) against eager mode: 1-D to 3-D, groups,
dilation, asymmetric and 'SAME' padding, channel-last layouts, output_padding."""
import pytest

import dy2st as paddle
import dy2st.nn.functional as F
from tests.onnx.checks import check
from tests.support import randn

CONVS = {
    "conv1d": lambda x, w: F.conv1d(x, w, stride=2, padding=[1, 2], dilation=2),
    "conv1d_nlc": lambda x, w: F.conv1d(paddle.transpose(x, [0, 2, 1]), w, padding="SAME",
                                        data_format="NLC"),
    "conv3d": lambda x, w: F.conv3d(x, w, stride=[1, 2, 1], padding=1, groups=2),
    "conv3d_ndhwc": lambda x, w: F.conv3d(paddle.transpose(x, [0, 2, 3, 4, 1]), w,
                                          dilation=[1, 2, 1], data_format="NDHWC"),
}
SHAPES = {"conv1d": ((1, 4, 11), (2, 4, 17), (6, 4, 3)),
          "conv1d_nlc": ((1, 4, 10), (3, 4, 7), (5, 4, 4)),
          "conv3d": ((1, 4, 5, 6, 7), (2, 4, 6, 5, 4), (6, 2, 3, 3, 2)),
          "conv3d_ndhwc": ((1, 4, 5, 6, 5), (2, 4, 4, 7, 3), (3, 4, 2, 2, 2))}


@pytest.mark.parametrize("name", sorted(CONVS))
def test_conv_nd(tmp_path, name):
    a, b, w = SHAPES[name]
    weight = randn(9, *w)
    fn = lambda x: CONVS[name](x, paddle.to_tensor(weight))  # noqa: E731
    check(tmp_path, fn, (randn(1, *a),), (randn(2, *a, scale=3.0),), rtol=1e-4, atol=1e-5)
    # another spatial size: a second export with those shapes
    check(tmp_path, fn, (randn(3, *b),), rtol=1e-4, atol=1e-5)


def test_conv2d_runs_the_nd_kernel_with_dilation_and_asymmetric_pads(tmp_path):
    weight = randn(4, 6, 2, 3, 2)
    def fn(x):
        return F.conv2d(x, paddle.to_tensor(weight), stride=[2, 1], padding=[0, 1, 2, 1],
                        dilation=[2, 1], groups=3)
    check(tmp_path, fn, (randn(5, 2, 6, 9, 8),), (randn(6, 2, 6, 9, 8),), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("channel_last", [False, True])
def test_transposed_convolutions(tmp_path, channel_last):
    paddle.seed(3)
    fmt2, fmt1 = ("NHWC", "NLC") if channel_last else ("NCHW", "NCL")
    up2 = paddle.nn.Conv2DTranspose(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2,
                                    data_format=fmt2)
    up1 = paddle.nn.Conv1DTranspose(4, 3, 4, stride=3, padding=[1, 0], dilation=2, data_format=fmt1)
    w3 = randn(8, 4, 2, 2, 3, 2)

    def up3(v):
        return F.conv3d_transpose(v, paddle.to_tensor(w3), stride=2, output_padding=[1, 0, 1])

    def f(x, y, z):
        return up2(x), up1(y), up3(z)
    xs = (2, 5, 7, 4) if channel_last else (2, 4, 5, 7)
    ys = (2, 9, 4) if channel_last else (2, 4, 9)
    check(tmp_path, f, (randn(1, *xs), randn(2, *ys), randn(3, 1, 4, 3, 4, 2)),
          (randn(4, *xs), randn(5, *ys), randn(6, 1, 4, 3, 4, 2)), rtol=1e-4, atol=1e-5)


def test_the_lowering_is_conv_and_conv_transpose(tmp_path):
    import onnx
    weight = randn(1, 3, 2, 3)
    path = str(tmp_path / "m")
    paddle.onnx.export(lambda x: F.conv1d_transpose(F.conv1d(x, paddle.to_tensor(weight)),
                                                    paddle.to_tensor(weight)),
                       path, input_spec=[paddle.static.InputSpec([None, 2, 8], "float32")])
    ops = [n.op_type for n in onnx.load(path + ".onnx").graph.node]
    assert ops.count("Conv") == 1 and ops.count("ConvTranspose") == 1, ops
