"""F.pad modes and the Pad1D/2D/3D, ZeroPad1D/2D/3D layers against np.pad, eager and static."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st import nn
from dy2st.nn import functional as F
from tests.support import run_static

RNG = np.random.default_rng(4)
NP_MODE = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def rnd(*shape):
    return RNG.standard_normal(shape).astype("float32")


@pytest.mark.parametrize("mode", list(NP_MODE))
@pytest.mark.parametrize("cls, shape, pad, widths", [
    (nn.Pad1D, (2, 3, 5), [1, 2], [(1, 2)]),
    (nn.Pad2D, (2, 3, 4, 5), [1, 0, 2, 1], [(2, 1), (1, 0)]),
    (nn.Pad3D, (1, 2, 3, 4, 3), [0, 1, 1, 2, 2, 0], [(2, 0), (1, 2), (0, 1)]),
])
def test_pad_layers_match_numpy(mode, cls, shape, pad, widths):
    layer = cls(pad, mode=mode, value=1.5) if mode == "constant" else cls(pad, mode=mode)
    x = rnd(*shape)
    full = ((0, 0), (0, 0)) + tuple(widths)
    kw = {"constant_values": 1.5} if mode == "constant" else {}
    want = np.pad(x, full, mode=NP_MODE[mode], **kw)
    np.testing.assert_array_equal(layer(paddle.to_tensor(x)).numpy(), want)
    static = run_static(layer, x, shapes=[[None] + list(shape[1:])])
    np.testing.assert_array_equal(static, want)


def test_zero_pad_layers_and_int_padding():
    x = rnd(1, 2, 3, 4)
    np.testing.assert_array_equal(nn.ZeroPad2D(1)(paddle.to_tensor(x)).numpy(),
                                  np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1))))
    np.testing.assert_array_equal(nn.ZeroPad2D([0, 1, 2, 0])(paddle.to_tensor(x)).numpy(),
                                  np.pad(x, ((0, 0), (0, 0), (2, 0), (0, 1))))
    x1, x3 = rnd(1, 2, 3), rnd(1, 1, 2, 2, 2)
    np.testing.assert_array_equal(nn.ZeroPad1D([2, 0])(paddle.to_tensor(x1)).numpy(),
                                  np.pad(x1, ((0, 0), (0, 0), (2, 0))))
    np.testing.assert_array_equal(nn.ZeroPad3D(1)(paddle.to_tensor(x3)).numpy(),
                                  np.pad(x3, ((0, 0), (0, 0), (1, 1), (1, 1), (1, 1))))


def test_channel_last_padding():
    x = rnd(1, 3, 4, 2)
    out = nn.Pad2D([1, 1, 0, 2], mode="reflect", data_format="NHWC")(paddle.to_tensor(x)).numpy()
    np.testing.assert_array_equal(out, np.pad(x, ((0, 0), (0, 2), (1, 1), (0, 0)), mode="reflect"))


def test_bad_padding_length_is_refused():
    with pytest.raises(ValueError, match="4 ints"):
        nn.Pad2D([1, 2, 3])


def test_zeropad2d_functional():
    x = rnd(2, 3, 4, 2)
    out = run_static(lambda x: F.zeropad2d(x, [1, 0, 2, 1], data_format="NHWC"), x, shapes=[[None, 3, 4, 2]])
    np.testing.assert_array_equal(out, np.pad(x, ((0, 0), (2, 1), (1, 0), (0, 0))))
    np.testing.assert_array_equal(F.zeropad2d(paddle.to_tensor(x), 1).numpy(),
                                  np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1))))
    with pytest.raises(ValueError, match="4 ints"):
        F.zeropad2d(paddle.to_tensor(x), [1, 2])
