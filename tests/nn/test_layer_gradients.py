"""Layer.clear_gradients, eagerly and inside a converted training step."""
import numpy as np

import dy2st as paddle
from tests.support import randn


def _net():
    paddle.seed(3)
    return paddle.nn.Sequential(paddle.nn.Linear(4, 3), paddle.nn.ReLU(), paddle.nn.Linear(3, 2))


def test_clear_gradients_zeroes_or_drops():
    net = _net()
    x = paddle.to_tensor(randn(0, 5, 4))
    net(x).sum().backward()
    assert all(p.grad is not None and np.abs(p.grad.numpy()).sum() > 0 for p in net.parameters())
    net.clear_gradients()
    assert all(np.all(p.grad.numpy() == 0) for p in net.parameters())
    net(x).sum().backward()
    net.clear_gradients(set_to_zero=False)
    assert all(p.grad is None for p in net.parameters())


def test_clear_gradients_skips_frozen_parameters():
    net = _net()
    frozen = net[0].weight
    frozen.stop_gradient = True
    net(paddle.to_tensor(randn(1, 2, 4))).sum().backward()
    net.clear_gradients(set_to_zero=False)
    assert frozen.grad is None and net[2].weight.grad is None


def test_clear_gradients_in_a_converted_step_matches_eager():
    x, y = paddle.to_tensor(randn(2, 6, 4)), paddle.to_tensor(randn(3, 6, 2))

    def step(net, opt):
        loss = paddle.nn.functional.mse_loss(net(x), y)
        loss.backward()
        opt.step()
        net.clear_gradients()
        return loss

    results = []
    for convert in (False, True):
        net = _net()
        opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=net.parameters())
        fn = paddle.jit.to_static(step) if convert else step
        losses = [float(fn(net, opt)) for _ in range(3)]     # a stale gradient would add up
        results.append((losses, [p.numpy() for p in net.parameters()]))
    (l0, p0), (l1, p1) = results
    np.testing.assert_allclose(l0, l1, rtol=1e-5)
    for a, b in zip(p0, p1):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)
