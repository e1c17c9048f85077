"""nn.SpectralNorm against numpy power iteration written by hand (dims, power_iters), its gradient
(u and v held constant, as Paddle's) against finite differences, and a model using it through
to_static and jit.save / jit.load with a None batch dim."""
import numpy as np
import pytest

import dy2st as paddle
from tests.support import check_layer_converts


def spectral_reference(w, u, v, dim, iters, eps=1e-12):
    perm = [dim] + [i for i in range(w.ndim) if i != dim]
    mat = w.transpose(perm).reshape(w.shape[dim], -1)
    for _ in range(iters):
        v = mat.T @ u
        v = v / (np.linalg.norm(v) + eps)
        u = mat @ v
        u = u / (np.linalg.norm(u) + eps)
    return u, v, u @ mat @ v


@pytest.mark.parametrize("shape,dim,iters", [((4, 3), 0, 1), ((2, 3, 4), 1, 3), ((3, 5), 1, 20)])
def test_matches_power_iteration_by_hand(shape, dim, iters):
    paddle.seed(1)
    layer = paddle.nn.SpectralNorm(shape, dim=dim, power_iters=iters, dtype="float64")
    w = np.random.default_rng(2).standard_normal(shape)
    u0, v0 = layer.weight_u.numpy().copy(), layer.weight_v.numpy().copy()
    assert u0.shape == (shape[dim],) and v0.shape == (int(np.prod(shape)) // shape[dim],)
    got = layer(paddle.to_tensor(w)).numpy()
    _, _, sigma = spectral_reference(w, u0, v0, dim, iters)
    np.testing.assert_allclose(got, w / sigma, rtol=1e-10)
    np.testing.assert_array_equal(layer.weight_u.numpy(), u0)     # not updated, as Paddle
    if iters == 20:          # converged: sigma is the largest singular value
        mat = np.moveaxis(w, dim, 0).reshape(shape[dim], -1)
        np.testing.assert_allclose(w / got, np.linalg.svd(mat, compute_uv=False)[0], rtol=1e-6)


def test_gradient_holds_u_and_v_constant():
    paddle.seed(3)
    layer = paddle.nn.SpectralNorm([3, 4], power_iters=2, dtype="float64")
    w = np.random.default_rng(4).standard_normal((3, 4))
    cot = np.random.default_rng(5).standard_normal((3, 4))
    u, v, _ = spectral_reference(w, layer.weight_u.numpy(), layer.weight_v.numpy(), 0, 2)

    def loss(a):
        return np.sum(a / (u @ a @ v) * cot)

    wt = paddle.to_tensor(w, stop_gradient=False)
    (layer(wt) * paddle.to_tensor(cot)).sum().backward()
    fd = np.zeros_like(w)
    for idx in np.ndindex(*w.shape):
        e = np.zeros_like(w)
        e[idx] = 1e-6
        fd[idx] = (loss(w + e) - loss(w - e)) / 2e-6
    np.testing.assert_allclose(wt.grad.numpy(), fd, rtol=1e-6, atol=1e-9)
    assert layer.weight_u.grad is None


class SpectralLinear(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.weight = self.create_parameter([5, 3])
        self.norm = paddle.nn.SpectralNorm([5, 3], dim=1, power_iters=2)

    def forward(self, x):
        return paddle.matmul(x, self.norm(self.weight))


def test_model_converts_and_round_trips(tmp_path):
    paddle.seed(6)
    model = SpectralLinear()
    x = np.random.default_rng(7).standard_normal((4, 5)).astype("float32")
    got = check_layer_converts(model, [x], tmp_path)
    _, _, sigma = spectral_reference(model.weight.numpy().astype("float64"),
                                     model.norm.weight_u.numpy(), model.norm.weight_v.numpy(),
                                     1, 2)
    np.testing.assert_allclose(got, x @ model.weight.numpy() / sigma, rtol=1e-5)


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="dim 2 is out of range"):
        paddle.nn.SpectralNorm([3, 4], dim=2)
    with pytest.raises(ValueError, match="power_iters"):
        paddle.nn.SpectralNorm([3, 4], power_iters=-1)
