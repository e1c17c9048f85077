"""Gradients of CNN-family functions in a static program (append_backward through our rules,
unknown batch dim) equal the eager gradients."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.nn import functional as F

RNG = np.random.default_rng(41)


def rnd(*shape):
    return RNG.uniform(-2, 2, shape)


W1, W3 = rnd(6, 2, 3), rnd(2, 3, 2, 2, 2)
CASES = {
    "conv1d": (lambda x: F.conv1d(x, paddle.to_tensor(W1), stride=2, padding=1, groups=2), (2, 4, 7)),
    "conv3d_transpose": (lambda x: F.conv3d_transpose(x, paddle.to_tensor(W3), stride=2), (2, 2, 2, 3, 2)),
    "max_pool2d": (lambda x: F.max_pool2d(x, 3, 2, 1, ceil_mode=True), (2, 3, 5, 5)),
    "avg_pool1d": (lambda x: F.avg_pool1d(x, 3, 2, 1, exclusive=False), (2, 3, 7)),
    "adaptive_max_pool2d": (lambda x: F.adaptive_max_pool2d(x, [2, 3]), (2, 2, 5, 7)),
    "interpolate": (lambda x: F.interpolate(x, scale_factor=1.7, mode="bicubic"), (2, 2, 3, 4)),
    "grid_sample": (lambda x: F.grid_sample(x[:, :2], x[:, 2:].transpose([0, 2, 3, 1]) * 0.5), (2, 4, 3, 3)),
    "group_norm": (lambda x: F.group_norm(x, 2), (2, 4, 3, 2)),
    "local_response_norm": (lambda x: F.local_response_norm(x, 3, alpha=0.5), (2, 4, 2, 2)),
    "unfold": (lambda x: F.unfold(x, 2, 1, 1), (2, 2, 3, 3)),
    "pixel_shuffle": (lambda x: F.pixel_shuffle(x, 2), (2, 8, 2, 3)),
    "activations": (lambda x: F.selu(x) * F.softsign(x) + F.glu(F.celu(x), axis=1) .sum() + F.log_sigmoid(x)
                    + F.tanhshrink(x) + F.softshrink(x) + F.hardshrink(x) + F.thresholded_relu(x), (2, 4, 3)),
    "max_unpool": (lambda x: F.max_unpool2d(*F.max_pool2d(x, 2, return_mask=True), 2), (2, 2, 4, 4)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_static_gradient_equals_eager(name):
    fn, shape = CASES[name]
    x = rnd(*shape)
    t = paddle.to_tensor(x)
    t.stop_gradient = False
    out = fn(t)
    c = RNG.standard_normal(out.shape)
    eager, = paddle.grad((out * paddle.to_tensor(c)).sum(), [t])

    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        xv = paddle.static.data("x", [None] + list(shape[1:]), "float64")
        xv.stop_gradient = False
        cv = paddle.static.data("c", [None] + list(c.shape[1:]), "float64")
        gx, = paddle.grad((fn(xv) * cv).sum(), [xv])
    got, = paddle.static.Executor().run(main, feed={"x": x, "c": c}, fetch_list=[gx])
    np.testing.assert_allclose(got, eager.numpy(), rtol=1e-10, atol=1e-12)


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = paddle.nn.Conv1D(3, 4, 3, padding=1)
        self.norm = paddle.nn.GroupNorm(2, 4)
        self.pool = paddle.nn.MaxPool1D(2)
        self.up = paddle.nn.Conv1DTranspose(4, 2, 2, stride=2)
        self.act = paddle.nn.PReLU(2)

    def forward(self, x):
        return self.act(self.up(self.pool(self.norm(self.conv(x)))))


def test_parameter_gradients_through_to_static_equal_eager():
    x = paddle.to_tensor(RNG.standard_normal((2, 3, 8)).astype("float32"))
    grads = []
    for convert in (False, True):
        paddle.seed(3)
        net = Net()
        model = paddle.jit.to_static(net) if convert else net
        (model(x) ** 2).mean().backward()
        grads.append({n: p.grad.numpy() for n, p in net.named_parameters()})
    assert set(grads[0]) == set(grads[1]) and len(grads[0]) == 7
    for name in grads[0]:
        np.testing.assert_allclose(grads[1][name], grads[0][name], rtol=1e-4, atol=1e-6, err_msg=name)


def test_second_order_grid_sample_gradients_in_a_static_program_equal_eager():
    xa, ga = rnd(2, 1, 3, 3), rnd(2, 2, 2, 2) * 0.65

    def fn(x, g):
        return F.grid_sample(x, g, padding_mode="border")

    def second(first):
        return (first[0] * first[0]).sum() + (first[1] * first[1]).sum()

    x, g = paddle.to_tensor(xa, stop_gradient=False), paddle.to_tensor(ga, stop_gradient=False)
    first = paddle.grad([(fn(x, g) ** 3).sum()], [x, g], create_graph=True)
    eager = paddle.grad([second(first)], [x, g])
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        xv = paddle.static.data("x", [None, 1, 3, 3], "float64")
        gv = paddle.static.data("g", [None, 2, 2, 2], "float64")
        first_v = paddle.static.gradients([(fn(xv, gv) ** 3).sum()], [xv, gv])
        grads = paddle.static.gradients([second(first_v)], [xv, gv])
    got = paddle.static.Executor().run(main, feed={"x": xa, "g": ga}, fetch_list=grads)
    for value, want in zip(got, eager):
        assert np.abs(want.numpy()).max() > 0
        np.testing.assert_allclose(value, want.numpy(), rtol=1e-10, atol=1e-12)
