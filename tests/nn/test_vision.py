"""interpolate, pixel (un)shuffle, channel_shuffle, unfold/fold, affine_grid and grid_sample
against loops written by hand from Paddle's formulas; eager, static (unknown batch) and gradients."""
import itertools
import math

import numpy as np
import pytest

import dy2st as paddle
from dy2st import nn
from dy2st.nn import functional as F
from tests.support import check_grad, run_static

RNG = np.random.default_rng(17)


def rnd(*shape):
    return RNG.standard_normal(shape).astype("float32")


def both(fn, *arrays, rtol=1e-6):
    eager = fn(*[paddle.to_tensor(a) for a in arrays]).numpy()
    shapes = [[None] + list(a.shape[1:]) for a in arrays]
    np.testing.assert_allclose(run_static(fn, *arrays, shapes=shapes), eager, rtol=rtol, atol=1e-6)
    return eager


# ----------------------------------------------------------------------------- interpolate
def ratio(n_in, n_out, align_corners, scale=None):
    if n_out <= 1:
        return 0.0
    if align_corners:
        return (n_in - 1) / (n_out - 1)
    return 1.0 / scale if scale else n_in / n_out


def taps_1d(mode, n_in, n_out, align_corners=False, align_mode=0, scale=None):
    """[(index, weight), ...] per output position along one axis."""
    r = ratio(n_in, n_out, align_corners, scale)
    taps = []
    for i in range(n_out):
        if mode == "nearest":
            taps.append([(min(int(r * i + 0.5) if align_corners else int(r * i), n_in - 1), 1.0)])
        elif mode == "linear":
            src = r * (i + 0.5) - 0.5 if (align_mode == 0 and not align_corners) else r * i
            src = max(src, 0.0)
            i0 = int(src)
            i1 = min(i0 + 1, n_in - 1)
            taps.append([(i0, 1 - (src - i0)), (i1, src - i0)])
        else:   # cubic, A = -0.75
            src = r * i if align_corners else r * (i + 0.5) - 0.5
            f = math.floor(src)
            t = src - f
            a = -0.75
            ws = [((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a,
                  ((a + 2) * t - (a + 3)) * t * t + 1,
                  ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1,
                  ((a * (2 - t) - 5 * a) * (2 - t) + 8 * a) * (2 - t) - 4 * a]
            taps.append([(min(max(f - 1 + j, 0), n_in - 1), ws[j]) for j in range(4)])
    return taps


def interp_ref(x, outs, mode, kw=None):
    """Channel-first; the product of per-axis taps, one output point at a time. kw: keyword
    arguments of taps_1d, one dict for all axes or a list with one per axis."""
    sizes = x.shape[2:]
    kws = kw if isinstance(kw, list) else [kw or {}] * len(sizes)
    per_axis = [taps_1d(mode, n, o, **k) for n, o, k in zip(sizes, outs, kws)]
    out = np.zeros(x.shape[:2] + tuple(outs))
    for pos in itertools.product(*(range(o) for o in outs)):
        acc = 0.0
        for combo in itertools.product(*(per_axis[d][p] for d, p in enumerate(pos))):
            idx = tuple(c[0] for c in combo)
            acc = acc + x[(slice(None), slice(None)) + idx] * np.prod([c[1] for c in combo])
        out[(slice(None), slice(None)) + pos] = acc
    return out


@pytest.mark.parametrize("kw, outs, mode, ref_kw", [
    ({"size": [5, 7]}, [5, 7], "nearest", {}),
    ({"scale_factor": 2}, [8, 10], "nearest", {"scale": 2.0}),
    ({"size": [6, 3], "mode": "bilinear"}, [6, 3], "linear", {}),
    ({"size": [6, 3], "mode": "bilinear", "align_corners": True}, [6, 3], "linear", {"align_corners": True}),
    ({"size": [7, 9], "mode": "bilinear", "align_mode": 1}, [7, 9], "linear", {"align_mode": 1}),
    ({"scale_factor": [1.5, 0.7], "mode": "bilinear"}, [6, 3], "linear", [{"scale": 1.5}, {"scale": 0.7}]),
    ({"size": [6, 8], "mode": "bicubic"}, [6, 8], "cubic", {}),
    ({"size": [6, 8], "mode": "bicubic", "align_corners": True}, [6, 8], "cubic", {"align_corners": True}),
])
def test_interpolate_2d(kw, outs, mode, ref_kw):
    x = rnd(2, 3, 4, 5)
    out = both(lambda x: F.interpolate(x, **kw), x)
    assert list(out.shape[2:]) == outs
    np.testing.assert_allclose(out, interp_ref(x, outs, mode, ref_kw), rtol=1e-4, atol=1e-5)


def test_interpolate_1d_3d_area_and_nhwc():
    x1 = rnd(2, 3, 5)
    out = both(lambda x: F.interpolate(x, size=[8], mode="linear", data_format="NCW"), x1)
    np.testing.assert_allclose(out, interp_ref(x1, [8], "linear"), rtol=1e-5, atol=1e-6)
    x3 = rnd(1, 2, 3, 4, 2)
    out = both(lambda x: F.interpolate(x, scale_factor=2, mode="trilinear", align_corners=True), x3)
    np.testing.assert_allclose(out, interp_ref(x3, [6, 8, 4], "linear", {"align_corners": True}),
                               rtol=1e-5, atol=1e-6)
    out = both(lambda x: F.interpolate(x, size=[3, 3, 3], mode="nearest"), x3)
    np.testing.assert_allclose(out, interp_ref(x3, [3, 3, 3], "nearest"))
    x = rnd(2, 6, 4, 3)
    out = both(lambda x: F.interpolate(x, size=[3, 2], mode="area"), x)
    np.testing.assert_allclose(out, F.adaptive_avg_pool2d(paddle.to_tensor(x), [3, 2]).numpy(), rtol=1e-6)
    nhwc = F.interpolate(paddle.to_tensor(x.transpose(0, 2, 3, 1)), size=[5, 5], mode="bilinear",
                         data_format="NHWC").numpy()
    np.testing.assert_allclose(nhwc.transpose(0, 3, 1, 2), interp_ref(x, [5, 5], "linear"), rtol=1e-5, atol=1e-6)


def test_interpolate_errors():
    x = paddle.zeros([1, 1, 4, 4])
    with pytest.raises(ValueError, match="exactly one"):
        F.interpolate(x)
    with pytest.raises(ValueError, match="align_corners"):
        F.interpolate(x, size=[2, 2], align_corners=True)
    with pytest.raises(ValueError, match="'linear'"):
        F.interpolate(x, size=[2, 2], mode="linear")
    with pytest.raises(ValueError, match="mode"):
        F.interpolate(x, size=[2, 2], mode="lanczos")


# ----------------------------------------------------------------------------- rearranging
def test_pixel_shuffle_unshuffle_and_channel_shuffle():
    r = 2
    x = rnd(2, 8, 3, 2)
    out = both(lambda x: F.pixel_shuffle(x, r), x)
    want = np.zeros((2, 2, 6, 4), dtype=np.float32)
    for c, h, w, i, j in itertools.product(range(2), range(3), range(2), range(r), range(r)):
        want[:, c, h * r + i, w * r + j] = x[:, c * r * r + i * r + j, h, w]
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(both(lambda y: F.pixel_unshuffle(y, r), want), x)
    nhwc = F.pixel_shuffle(paddle.to_tensor(x.transpose(0, 2, 3, 1)), r, data_format="NHWC").numpy()
    np.testing.assert_array_equal(nhwc, want.transpose(0, 2, 3, 1))
    back = F.pixel_unshuffle(paddle.to_tensor(nhwc), r, data_format="NHWC").numpy()
    np.testing.assert_array_equal(back, x.transpose(0, 2, 3, 1))
    y = both(lambda x: F.channel_shuffle(x, 2), x)
    np.testing.assert_array_equal(y, x.reshape(2, 2, 4, 3, 2).transpose(0, 2, 1, 3, 4).reshape(x.shape))


def unfold_ref(x, k, s, p, d):
    """p = (top, left, bottom, right)."""
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[2]), (p[1], p[3])))
    n, c, h, w = xp.shape
    oh = (h - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (w - d[1] * (k[1] - 1) - 1) // s[1] + 1
    cols = np.zeros((n, c * k[0] * k[1], oh * ow), dtype=x.dtype)
    for ci, i, j in itertools.product(range(c), range(k[0]), range(k[1])):
        for a, b in itertools.product(range(oh), range(ow)):
            cols[:, ci * k[0] * k[1] + i * k[1] + j, a * ow + b] = xp[:, ci, a * s[0] + i * d[0], b * s[1] + j * d[1]]
    return cols


def test_unfold_and_fold():
    x = rnd(2, 3, 5, 6)
    out = both(lambda x: F.unfold(x, [2, 3], strides=[1, 2], paddings=[1, 0, 0, 1], dilations=[2, 1]), x)
    np.testing.assert_array_equal(out, unfold_ref(x, [2, 3], [1, 2], [1, 0, 0, 1], [2, 1]))
    cols = rnd(2, 12, 8)
    folded = both(lambda c: F.fold(c, [4, 5], 2, strides=[2, 1]), cols)
    # fold is the adjoint of unfold: <fold(c), y> == <c, unfold(y)>
    y = rnd(2, 3, 4, 5)
    lhs = (folded.astype(np.float64) * y).sum()
    rhs = (cols.astype(np.float64) * unfold_ref(y, [2, 2], [2, 1], [0, 0, 0, 0], [1, 1])).sum()
    np.testing.assert_allclose(lhs, rhs, rtol=1e-5)
    assert folded.shape == (2, 3, 4, 5)


def test_affine_grid():
    theta = rnd(2, 2, 3)
    for align in (True, False):
        grid = both(lambda t: F.affine_grid(t, [2, 1, 3, 4], align_corners=align), theta)
        xs = np.linspace(-1, 1, 4) if align else (2 * np.arange(4) + 1) / 4 - 1
        ys = np.linspace(-1, 1, 3) if align else (2 * np.arange(3) + 1) / 3 - 1
        for n, i, j in itertools.product(range(2), range(3), range(4)):
            np.testing.assert_allclose(grid[n, i, j], theta[n] @ np.array([xs[j], ys[i], 1.0]), rtol=1e-5, atol=1e-6)
    grid3 = F.affine_grid(paddle.to_tensor(rnd(1, 3, 4)), [1, 1, 2, 3, 4]).numpy()
    assert grid3.shape == (1, 2, 3, 4, 3)


# ----------------------------------------------------------------------------- grid_sample
def grid_sample_ref(x, grid, mode, padding_mode, align_corners):
    n, c, h, w = x.shape

    def unnorm(v, size):
        return (v + 1) / 2 * (size - 1) if align_corners else ((v + 1) * size - 1) / 2

    def pad(coord, size):
        if padding_mode == "border":
            return min(max(coord, 0), size - 1)
        if padding_mode == "reflection":
            lo, hi = (0.0, size - 1.0) if align_corners else (-0.5, size - 0.5)
            span = hi - lo
            coord = abs(coord - lo)
            flips, extra = divmod(coord, span)
            coord = (extra if flips % 2 == 0 else span - extra) + lo
            return min(max(coord, 0), size - 1)
        return coord

    def at(ni, yy, xx):
        return x[ni, :, yy, xx] if 0 <= yy < h and 0 <= xx < w else np.zeros(c)

    out = np.zeros((n, c) + grid.shape[1:3])
    for ni, i, j in itertools.product(range(n), range(grid.shape[1]), range(grid.shape[2])):
        fx = pad(unnorm(grid[ni, i, j, 0], w), w)
        fy = pad(unnorm(grid[ni, i, j, 1], h), h)
        if mode == "nearest":
            out[ni, :, i, j] = at(ni, int(np.rint(fy)), int(np.rint(fx)))
            continue
        x0, y0 = math.floor(fx), math.floor(fy)
        ax, ay = fx - x0, fy - y0
        out[ni, :, i, j] = (at(ni, y0, x0) * (1 - ax) * (1 - ay) + at(ni, y0, x0 + 1) * ax * (1 - ay)
                            + at(ni, y0 + 1, x0) * (1 - ax) * ay + at(ni, y0 + 1, x0 + 1) * ax * ay)
    return out


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [True, False])
def test_grid_sample(mode, padding_mode, align_corners):
    x = rnd(2, 3, 4, 5)
    grid = RNG.uniform(-1.3, 1.3, (2, 3, 4, 2)).astype("float32")
    out = both(lambda x, g: F.grid_sample(x, g, mode, padding_mode, align_corners), x, grid)
    np.testing.assert_allclose(out, grid_sample_ref(x, grid, mode, padding_mode, align_corners),
                               rtol=1e-4, atol=1e-5)


def test_gradients_match_finite_differences():
    x = RNG.standard_normal((2, 2, 4, 5))
    for pm in ("zeros", "border", "reflection"):
        check_grad(lambda x, g: F.grid_sample(x, g, padding_mode=pm, align_corners=False), x,
                   RNG.uniform(-1.2, 1.2, (2, 3, 3, 2)), rtol=1e-4, atol=1e-6)
    check_grad(lambda x: F.interpolate(x, scale_factor=1.5, mode="bicubic"), x)
    check_grad(lambda x: F.interpolate(x, size=[3, 7], mode="bilinear", align_corners=True), x)
    check_grad(lambda x: F.interpolate(x, size=[5, 3], mode="nearest"), x)
    check_grad(lambda x: F.unfold(x, 2, 1, 1), x)
    check_grad(lambda c: F.fold(c, [3, 3], 2), RNG.standard_normal((1, 8, 4)))
    check_grad(lambda x: F.pixel_unshuffle(x, 2), RNG.standard_normal((1, 2, 4, 2)))
    check_grad(lambda t: F.affine_grid(t, [2, 1, 3, 4], align_corners=False), RNG.standard_normal((2, 2, 3)))


def test_layers_match_functional():
    x = paddle.to_tensor(rnd(2, 4, 4, 6))
    pairs = [
        (nn.Upsample(scale_factor=2), F.interpolate(x, scale_factor=2)),
        (nn.Upsample(size=[3, 3], mode="bilinear", align_corners=True),
         F.interpolate(x, size=[3, 3], mode="bilinear", align_corners=True)),
        (nn.UpsamplingNearest2D(size=[5, 7]), F.interpolate(x, size=[5, 7])),
        (nn.UpsamplingBilinear2D(scale_factor=2), F.interpolate(x, scale_factor=2, mode="bilinear",
                                                                align_corners=True)),
        (nn.PixelShuffle(2), F.pixel_shuffle(x, 2)),
        (nn.PixelUnshuffle(2), F.pixel_unshuffle(x, 2)),
        (nn.ChannelShuffle(2), F.channel_shuffle(x, 2)),
        (nn.Unfold([2, 2], strides=2), F.unfold(x, [2, 2], 2)),
    ]
    for layer, want in pairs:
        np.testing.assert_array_equal(layer(x).numpy(), want.numpy())
    cols = paddle.to_tensor(rnd(2, 8, 6))
    np.testing.assert_array_equal(nn.Fold([3, 4], 2)(cols).numpy(), F.fold(cols, [3, 4], 2).numpy())


def test_interpolate_size_from_tensors_known_only_at_run_time():
    x, y = rnd(2, 3, 4, 5), rnd(2, 3, 7, 6)

    def fn(x, y):
        return F.interpolate(x, size=y.shape[2:], mode="bicubic")

    eager = fn(paddle.to_tensor(x), paddle.to_tensor(y)).numpy()
    np.testing.assert_allclose(eager, interp_ref(x, [7, 6], "cubic"), rtol=1e-4, atol=1e-5)
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        out = fn(paddle.static.data("x", [None, 3, None, None]), paddle.static.data("y", [None, 3, None, None]))
    assert out._shape == (-1, 3, -1, -1)
    static = run_static(fn, x, y, shapes=[[None, 3, None, None]] * 2)
    np.testing.assert_allclose(static, eager, rtol=1e-6, atol=1e-6)
    size = paddle.to_tensor(np.array([5, 3]))
    check_grad(lambda x: F.interpolate(x, size=size, mode="bilinear"), x.astype(np.float64))
    with pytest.raises(ValueError, match="area"):
        run_static(lambda x, y: F.interpolate(x, size=y.shape[2:], mode="area"), x, y,
                   shapes=[[None, 3, None, None]] * 2)


def grid_sample_3d_ref(x, grid, align_corners, border):
    """Trilinear sampling, one output point and eight corners at a time."""
    n, c, d, h, w = x.shape

    def coord(v, size):
        f = (v + 1) / 2 * (size - 1) if align_corners else ((v + 1) * size - 1) / 2
        return min(max(f, 0), size - 1) if border else f

    out = np.zeros((n, c) + grid.shape[1:4])
    for ni, a, b, e in itertools.product(range(n), *(range(s) for s in grid.shape[1:4])):
        fx, fy, fz = (coord(grid[ni, a, b, e, j], s) for j, s in enumerate((w, h, d)))
        x0, y0, z0 = math.floor(fx), math.floor(fy), math.floor(fz)
        acc = np.zeros(c)
        for dz, dy, dx in itertools.product((0, 1), repeat=3):
            zz, yy, xx = z0 + dz, y0 + dy, x0 + dx
            wt = (fz - z0 if dz else 1 - (fz - z0)) * (fy - y0 if dy else 1 - (fy - y0)) * \
                (fx - x0 if dx else 1 - (fx - x0))
            if 0 <= zz < d and 0 <= yy < h and 0 <= xx < w:
                acc += wt * x[ni, :, zz, yy, xx]
        out[ni, :, a, b, e] = acc
    return out


@pytest.mark.parametrize("align_corners, padding_mode", [(True, "zeros"), (False, "border")])
def test_grid_sample_3d(align_corners, padding_mode):
    x = rnd(2, 2, 3, 4, 5)
    grid = RNG.uniform(-1.2, 1.2, (2, 2, 3, 2, 3)).astype("float32")
    out = both(lambda x, g: F.grid_sample(x, g, padding_mode=padding_mode, align_corners=align_corners), x, grid)
    np.testing.assert_allclose(out, grid_sample_3d_ref(x, grid, align_corners, padding_mode == "border"),
                               rtol=1e-4, atol=1e-5)
    check_grad(lambda x, g: F.grid_sample(x, g, padding_mode=padding_mode, align_corners=align_corners),
               x.astype(np.float64), grid.astype(np.float64), rtol=1e-4, atol=1e-6)
    nearest = F.grid_sample(paddle.to_tensor(x), paddle.to_tensor(grid), mode="nearest").numpy()
    assert nearest.shape == (2, 2, 2, 3, 2)
