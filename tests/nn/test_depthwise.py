"""The depthwise input gradient (nn/functional/depthwise.py) against im2col's col2im and a
direct float64 reference: 1-D to 3-D, stride 1 (flipped forward) and larger (scatter),
dilation, padding, trailing positions no window reads, batch 0 and 1; conv2d's gradients
against finite differences, and the depthwise transposed convolution."""
import numpy as np
import pytest

import dy2st as paddle
import dy2st.nn.functional as F
from dy2st.nn.functional import depthwise, im2col
from dy2st.nn.functional.conv_nd import conv_adjoint

RNG = np.random.default_rng(11)

CASES = [
    # (x shape, kernel, stride, pads, dilation)
    ((2, 3, 11), (3,), (1,), [(1, 1)], (1,)),
    ((1, 4, 12), (2,), (3,), [(0, 1)], (2,)),
    ((2, 5, 8, 7), (3, 3), (1, 1), [(1, 1), (1, 1)], (1, 1)),
    ((3, 4, 9, 10), (3, 2), (2, 3), [(0, 1), (2, 0)], (2, 1)),
    ((2, 6, 7, 7), (3, 3), (2, 2), [(1, 1), (1, 1)], (1, 1)),
    ((1, 3, 6, 6), (3, 3), (1, 1), [(2, 2), (2, 2)], (2, 2)),
    ((0, 3, 6, 6), (3, 3), (2, 1), [(1, 1), (1, 1)], (1, 1)),
    ((2, 2, 5, 6, 4), (2, 3, 2), (1, 2, 1), [(1, 0), (0, 1), (1, 1)], (1, 1, 2)),
    ((2, 2, 5, 6, 4), (2, 3, 2), (1, 1, 1), [(1, 0), (0, 1), (1, 1)], (1, 1, 2)),
]


def _outs(sizes, kernel, stride, pads, dilation):
    return [(s + lo + hi - d * (k - 1) - 1) // st + 1
            for s, k, st, (lo, hi), d in zip(sizes, kernel, stride, pads, dilation)]


@pytest.mark.parametrize("xs,kernel,stride,pads,dilation", CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_adjoint_equals_col2im_and_the_adjoint_identity(xs, kernel, stride, pads, dilation, dtype):
    c = xs[1]
    w = RNG.standard_normal((c, 1) + kernel).astype(dtype)
    x = RNG.standard_normal(xs).astype(dtype)
    outs = _outs(xs[2:], kernel, stride, pads, dilation)
    g = RNG.standard_normal(xs[:2] + tuple(outs)).astype(dtype)
    padded = [s + lo + hi for s, (lo, hi) in zip(xs[2:], pads)]
    assert depthwise.is_depthwise(w, c)
    got = depthwise.adjoint(g, w, padded, stride, dilation)
    assert got is not None
    want = im2col.adjoint(g, w, padded, stride, dilation, c)
    assert got.shape == want.shape and got.dtype == want.dtype
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    # <g, conv(x)> = <adjoint(g), x>, the conv computed by the forward kernel
    xp = np.pad(x, ((0, 0), (0, 0)) + tuple(tuple(p) for p in pads)).astype(np.float64)
    lhs = np.sum(g.astype(np.float64) * im2col.forward(xp, w.astype(np.float64), stride, dilation, c))
    rhs = np.sum(got.astype(np.float64) * xp)
    np.testing.assert_allclose(lhs, rhs, rtol=1e-4 if dtype == "float32" else 1e-10, atol=1e-8)


def test_unpadded_input_and_the_cases_that_keep_im2col():
    # input 7, kernel 3, no padding: conv_adjoint (the shortcut) equals col2im
    w = RNG.standard_normal((3, 1, 3, 3))
    g = RNG.standard_normal((2, 3, 5, 5))
    got = conv_adjoint(g, w, [7, 7], [1, 1], [(0, 0), (0, 0)], [1, 1], 3)
    want = im2col.adjoint(g, w, [7, 7], [1, 1], [1, 1], 3)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    # a multiplier (two filters per channel) keeps im2col
    assert not depthwise.is_depthwise(RNG.standard_normal((6, 1, 3, 3)), 3)
    assert not depthwise.is_depthwise(RNG.standard_normal((3, 3, 3, 3)), 1)


@pytest.mark.parametrize("stride", [1, 2])
def test_conv2d_depthwise_gradients_against_finite_differences(stride):
    x = RNG.standard_normal((2, 3, 6, 5))
    w = RNG.standard_normal((3, 1, 3, 3))
    weights = RNG.standard_normal(F.conv2d(paddle.to_tensor(x), paddle.to_tensor(w), stride=stride,
                                           padding=1, groups=3).shape)

    def loss(xv, wv):
        out = F.conv2d(paddle.to_tensor(xv), paddle.to_tensor(wv), stride=stride, padding=1, groups=3)
        return float((out.numpy() * weights).sum())

    xt = paddle.to_tensor(x, stop_gradient=False)
    wt = paddle.to_tensor(w, stop_gradient=False)
    (F.conv2d(xt, wt, stride=stride, padding=1, groups=3) * paddle.to_tensor(weights)).sum().backward()
    h = 1e-6
    for value, grad in ((x, xt.grad.numpy()), (w, wt.grad.numpy())):
        numeric = np.zeros_like(value)
        for i in np.ndindex(value.shape):
            old = value[i]
            value[i] = old + h
            up = loss(x, w)
            value[i] = old - h
            down = loss(x, w)
            value[i] = old
            numeric[i] = (up - down) / (2 * h)
        np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("stride", [1, 2])
def test_depthwise_transposed_convolution_matches_col2im(stride):
    x = RNG.standard_normal((2, 4, 5, 6)).astype("float32")
    w = RNG.standard_normal((4, 1, 3, 3)).astype("float32")
    got = F.conv2d_transpose(paddle.to_tensor(x), paddle.to_tensor(w), stride=stride, padding=1,
                             groups=4).numpy()
    padded = [(s - 1) * stride + 3 for s in x.shape[2:]]       # the output and its padding 1
    want = im2col.adjoint(x.astype(np.float64), w.astype(np.float64), padded, [stride] * 2,
                          [1, 1], 4)[:, :, 1:-1, 1:-1]
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
