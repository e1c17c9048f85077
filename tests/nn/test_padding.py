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


# ------------------------------------------------------------------ one-mode layers (ConstantPad2D, ...)
MODE_LAYERS = {
    "constant": (nn.ConstantPad1D, nn.ConstantPad2D, nn.ConstantPad3D),
    "reflect": (nn.ReflectionPad1D, nn.ReflectionPad2D, nn.ReflectionPad3D),
    "replicate": (nn.ReplicationPad1D, nn.ReplicationPad2D, nn.ReplicationPad3D),
    "circular": (nn.CircularPad1D, nn.CircularPad2D, nn.CircularPad3D),
}
ND_CASES = [((2, 3, 5), [1, 2], [(1, 2)]),
            ((2, 3, 4, 5), [1, 0, 2, 1], [(2, 1), (1, 0)]),
            ((1, 2, 3, 4, 3), [0, 1, 1, 2, 2, 0], [(2, 0), (1, 2), (0, 1)])]


@pytest.mark.parametrize("mode", list(MODE_LAYERS))
@pytest.mark.parametrize("nd", [1, 2, 3])
def test_one_mode_pad_layers_match_numpy(mode, nd):
    cls = MODE_LAYERS[mode][nd - 1]
    shape, pad, widths = ND_CASES[nd - 1]
    layer = cls(pad, -2.5) if mode == "constant" else cls(pad)
    x = rnd(*shape)
    kw = {"constant_values": -2.5} if mode == "constant" else {}
    want = np.pad(x, ((0, 0), (0, 0)) + tuple(widths), mode=NP_MODE[mode], **kw)
    np.testing.assert_array_equal(layer(paddle.to_tensor(x)).numpy(), want)
    np.testing.assert_array_equal(run_static(layer, x, shapes=[[None] + list(shape[1:])]), want)


def test_lower_case_d_names_are_the_same_classes():
    for upper in ("ConstantPad", "ReflectionPad", "ReplicationPad", "CircularPad"):
        for nd in (1, 2, 3):
            assert getattr(nn, f"{upper}{nd}d") is getattr(nn, f"{upper}{nd}D")


def test_one_mode_pad_int_padding_and_channel_last():
    x = rnd(1, 3, 4, 2)
    out = nn.ReplicationPad2D(1, data_format="NHWC")(paddle.to_tensor(x)).numpy()
    np.testing.assert_array_equal(out, np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)), mode="edge"))
    x1 = rnd(2, 2, 4)
    out = nn.ConstantPad1D(2, value=3.0)(paddle.to_tensor(x1)).numpy()
    np.testing.assert_array_equal(out, np.pad(x1, ((0, 0), (0, 0), (2, 2)), constant_values=3.0))
    with pytest.raises(ValueError, match="6 ints"):
        nn.CircularPad3D([1, 1])


def test_reflection_pad_gradient_matches_finite_differences():
    from tests.support import check_grad
    check_grad(lambda t: nn.ReflectionPad2D([2, 1, 1, 2])(t), rnd(1, 2, 3, 4))


class PadNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(2, 3, 3)
        self.pads = nn.Sequential(nn.ReflectionPad2D(1), nn.ConstantPad2d([1, 0, 0, 1], 0.5),
                                  nn.ReplicationPad2D([0, 1, 1, 0]), nn.CircularPad2D(1))

    def forward(self, x):
        return self.pads(self.conv(x))


def test_pad_layers_in_a_model_convert_and_round_trip(tmp_path):
    from tests.support import check_layer_converts
    out = check_layer_converts(PadNet(), [rnd(2, 2, 5, 5)], tmp_path)
    assert out.shape == (2, 3, 3 + 2 + 1 + 1 + 2, 3 + 2 + 1 + 1 + 2)
