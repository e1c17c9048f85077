"""conv2d / Conv2D against a direct loop reference, eager and static."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st import nn
from dy2st.nn import functional as F

RNG = np.random.default_rng(5)


def conv_ref(x, w, b=None, stride=(1, 1), pads=((0, 0), (0, 0)), dilation=(1, 1), groups=1):
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0)) + tuple(pads))
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    oh = (h - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, o, oh, ow))
    og = o // groups
    for oc in range(o):
        g = oc // og
        for i in range(oh):
            for j in range(ow):
                patch = x[:, g * cg:(g + 1) * cg,
                          i * stride[0]: i * stride[0] + dilation[0] * (kh - 1) + 1: dilation[0],
                          j * stride[1]: j * stride[1] + dilation[1] * (kw - 1) + 1: dilation[1]]
                out[:, oc, i, j] = (patch * w[oc]).sum(axis=(1, 2, 3))
    if b is not None:
        out += b.reshape(1, -1, 1, 1)
    return out.astype(np.float32)


@pytest.mark.parametrize("kw, ref_kw", [
    ({}, {}),
    ({"stride": 2, "padding": 1}, {"stride": (2, 2), "pads": ((1, 1), (1, 1))}),
    ({"padding": [1, 0, 2, 1], "dilation": 2}, {"pads": ((1, 0), (2, 1)), "dilation": (2, 2)}),
])
def test_conv2d_matches_loop_reference(check, kw, ref_kw):
    x = RNG.standard_normal((2, 3, 7, 6)).astype("float32")
    w = RNG.standard_normal((4, 3, 3, 3)).astype("float32")
    b = RNG.standard_normal(4).astype("float32")
    check(lambda x, w, b: F.conv2d(x, w, b, **kw), lambda x, w, b: conv_ref(x, w, b, **ref_kw),
          x, w, b, rtol=1e-4, atol=1e-5)


def test_conv2d_groups_and_nhwc():
    x = RNG.standard_normal((1, 4, 5, 5)).astype("float32")
    w = RNG.standard_normal((6, 2, 3, 3)).astype("float32")
    out = F.conv2d(paddle.to_tensor(x), paddle.to_tensor(w), groups=2).numpy()
    np.testing.assert_allclose(out, conv_ref(x, w, groups=2), rtol=1e-4, atol=1e-5)
    nhwc = F.conv2d(paddle.to_tensor(x.transpose(0, 2, 3, 1)), paddle.to_tensor(w), groups=2,
                    data_format="NHWC").numpy()
    np.testing.assert_allclose(nhwc, out.transpose(0, 2, 3, 1), rtol=1e-5, atol=1e-6)


def test_conv2d_same_padding_keeps_size():
    x = paddle.to_tensor(RNG.standard_normal((1, 2, 7, 8)).astype("float32"))
    w = paddle.to_tensor(RNG.standard_normal((3, 2, 3, 3)).astype("float32"))
    assert F.conv2d(x, w, padding="SAME").shape == [1, 3, 7, 8]
    assert F.conv2d(x, w, padding="SAME", stride=2).shape == [1, 3, 4, 4]
    assert F.conv2d(x, w, padding="VALID").shape == [1, 3, 5, 6]


def test_conv2d_channel_mismatch_message():
    with pytest.raises(ValueError, match="3 channels"):
        F.conv2d(paddle.zeros([1, 3, 4, 4]), paddle.zeros([2, 2, 3, 3]))


def test_conv2d_layer_eager_and_static_with_unknown_batch():
    conv = nn.Conv2D(3, 5, 3, padding=1)
    assert conv.weight.shape == [5, 3, 3, 3] and conv.bias.shape == [5]
    x = RNG.standard_normal((2, 3, 6, 6)).astype("float32")
    eager = conv(paddle.to_tensor(x)).numpy()
    np.testing.assert_allclose(eager, conv_ref(x, conv.weight.numpy(), conv.bias.numpy(), pads=((1, 1), (1, 1))),
                               rtol=1e-4, atol=1e-5)
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        out = conv(paddle.static.data("x", [None, 3, 6, 6]))
    assert out._shape == (-1, 5, 6, 6)
    got, = paddle.static.Executor().run(main, feed={"x": x}, fetch_list=[out])
    np.testing.assert_allclose(got, eager, rtol=1e-6)
