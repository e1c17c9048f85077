"""max_unpool1d/2d/3d and lp_pool1d/2d against loops written by hand, eager and static, with
gradients (also of the mask scatter/gather pair) against finite differences."""
import itertools

import numpy as np
import pytest

import dy2st as paddle
from dy2st import nn
from dy2st.nn import functional as F
from tests.support import check_grad, run_static

RNG = np.random.default_rng(23)


def unpool_ref(x, idx, outs):
    n, c = x.shape[:2]
    out = np.zeros((n, c, int(np.prod(outs))), dtype=x.dtype)
    for i, j in itertools.product(range(n), range(c)):
        out[i, j, idx[i, j].reshape(-1)] = x[i, j].reshape(-1)
    return out.reshape((n, c) + tuple(outs))


def lp_ref(x, p, k, s):
    n, c, h, w = x.shape
    oh, ow = (h - k) // s + 1, (w - k) // s + 1
    out = np.zeros((n, c, oh, ow))
    for a, b in itertools.product(range(oh), range(ow)):
        win = x[:, :, a * s:a * s + k, b * s:b * s + k].reshape(n, c, -1).astype(np.float64)
        out[:, :, a, b] = (win ** p).sum(-1) ** (1 / p)
    return out


@pytest.mark.parametrize("nd, shape, fn, unfn", [
    (1, (2, 3, 8), F.max_pool1d, F.max_unpool1d),
    (2, (2, 3, 6, 4), F.max_pool2d, F.max_unpool2d),
    (3, (1, 2, 4, 4, 2), F.max_pool3d, F.max_unpool3d),
])
def test_max_unpool_puts_maxima_back(nd, shape, fn, unfn):
    x = RNG.standard_normal(shape).astype("float32")
    out, mask = fn(paddle.to_tensor(x), 2, return_mask=True)
    got = unfn(out, mask, 2).numpy()
    np.testing.assert_array_equal(got, unpool_ref(out.numpy(), mask.numpy(), shape[2:]))
    kept = got != 0
    np.testing.assert_array_equal(got[kept], x[kept])
    static = run_static(lambda o, m: unfn(o, m, 2), out.numpy(), mask.numpy(),
                        shapes=[[None] + list(out.shape[1:])] * 2)
    np.testing.assert_array_equal(static, got)


def test_max_unpool_output_size_and_layer():
    x = RNG.standard_normal((1, 2, 5, 5)).astype("float32")
    out, mask = F.max_pool2d(paddle.to_tensor(x), 2, return_mask=True)
    got = nn.MaxUnPool2D(2, output_size=[5, 5])(out, mask)
    assert got.shape == [1, 2, 5, 5]
    np.testing.assert_array_equal(got.numpy(), unpool_ref(out.numpy(), mask.numpy(), (5, 5)))
    with pytest.raises(ValueError, match="output_size"):
        F.max_unpool2d(out, mask, 2, output_size=[9, 9])


@pytest.mark.parametrize("p", [1, 2, 3])
def test_lp_pool2d(p):
    x = RNG.uniform(0.1, 2.0, (2, 3, 6, 5)).astype("float32")
    got = run_static(lambda x: F.lp_pool2d(x, p, 2, 2), x, shapes=[[None, 3, 6, 5]])
    np.testing.assert_allclose(got, lp_ref(x, p, 2, 2), rtol=1e-5)
    np.testing.assert_allclose(nn.LPPool2D(p, 2, 2)(paddle.to_tensor(x)).numpy(), got, rtol=1e-6)


def test_lp_pool1d_and_infinite_norm():
    x = RNG.uniform(0.1, 2.0, (2, 3, 7)).astype("float32")
    got = F.lp_pool1d(paddle.to_tensor(x), 2, 3, 2).numpy()
    want = np.stack([np.sqrt((x[..., i * 2:i * 2 + 3] ** 2).sum(-1)) for i in range(3)], -1)
    np.testing.assert_allclose(got, want, rtol=1e-5)
    np.testing.assert_array_equal(nn.LPPool1D(float("inf"), 3, 2)(paddle.to_tensor(x)).numpy(),
                                  F.max_pool1d(paddle.to_tensor(x), 3, 2).numpy())


def test_gradients_match_finite_differences():
    x = RNG.standard_normal((2, 2, 4, 4))
    out, mask = F.max_pool2d(paddle.to_tensor(x), 2, return_mask=True)
    check_grad(lambda v: F.max_unpool2d(v, mask, 2), out.numpy())
    check_grad(lambda v: F.lp_pool2d(v, 3, 2, 1), RNG.uniform(0.5, 2.0, (1, 2, 3, 3)))

    # the gradient of the unpool scatter is a mask_gather; differentiate that gather too
    def gather_of(c):
        v = paddle.to_tensor(out.numpy())
        v.stop_gradient = False
        g, = paddle.grad((F.max_unpool2d(v, mask, 2) * c).sum(), [v], create_graph=True)
        return g * g
    check_grad(gather_of, RNG.standard_normal((2, 2, 4, 4)))
