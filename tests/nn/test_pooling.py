"""Pooling against loop references written from Paddle's formulas, eager and static (unknown
batch), masks, layouts and padding forms, and gradients against finite differences."""
import itertools
import math

import numpy as np
import pytest

import dy2st as paddle
from dy2st import nn
from dy2st.nn import functional as F
from tests.support import check_grad, run_static

RNG = np.random.default_rng(3)


def rnd(*shape):
    return RNG.standard_normal(shape).astype("float32")


def pool_ref(x, kernel, stride, pads, kind, ceil=False, exclusive=True):
    """Loops over output positions; windows [i*s - lo, i*s - lo + k) clipped to the input."""
    nd = len(kernel)
    sizes = x.shape[2:]
    outs = [(n + lo + hi - k + (s - 1 if ceil else 0)) // s + 1
            for n, k, s, (lo, hi) in zip(sizes, kernel, stride, pads)]
    out = np.zeros(x.shape[:2] + tuple(outs), dtype=np.float64)
    mask = np.zeros(out.shape, dtype=np.int64)
    for pos in itertools.product(*(range(o) for o in outs)):
        starts = [p * s - lo for p, s, (lo, _) in zip(pos, stride, pads)]
        lo_ = [max(a, 0) for a in starts]
        hi_ = [min(a + k, n) for a, k, n in zip(starts, kernel, sizes)]
        win = x[(slice(None), slice(None)) + tuple(slice(a, b) for a, b in zip(lo_, hi_))]
        if kind == "avg":
            div = np.prod([b - a for a, b in zip(lo_, hi_)]) if exclusive else np.prod(kernel)
            out[(Ellipsis,) + pos] = win.sum(axis=tuple(range(2, 2 + nd))) / div
        else:
            flat = win.reshape(x.shape[0], x.shape[1], -1)
            out[(Ellipsis,) + pos] = flat.max(-1)
            local = np.unravel_index(flat.argmax(-1), win.shape[2:])
            glob = [loc + a for loc, a in zip(local, lo_)]
            mask[(Ellipsis,) + pos] = np.ravel_multi_index(glob, sizes)
    return out.astype(x.dtype), mask


def adaptive_ref(x, outs, kind):
    sizes = x.shape[2:]
    out = np.zeros(x.shape[:2] + tuple(outs))
    for pos in itertools.product(*(range(o) for o in outs)):
        index = tuple(slice(math.floor(p * n / o), math.ceil((p + 1) * n / o))
                      for p, n, o in zip(pos, sizes, outs))
        win = x[(slice(None), slice(None)) + index].reshape(x.shape[0], x.shape[1], -1)
        out[(Ellipsis,) + pos] = win.mean(-1) if kind == "avg" else win.max(-1)
    return out.astype(x.dtype)


def both(fn, x):
    eager = fn(paddle.to_tensor(x))
    static = run_static(fn, x, shapes=[[None] + list(x.shape[1:])])
    eager_list = list(eager) if isinstance(eager, tuple) else [eager]
    static_list = list(static) if isinstance(eager, tuple) else [static]
    for e, s in zip(eager_list, static_list):
        np.testing.assert_allclose(s, e.numpy(), rtol=1e-6, atol=1e-6)
    return [e.numpy() for e in eager_list]


@pytest.mark.parametrize("kw, ref", [
    ({"kernel_size": 2}, ([2, 2], [2, 2], [(0, 0), (0, 0)], False)),
    ({"kernel_size": 3, "stride": 2, "padding": 1}, ([3, 3], [2, 2], [(1, 1), (1, 1)], False)),
    ({"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True}, ([3, 3], [2, 2], [(1, 1), (1, 1)], True)),
    ({"kernel_size": [2, 3], "stride": [1, 2], "padding": [1, 0, 0, 1]}, ([2, 3], [1, 2], [(1, 0), (0, 1)], False)),
])
def test_max_pool2d_values_and_mask(kw, ref):
    x = rnd(2, 3, 7, 6)
    out, mask = both(lambda x: F.max_pool2d(x, return_mask=True, **kw), x)
    want, want_mask = pool_ref(x, *ref[:3], "max", ceil=ref[3])
    np.testing.assert_allclose(out, want, rtol=1e-6)
    np.testing.assert_array_equal(mask, want_mask)


@pytest.mark.parametrize("exclusive", [True, False])
@pytest.mark.parametrize("ceil_mode", [True, False])
def test_avg_pool2d_exclusive_and_ceil_mode(exclusive, ceil_mode):
    x = rnd(2, 3, 7, 6)
    out, = both(lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=ceil_mode, exclusive=exclusive), x)
    want, _ = pool_ref(x, [3, 3], [2, 2], [(1, 1), (1, 1)], "avg", ceil=ceil_mode, exclusive=exclusive)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)


def test_avg_pool2d_divisor_override_and_nhwc():
    x = rnd(1, 2, 4, 4)
    out = F.avg_pool2d(paddle.to_tensor(x), 2, divisor_override=3).numpy()
    np.testing.assert_allclose(out, pool_ref(x, [2, 2], [2, 2], [(0, 0)] * 2, "avg")[0] * 4 / 3, rtol=1e-5)
    nhwc = F.avg_pool2d(paddle.to_tensor(x.transpose(0, 2, 3, 1)), 2, data_format="NHWC").numpy()
    np.testing.assert_allclose(nhwc.transpose(0, 3, 1, 2), pool_ref(x, [2, 2], [2, 2], [(0, 0)] * 2, "avg")[0],
                               rtol=1e-5)


def test_same_and_valid_padding():
    x = rnd(1, 2, 7, 5)
    same = F.max_pool2d(paddle.to_tensor(x), 3, 2, padding="SAME")
    assert same.shape == [1, 2, 4, 3]
    # SAME: total = (out - 1) * s + k - n, split low-first
    np.testing.assert_allclose(same.numpy(), pool_ref(x, [3, 3], [2, 2], [(1, 1), (1, 1)], "max")[0])
    valid = F.avg_pool2d(paddle.to_tensor(x), 3, 2, padding="VALID")
    assert valid.shape == [1, 2, 3, 2]
    with pytest.raises(ValueError, match="ceil_mode"):
        F.max_pool2d(paddle.to_tensor(x), 3, padding="VALID", ceil_mode=True)


def test_pool1d_and_pool3d():
    x1 = rnd(2, 3, 9)
    out, mask = both(lambda x: F.max_pool1d(x, 3, 2, 1, return_mask=True), x1)
    want, want_mask = pool_ref(x1, [3], [2], [(1, 1)], "max")
    np.testing.assert_allclose(out, want)
    np.testing.assert_array_equal(mask, want_mask)
    out, = both(lambda x: F.avg_pool1d(x, 4, 3, 1, exclusive=False, ceil_mode=True), x1)
    np.testing.assert_allclose(out, pool_ref(x1, [4], [3], [(1, 1)], "avg", True, False)[0], rtol=1e-5)
    x3 = rnd(1, 2, 4, 5, 4)
    out, = both(lambda x: F.max_pool3d(x, 2, [2, 2, 1]), x3)
    np.testing.assert_allclose(out, pool_ref(x3, [2] * 3, [2, 2, 1], [(0, 0)] * 3, "max")[0])
    out, = both(lambda x: F.avg_pool3d(x, [2, 3, 2], 1, padding=[1, 1, 0]), x3)
    np.testing.assert_allclose(out, pool_ref(x3, [2, 3, 2], [1] * 3, [(1, 1), (1, 1), (0, 0)], "avg")[0],
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fn, outs, kind", [
    (lambda x: F.adaptive_avg_pool2d(x, [3, 2]), [3, 2], "avg"),
    (lambda x: F.adaptive_avg_pool2d(x, 4), [4, 4], "avg"),
    (lambda x: F.adaptive_max_pool2d(x, [3, 4]), [3, 4], "max"),
])
def test_adaptive_2d(fn, outs, kind):
    x = rnd(2, 3, 7, 5)
    out, = both(fn, x)
    np.testing.assert_allclose(out, adaptive_ref(x, outs, kind), rtol=1e-5, atol=1e-6)


def test_adaptive_1d_3d_none_size_and_mask():
    x1 = rnd(2, 3, 10)
    out, mask = both(lambda x: F.adaptive_max_pool1d(x, 4, return_mask=True), x1)
    np.testing.assert_allclose(out, adaptive_ref(x1, [4], "max"))
    np.testing.assert_array_equal(np.take_along_axis(x1, mask, -1), out)
    out, = both(lambda x: F.adaptive_avg_pool1d(x, 3), x1)
    np.testing.assert_allclose(out, adaptive_ref(x1, [3], "avg"), rtol=1e-5)
    x3 = rnd(1, 2, 5, 4, 6)
    out, = both(lambda x: F.adaptive_avg_pool3d(x, [2, None, 3]), x3)
    np.testing.assert_allclose(out, adaptive_ref(x3, [2, 4, 3], "avg"), rtol=1e-5, atol=1e-6)
    out, = both(lambda x: F.adaptive_max_pool3d(x, 2), x3)
    np.testing.assert_allclose(out, adaptive_ref(x3, [2, 2, 2], "max"))


def test_errors_name_the_problem():
    with pytest.raises(ValueError, match="4-D input"):
        F.max_pool2d(paddle.zeros([2, 3, 4]), 2)
    with pytest.raises(ValueError, match="data_format"):
        F.avg_pool2d(paddle.zeros([1, 1, 4, 4]), 2, data_format="NCL")
    with pytest.raises(ValueError, match="padding"):
        F.max_pool2d(paddle.zeros([1, 1, 4, 4]), 2, padding="FULL")


def test_gradients_match_finite_differences():
    x = RNG.standard_normal((2, 2, 5, 4))
    check_grad(lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True), x)
    check_grad(lambda x: F.avg_pool2d(x, 2, 1, exclusive=False, data_format="NHWC"), x)
    check_grad(lambda x: F.max_pool2d(x, 3, 2, 1), x)
    check_grad(lambda x: F.max_pool2d(x, 2, data_format="NHWC"), x)
    check_grad(lambda x: F.adaptive_avg_pool2d(x, [3, 3]), x)
    check_grad(lambda x: F.adaptive_max_pool1d(x, 3), RNG.standard_normal((2, 3, 7)))
    check_grad(lambda x: F.max_pool3d(x, 2), RNG.standard_normal((1, 2, 4, 4, 2)))


def test_layers_match_functional():
    x = paddle.to_tensor(rnd(2, 3, 6, 6))
    x1 = paddle.to_tensor(rnd(2, 3, 6))
    x3 = paddle.to_tensor(rnd(1, 2, 4, 4, 4))
    pairs = [
        (nn.MaxPool2D(3, 2, 1), F.max_pool2d(x, 3, 2, 1)),
        (nn.AvgPool2D(2, ceil_mode=True, exclusive=False), F.avg_pool2d(x, 2, ceil_mode=True, exclusive=False)),
        (nn.AdaptiveAvgPool2D([2, 3]), F.adaptive_avg_pool2d(x, [2, 3])),
        (nn.AdaptiveMaxPool2D(2), F.adaptive_max_pool2d(x, 2)),
    ]
    for layer, want in pairs:
        np.testing.assert_array_equal(layer(x).numpy(), want.numpy())
    np.testing.assert_array_equal(nn.MaxPool1D(2)(x1).numpy(), F.max_pool1d(x1, 2).numpy())
    np.testing.assert_array_equal(nn.AvgPool1D(3, 1, 1)(x1).numpy(), F.avg_pool1d(x1, 3, 1, 1).numpy())
    np.testing.assert_array_equal(nn.AdaptiveAvgPool1D(4)(x1).numpy(), F.adaptive_avg_pool1d(x1, 4).numpy())
    np.testing.assert_array_equal(nn.AdaptiveMaxPool1D(4)(x1).numpy(), F.adaptive_max_pool1d(x1, 4).numpy())
    np.testing.assert_array_equal(nn.MaxPool3D(2)(x3).numpy(), F.max_pool3d(x3, 2).numpy())
    np.testing.assert_array_equal(nn.AvgPool3D(2)(x3).numpy(), F.avg_pool3d(x3, 2).numpy())
    np.testing.assert_array_equal(nn.AdaptiveAvgPool3D(1)(x3).numpy(), F.adaptive_avg_pool3d(x3, 1).numpy())
    np.testing.assert_array_equal(nn.AdaptiveMaxPool3D(2)(x3).numpy(), F.adaptive_max_pool3d(x3, 2).numpy())
    out, mask = nn.MaxPool2D(2, return_mask=True)(x)
    assert mask.dtype == paddle.int64 and out.shape == mask.shape == [2, 3, 3, 3]
