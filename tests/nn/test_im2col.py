"""The im2col convolution kernels (nn/functional/im2col.py) against a direct float64 reference
(a sum over kernel positions of shifted slices): 1-D to 3-D, stride, dilation, padding, groups
and depthwise, the transposed convolution, both gradients (adjoint identities and finite
differences), and the same results when the column buffer is chunked over the batch and rows."""
import itertools

import numpy as np
import pytest

import dy2st as paddle
import dy2st.nn.functional as F
from dy2st.nn.functional import im2col

RNG = np.random.default_rng(5)


def direct_conv(x, w, stride, pads, dilation, groups):
    """float64 reference: out[n, o, p] = sum_{c, k} x[n, c, p * s + k * d] w[o, c, k]."""
    x, w = x.astype(np.float64), w.astype(np.float64)
    nd = w.ndim - 2
    xp = np.pad(x, ((0, 0), (0, 0)) + tuple(tuple(p) for p in pads))
    outs = [(xp.shape[2 + i] - dilation[i] * (w.shape[2 + i] - 1) - 1) // stride[i] + 1 for i in range(nd)]
    n, c = x.shape[:2]
    o = w.shape[0]
    cg, og = c // groups, o // groups
    out = np.zeros((n, o) + tuple(outs))
    for k in itertools.product(*(range(s) for s in w.shape[2:])):
        index = tuple(slice(ki * d, ki * d + (m - 1) * s + 1, s)
                      for ki, d, s, m in zip(k, dilation, stride, outs))
        for gi in range(groups):
            xs = xp[(slice(None), slice(gi * cg, (gi + 1) * cg)) + index]
            ws = w[(slice(gi * og, (gi + 1) * og), slice(None)) + k]
            out[:, gi * og:(gi + 1) * og] += np.einsum("nc...,oc->no...", xs, ws)
    return out


CASES = [
    # (x shape, w shape, stride, pads, dilation, groups)
    ((2, 3, 11), (4, 3, 3), (2,), [(1, 2)], (1,), 1),
    ((1, 4, 9), (4, 1, 2), (1,), [(0, 0)], (3,), 4),
    ((2, 3, 8, 7), (5, 3, 3, 3), (1, 1), [(1, 1), (1, 1)], (1, 1), 1),
    ((3, 4, 9, 10), (6, 2, 3, 2), (2, 3), [(0, 1), (2, 0)], (2, 1), 2),
    ((2, 6, 7, 7), (6, 1, 3, 3), (1, 2), [(1, 1), (1, 1)], (1, 1), 6),
    ((1, 2, 1, 5), (3, 2, 1, 1), (1, 1), [(0, 0), (0, 0)], (1, 1), 1),
    ((2, 2, 5, 6, 4), (4, 1, 2, 3, 2), (1, 2, 1), [(1, 0), (0, 1), (1, 1)], (1, 1, 2), 2),
]


@pytest.mark.parametrize("xs,ws,stride,pads,dilation,groups", CASES)
@pytest.mark.parametrize("column_bytes", [im2col.COLUMN_BYTES, 64])
def test_forward_and_gradients_against_direct_reference(monkeypatch, xs, ws, stride, pads,
                                                        dilation, groups, column_bytes):
    # 64 bytes: one image per chunk and a few output rows per chunk
    monkeypatch.setattr(im2col, "COLUMN_BYTES", column_bytes)
    x, w = RNG.standard_normal(xs), RNG.standard_normal(ws)
    want = direct_conv(x, w, stride, pads, dilation, groups)
    xp = np.pad(x, ((0, 0), (0, 0)) + tuple(tuple(p) for p in pads))
    got = im2col.forward(xp, w, stride, dilation, groups)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    # adjoint identities: <g, conv(x)> = <adjoint(g), xp> and = <filter_grad(xp, g), w>
    g = RNG.standard_normal(want.shape)
    gx = im2col.adjoint(g, w, xp.shape[2:], stride, dilation, groups)
    gw = im2col.filter_grad(xp, g, ws[2:], stride, dilation, groups)
    assert gx.shape == xp.shape and gw.shape == w.shape
    np.testing.assert_allclose(np.vdot(gx, xp), np.vdot(g, want), rtol=1e-10)
    np.testing.assert_allclose(np.vdot(gw, w), np.vdot(g, want), rtol=1e-10)
    # and elementwise: the filter gradient is the conv of x with g's windows
    for idx in [(0,) * w.ndim, tuple(s - 1 for s in ws)]:
        e = np.zeros_like(w)
        e[idx] = 1.0
        np.testing.assert_allclose(gw[idx], np.vdot(g, direct_conv(x, e, stride, pads, dilation, groups)),
                                   rtol=1e-10, atol=1e-12)


def test_float32_conv_matches_float64_reference():
    x = RNG.standard_normal((2, 8, 16, 16)).astype(np.float32)
    w = RNG.standard_normal((12, 8, 3, 3)).astype(np.float32)
    got = F.conv2d(paddle.to_tensor(x), paddle.to_tensor(w), padding=1).numpy()
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, direct_conv(x, w, (1, 1), [(1, 1), (1, 1)], (1, 1), 1),
                               rtol=1e-4, atol=1e-4)


def test_empty_batch_and_nan_inf_propagate():
    w = RNG.standard_normal((2, 3, 3, 3))
    out = F.conv2d(paddle.to_tensor(np.zeros((0, 3, 5, 5))), paddle.to_tensor(w), padding=1)
    assert out.shape == [0, 2, 5, 5]
    x = RNG.standard_normal((1, 3, 5, 5))
    x[0, 1, 2, 2] = np.nan
    x[0, 0, 0, 0] = np.inf
    got = F.conv2d(paddle.to_tensor(x), paddle.to_tensor(np.abs(w)), padding=1).numpy()
    assert np.isnan(got[0, :, 1:4, 1:4]).all()            # every window over the NaN
    assert np.isposinf(got[0, :, 0, 0]).all()              # positive weights over +inf alone
    assert np.isfinite(got[0, :, 4, 4]).all()


@pytest.mark.parametrize("groups", [1, 2])
def test_transposed_conv_is_the_adjoint_of_conv(groups):
    x = RNG.standard_normal((2, 4, 5, 6))
    w = RNG.standard_normal((4, 3, 3, 2))          # [in, out / groups, k...]
    y = F.conv2d_transpose(paddle.to_tensor(x), paddle.to_tensor(w), stride=2, padding=1,
                           output_padding=1, groups=groups).numpy()
    v = RNG.standard_normal(y.shape)
    # conv2d of v with the same weight (read as [out, in / groups]) is the adjoint map
    back = direct_conv(v, w.reshape(w.shape), (2, 2), [(1, 1), (1, 1)], (1, 1), groups)
    np.testing.assert_allclose(np.vdot(y, v), np.vdot(x, back[:, :, :5, :6]), rtol=1e-10)


def test_conv_gradients_against_finite_differences():
    x = RNG.standard_normal((2, 2, 5, 4))
    w = RNG.standard_normal((4, 1, 2, 3))
    cot = RNG.standard_normal((2, 4, 3, 2))
    xt, wt = paddle.to_tensor(x, stop_gradient=False), paddle.to_tensor(w, stop_gradient=False)
    (F.conv2d(xt, wt, stride=(2, 1), padding=[1, 0], dilation=(1, 1), groups=2)
     * paddle.to_tensor(cot)).sum().backward()

    def loss(xa, wa):
        return np.vdot(direct_conv(xa, wa, (2, 1), [(1, 1), (0, 0)], (1, 1), 2), cot)
    h = 1e-6
    for arr, grad in ((x, xt.grad.numpy()), (w, wt.grad.numpy())):
        num = np.zeros_like(arr)
        for i in range(arr.size):
            plus, minus = arr.copy(), arr.copy()
            plus.flat[i] += h
            minus.flat[i] -= h
            args_p = (plus, w) if arr is x else (x, plus)
            args_m = (minus, w) if arr is x else (x, minus)
            num.flat[i] = (loss(*args_p) - loss(*args_m)) / (2 * h)
        np.testing.assert_allclose(grad, num, rtol=1e-6, atol=1e-8)
