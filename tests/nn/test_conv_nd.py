"""conv1d/conv3d and the transposed convolutions against loop references written by hand,
eager and static (unknown batch), and their gradients against finite differences."""
import itertools

import numpy as np
import pytest

import dy2st as paddle
from dy2st import nn
from dy2st.nn import functional as F
from tests.support import check_grad, run_static

RNG = np.random.default_rng(11)


def rnd(*shape):
    return RNG.standard_normal(shape).astype("float32")


def conv_ref(x, w, b=None, stride=None, pads=None, dilation=None, groups=1):
    """Direct loops over output positions of an N-d cross-correlation (channel-first)."""
    nd = w.ndim - 2
    stride, dilation = stride or [1] * nd, dilation or [1] * nd
    pads = pads or [(0, 0)] * nd
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0)) + tuple(tuple(p) for p in pads))
    o, cg = w.shape[:2]
    k = w.shape[2:]
    outs = [(x.shape[2 + i] - dilation[i] * (k[i] - 1) - 1) // stride[i] + 1 for i in range(nd)]
    out = np.zeros((x.shape[0], o) + tuple(outs))
    og = o // groups
    for oc in range(o):
        g = oc // og
        for pos in itertools.product(*(range(n) for n in outs)):
            index = tuple(slice(p * s, p * s + d * (kk - 1) + 1, d)
                          for p, s, d, kk in zip(pos, stride, dilation, k))
            patch = x[(slice(None), slice(g * cg, (g + 1) * cg)) + index]
            out[(slice(None), oc) + pos] = (patch * w[oc]).reshape(x.shape[0], -1).sum(1)
    if b is not None:
        out += b.reshape((1, -1) + (1,) * nd)
    return out.astype(np.float32)


def conv_transpose_ref(x, w, b=None, stride=None, pads=None, dilation=None, groups=1, extra=None):
    """Scatter every input pixel times the kernel into the output (the textbook definition)."""
    nd = w.ndim - 2
    stride, dilation = stride or [1] * nd, dilation or [1] * nd
    pads, extra = pads or [(0, 0)] * nd, extra or [0] * nd
    cin, og = w.shape[:2]
    k = w.shape[2:]
    sizes = x.shape[2:]
    full = [(s - 1) * st + d * (kk - 1) + 1 + e for s, st, d, kk, e in zip(sizes, stride, dilation, k, extra)]
    out = np.zeros((x.shape[0], og * groups) + tuple(full))
    cg = cin // groups
    for ci in range(cin):
        g = ci // cg
        for pos in itertools.product(*(range(n) for n in sizes)):
            for kp in itertools.product(*(range(n) for n in k)):
                at = tuple(p * s + q * d for p, s, q, d in zip(pos, stride, kp, dilation))
                out[(slice(None), slice(g * og, (g + 1) * og)) + at] += \
                    x[(slice(None), ci) + pos][:, None] * w[(ci, slice(None)) + kp]
    crop = tuple(slice(lo, f - hi) for (lo, hi), f in zip(pads, full))
    out = out[(slice(None), slice(None)) + crop]
    if b is not None:
        out += b.reshape((1, -1) + (1,) * nd)
    return out.astype(np.float32)


def check_both(fn, ref, *arrays):
    eager = fn(*[paddle.to_tensor(a) for a in arrays]).numpy()
    np.testing.assert_allclose(eager, ref(*arrays), rtol=1e-4, atol=1e-4)
    shapes = [[None] + list(a.shape[1:]) for a in arrays[:1]] + [list(a.shape) for a in arrays[1:]]
    static = run_static(fn, *arrays, shapes=shapes)
    np.testing.assert_allclose(static, eager, rtol=1e-6, atol=1e-6)
    return eager


@pytest.mark.parametrize("kw, ref_kw", [
    ({}, {}),
    ({"stride": 2, "padding": 1}, {"stride": [2], "pads": [(1, 1)]}),
    ({"padding": [2, 1], "dilation": 2, "groups": 2}, {"pads": [(2, 1)], "dilation": [2], "groups": 2}),
])
def test_conv1d(kw, ref_kw):
    x, w, b = rnd(2, 4, 9), rnd(6, 4 // kw.get("groups", 1), 3), rnd(6)
    check_both(lambda x, w, b: F.conv1d(x, w, b, **kw), lambda x, w, b: conv_ref(x, w, b, **ref_kw), x, w, b)


def test_conv1d_nlc_and_same_padding():
    x, w = rnd(2, 7, 3), rnd(4, 3, 3)
    out = F.conv1d(paddle.to_tensor(x), paddle.to_tensor(w), padding="SAME", stride=2, data_format="NLC")
    assert out.shape == [2, 4, 4]
    ref = conv_ref(x.transpose(0, 2, 1), w, stride=[2], pads=[(1, 1)])
    np.testing.assert_allclose(out.numpy(), ref.transpose(0, 2, 1), rtol=1e-4, atol=1e-4)


def test_conv3d_padding_pairs_and_strides():
    x, w, b = rnd(1, 2, 4, 5, 4), rnd(3, 2, 2, 3, 2), rnd(3)
    pads = [[0, 0], [0, 0], [1, 0], [1, 1], [0, 1]]
    check_both(lambda x, w, b: F.conv3d(x, w, b, stride=[1, 2, 1], padding=pads),
               lambda x, w, b: conv_ref(x, w, b, stride=[1, 2, 1], pads=[(1, 0), (1, 1), (0, 1)]), x, w, b)


@pytest.mark.parametrize("nd, kw, ref_kw", [
    (1, {"stride": 2, "padding": 1, "output_padding": 1}, {"stride": [2], "pads": [(1, 1)], "extra": [1]}),
    (1, {"groups": 2, "dilation": 2}, {"groups": 2, "dilation": [2]}),
    (2, {"stride": 2, "padding": [1, 0]}, {"stride": [2, 2], "pads": [(1, 1), (0, 0)]}),
    (2, {"stride": [2, 1], "output_size": [8, 4]}, {"stride": [2, 1], "extra": [1, 0]}),
    (3, {"stride": 2}, {"stride": [2, 2, 2]}),
])
def test_conv_transpose(nd, kw, ref_kw):
    groups = kw.get("groups", 1)
    x = rnd(2, 4, *([3] * nd))
    w, b = rnd(4, 6 // groups, *([3] + [2] * (nd - 1))), rnd(6)
    fn = {1: F.conv1d_transpose, 2: F.conv2d_transpose, 3: F.conv3d_transpose}[nd]
    out = check_both(lambda x, w, b: fn(x, w, b, **kw), lambda x, w, b: conv_transpose_ref(x, w, b, **ref_kw),
                     x, w, b)
    if "output_size" in kw:
        assert list(out.shape[2:]) == kw["output_size"]


def test_conv_transpose_static_shape_has_unknown_batch():
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        y = F.conv2d_transpose(paddle.static.data("x", [None, 4, 5, 5]), paddle.static.data("w", [4, 2, 3, 3]),
                               stride=2, padding=1, output_padding=1)
    assert y._shape == (-1, 2, 10, 10)


def test_errors_name_the_problem():
    with pytest.raises(ValueError, match="3 channels"):
        F.conv1d(paddle.zeros([1, 3, 5]), paddle.zeros([2, 2, 3]))
    with pytest.raises(ValueError, match="output_size"):
        F.conv2d_transpose(paddle.zeros([1, 2, 3, 3]), paddle.zeros([2, 2, 3, 3]), stride=2, output_size=[9, 9])
    with pytest.raises(ValueError, match="data_format"):
        F.conv3d(paddle.zeros([1, 2, 3, 3, 3]), paddle.zeros([2, 2, 1, 1, 1]), data_format="NCHW")


def test_gradients_match_finite_differences():
    x, w, b = RNG.standard_normal((2, 4, 5)), RNG.standard_normal((6, 2, 3)), RNG.standard_normal(6)
    check_grad(lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=[1, 2], groups=2), x, w, b)
    check_grad(lambda x, w, b: F.conv1d_transpose(x, w, b, stride=2, padding=1, output_padding=1, groups=2),
               x, RNG.standard_normal((4, 3, 3)), b)
    check_grad(lambda x, w: F.conv2d_transpose(x, w, stride=2, padding=1, data_format="NHWC"),
               RNG.standard_normal((1, 4, 3, 2)), RNG.standard_normal((2, 3, 3, 3)))
    check_grad(lambda x, w: F.conv3d(x, w, padding=1, dilation=[1, 2, 1]),
               RNG.standard_normal((1, 2, 3, 4, 3)), RNG.standard_normal((2, 2, 2, 2, 2)))


def test_second_order_gradient_of_conv():
    x = paddle.to_tensor(RNG.standard_normal((1, 2, 5)))
    w = RNG.standard_normal((3, 2, 3))
    # d/dw of sum(d conv / dx * c) is linear in w; compare with finite differences of grad itself
    def first_grad(wv):
        wt = paddle.to_tensor(wv)
        wt.stop_gradient = False
        xx = paddle.to_tensor(x.numpy())
        xx.stop_gradient = False
        gx, = paddle.grad((F.conv1d(xx, wt, stride=2) ** 2).sum(), [xx], create_graph=True)
        return gx, wt
    gx, wt = first_grad(w)
    gw, = paddle.grad(gx.sum(), [wt])
    eps, num = 1e-6, np.zeros_like(w)
    for idx in np.ndindex(w.shape):
        p, m = w.copy(), w.copy()
        p[idx] += eps
        m[idx] -= eps
        num[idx] = (first_grad(p)[0].numpy().sum() - first_grad(m)[0].numpy().sum()) / (2 * eps)
    np.testing.assert_allclose(gw.numpy(), num, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("cls, args, shape, ref", [
    (nn.Conv1D, (3, 4, 3), (2, 3, 8), lambda l, x: conv_ref(x, l.weight.numpy(), l.bias.numpy())),
    (nn.Conv3D, (2, 3, 2), (1, 2, 3, 3, 3), lambda l, x: conv_ref(x, l.weight.numpy(), l.bias.numpy())),
    (nn.Conv1DTranspose, (3, 4, 3), (2, 3, 5),
     lambda l, x: conv_transpose_ref(x, l.weight.numpy(), l.bias.numpy())),
    (nn.Conv2DTranspose, (3, 2, 2), (2, 3, 3, 3),
     lambda l, x: conv_transpose_ref(x, l.weight.numpy(), l.bias.numpy())),
])
def test_layers_weight_shapes_and_output(cls, args, shape, ref):
    layer = cls(*args)
    cin, cout, k = args
    want = [cin, cout] if "Transpose" in cls.__name__ else [cout, cin]
    assert layer.weight.shape == want + [k] * (len(shape) - 2)
    x = rnd(*shape)
    np.testing.assert_allclose(layer(paddle.to_tensor(x)).numpy(), ref(layer, x), rtol=1e-4, atol=1e-4)


def test_conv1d_padding_mode_reflect():
    layer = nn.Conv1D(2, 3, 3, padding=1, padding_mode="reflect")
    x = rnd(1, 2, 6)
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1)), mode="reflect")
    np.testing.assert_allclose(layer(paddle.to_tensor(x)).numpy(),
                               conv_ref(xp, layer.weight.numpy(), layer.bias.numpy()), rtol=1e-4, atol=1e-4)


def test_conv2d_transpose_layer_output_size_argument():
    layer = nn.Conv2DTranspose(2, 2, 3, stride=2, padding=1)
    out = layer(paddle.to_tensor(rnd(1, 2, 4, 4)), output_size=[8, 8])
    assert out.shape == [1, 2, 8, 8]
