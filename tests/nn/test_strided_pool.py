"""Max pooling's strided-slice kernel (nn/functional/strided_pool.py) against the general gather
kernel and a per-window numpy reference: values and argmax indices for 1-D to 3-D windows,
strides, padding, ceil_mode, ties, NaN, -inf, integers and size-1 / empty batch dims."""
import itertools

import numpy as np
import pytest

import dy2st as paddle
import dy2st.nn.functional as F
from dy2st.nn.functional.pooling import window_max
from dy2st.nn.functional.resample import windows
from dy2st.nn.functional.strided_pool import strided_max_applies, strided_window_max

RNG = np.random.default_rng(11)


def _specs(ks, ss, pads, ceil):
    return [{"kind": "pool", "k": k, "s": s, "lo": lo, "hi": hi, "ceil": ceil, "exclusive": True}
            for k, s, (lo, hi) in zip(ks, ss, pads)]


def _reference(x, specs):
    spans = [[(lo, hi) for lo, hi, _ in windows(spec, size)] for spec, size in zip(specs, x.shape[2:])]
    return window_max(x, spans)


CONFIGS = [
    ((5,), (2,), (1,), [(0, 0)], False),
    ((7,), (3,), (2,), [(1, 1)], True),
    ((6, 6), (2, 2), (2, 2), [(0, 0), (0, 0)], False),
    ((7, 5), (3, 2), (2, 1), [(1, 1), (0, 1)], True),
    ((9, 8), (3, 3), (2, 3), [(1, 0), (2, 2)], False),
    ((1, 4), (1, 2), (1, 2), [(0, 0), (0, 0)], True),
    ((5, 5, 3), (2, 2, 2), (2, 1, 1), [(0, 1), (1, 0), (0, 0)], True),
]


@pytest.mark.parametrize("sizes,ks,ss,pads,ceil", CONFIGS)
@pytest.mark.parametrize("data", ["random", "ties", "nan_inf", "int"])
def test_matches_the_gather_kernel(sizes, ks, ss, pads, ceil, data):
    specs = _specs(ks, ss, pads, ceil)
    assert strided_max_applies(specs, sizes)
    shape = (2, 3) + sizes
    if data == "random":
        x = RNG.standard_normal(shape).astype(np.float32)
    elif data == "ties":
        x = RNG.integers(0, 3, shape).astype(np.float64)
    elif data == "nan_inf":
        x = RNG.standard_normal(shape)
        flat = x.reshape(-1)
        flat[RNG.choice(flat.size, flat.size // 4, replace=False)] = -np.inf
        flat[RNG.choice(flat.size, max(1, flat.size // 10), replace=False)] = np.nan
    else:
        x = RNG.integers(-5, 5, shape).astype(np.int32)
    got, got_mask = strided_window_max(x, specs)
    want, want_mask = _reference(x, specs)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got_mask, want_mask)
    assert got.dtype == x.dtype and got_mask.dtype == np.int64


def test_all_minus_inf_window_next_to_padding_points_at_a_real_position():
    x = np.full((1, 1, 3, 3), -np.inf)
    out, mask = strided_window_max(x, _specs((2, 2), (1, 1), [(1, 1), (1, 1)], False))
    np.testing.assert_array_equal(out, -np.inf)
    _, want_mask = _reference(x, _specs((2, 2), (1, 1), [(1, 1), (1, 1)], False))
    np.testing.assert_array_equal(mask, want_mask)
    assert (mask >= 0).all() and (mask < 9).all()


def test_empty_and_size_one_batch_dims():
    for n in (0, 1):
        x = RNG.standard_normal((n, 2, 6, 6)).astype(np.float32)
        out, mask = F.max_pool2d(paddle.to_tensor(x), 2, return_mask=True)
        assert out.shape == [n, 2, 3, 3] and mask.shape == [n, 2, 3, 3]
        if n:
            np.testing.assert_array_equal(out.numpy(), x.reshape(1, 2, 3, 2, 3, 2).max(axis=(3, 5)))


def test_windows_beyond_the_input_take_the_general_kernel():
    # padding as large as the kernel: a window of padding alone (Paddle refuses; the gather
    # kernel defines it), so the strided kernel declines
    assert not strided_max_applies(_specs((2,), (1,), [(2, 0)], False), (4,))
    assert not strided_max_applies([{"kind": "adaptive", "out": 2}], (4,))


@pytest.mark.parametrize("channel_last", [False, True])
def test_max_pool2d_values_mask_and_gradient(channel_last):
    x = RNG.standard_normal((2, 3, 8, 7))
    fmt = "NHWC" if channel_last else "NCHW"
    xin = np.moveaxis(x, 1, -1).copy() if channel_last else x
    t = paddle.to_tensor(xin, stop_gradient=False)
    out, mask = F.max_pool2d(t, 3, stride=2, padding=1, return_mask=True, data_format=fmt)
    (out * out).sum().backward()
    ref, ref_mask = _reference(x, _specs((3, 3), (2, 2), [(1, 1), (1, 1)], False))
    got = np.moveaxis(out.numpy(), -1, 1) if channel_last else out.numpy()
    got_mask = np.moveaxis(mask.numpy(), -1, 1) if channel_last else mask.numpy()
    np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(got_mask, ref_mask)
    # the gradient of sum(out^2) puts 2 * max at each window's argmax (summed over windows)
    want = np.zeros_like(x)
    for n, c in itertools.product(range(2), range(3)):
        np.add.at(want[n, c].reshape(-1), ref_mask[n, c].reshape(-1), 2 * ref[n, c].reshape(-1))
    grad = np.moveaxis(t.grad.numpy(), -1, 1) if channel_last else t.grad.numpy()
    np.testing.assert_allclose(grad, want, rtol=1e-12)
