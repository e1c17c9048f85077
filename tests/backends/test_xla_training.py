"""Training on XLA equals training on numpy: a to_static model through loss.backward() and
Adam, a whole train step in one to_static (one XLA computation, BatchNorm statistics included),
and gradients through tensor `if`s and data-dependent loops."""
import numpy as np
import pytest

pytest.importorskip("jax", reason="jax is not installed (pip install 'dy2st[xla]')")

import dy2st as paddle  # noqa: E402


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = paddle.nn.Linear(6, 16)
        self.bn = paddle.nn.BatchNorm1D(16)
        self.fc2 = paddle.nn.Linear(16, 3)

    def forward(self, x):
        # (no BatchNorm right after fc1: its bias would get a zero gradient, and Adam turns the
        # rounding noise of a zero into full-size steps)
        h = self.bn(paddle.nn.functional.gelu(self.fc1(x)))
        if h.abs().mean() > 0.1:      # (not h.mean() > 0: after BatchNorm it is 0 +- rounding)
            h = h * 1.5
        else:
            h = h - 0.5
        return self.fc2(h)


def data(steps=4, seed=0):
    rng = np.random.default_rng(seed)
    return [(paddle.to_tensor(rng.standard_normal((8, 6)).astype("float32")),
             paddle.to_tensor(rng.integers(0, 3, (8,)).astype("int64"))) for _ in range(steps)]


def make(backend):
    paddle.seed(3)
    net = Net()
    net.train()
    opt = paddle.optimizer.Adam(learning_rate=0.01, parameters=net.parameters())
    return paddle.jit.to_static(net, backend=backend), opt


def state(net):
    return {k: v.numpy().copy() for k, v in net.state_dict().items()}


def test_backward_through_a_static_model_matches_numpy_after_adam_steps():
    results = {}
    for backend in ("numpy", "xla"):
        net, opt = make(backend)
        losses = []
        for x, y in data():
            loss = paddle.nn.functional.cross_entropy(net(x), y)
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses.append(float(loss))
        results[backend] = (losses, state(net))
        if backend == "xla":
            gp = next(iter(net.forward._last.grad_state.programs.values()))
            assert type(gp.forward).__name__ == "XlaProgram" and gp.forward.fallback is None
            assert type(gp.backward).__name__ == "XlaProgram" and gp.backward.fallback is None
    np.testing.assert_allclose(results["xla"][0], results["numpy"][0], rtol=1e-4)
    for k, v in results["numpy"][1].items():
        np.testing.assert_allclose(results["xla"][1][k], v, rtol=1e-4, atol=1e-6, err_msg=k)


def test_a_whole_train_step_is_one_xla_computation():
    results = {}
    for backend in ("numpy", "xla"):
        paddle.seed(3)
        net = Net()
        net.train()
        opt = paddle.optimizer.Adam(learning_rate=0.01, parameters=net.parameters())

        def step(x, y):
            loss = paddle.nn.functional.cross_entropy(net(x), y)
            loss.backward()
            opt.step()
            opt.clear_grad()
            return loss
        static = paddle.jit.to_static(step, backend=backend)
        losses = [float(static(x, y)) for x, y in data(5, seed=1)]
        results[backend] = (losses, state(net))
        if backend == "xla":
            assert static.num_programs == 1
            compiled = static._last.compiled
            assert type(compiled).__name__ == "XlaProgram"
            assert compiled.fallback is None and compiled.compiles == 1
            ops = {op.type for b in compiled.program.blocks for op in b.ops}
            assert "matmul" in ops or "linear" in ops
            assert "batch_norm_stats" in ops           # statistics updated inside the step
    np.testing.assert_allclose(results["xla"][0], results["numpy"][0], rtol=1e-4)
    for k, v in results["numpy"][1].items():
        np.testing.assert_allclose(results["xla"][1][k], v, rtol=1e-4, atol=1e-6, err_msg=k)


def looped(x, w):
    h = x * w
    while h.abs().sum() < 50.0:          # trip count depends on the data
        h = h * 1.5 + w
    if h.sum() > 0:
        h = h * h
    return h.sum()


# 1e-6 runs ~45 turns: past the first tape capacity (32), so the program compiles again larger
@pytest.mark.parametrize("scale", [1e-6, 0.1, 2.0, 40.0])
def test_gradients_through_if_and_data_dependent_while_match_numpy_and_differences(scale):
    x = paddle.to_tensor(np.array([1.0, -0.5, 2.0], "float64") * scale)
    grads = {}
    for backend in ("numpy", "xla"):
        w = paddle.to_tensor(np.array([0.3, 0.2, -0.1], "float64"), stop_gradient=False)
        static = paddle.jit.to_static(looped, backend=backend)
        out = static(x, w)
        out.backward()
        if backend == "xla":        # forward (with its tapes) and backward both on XLA
            gp = next(iter(static._last.grad_state.programs.values()))
            assert gp.forward.fallback is None and gp.backward.fallback is None
        grads[backend] = (float(out), w.grad.numpy().copy())
    np.testing.assert_allclose(grads["xla"][0], grads["numpy"][0], rtol=1e-10)
    np.testing.assert_allclose(grads["xla"][1], grads["numpy"][1], rtol=1e-8)
    # and against finite differences of the eager function
    w0 = np.array([0.3, 0.2, -0.1])
    eps = 1e-6
    fd = []
    for i in range(3):
        d = np.zeros(3)
        d[i] = eps
        hi = float(looped(x, paddle.to_tensor(w0 + d)))
        lo = float(looped(x, paddle.to_tensor(w0 - d)))
        fd.append((hi - lo) / (2 * eps))
    np.testing.assert_allclose(grads["xla"][1], fd, rtol=1e-4, atol=1e-6)


def rearranging(x, w, ids):
    a, b = paddle.split(x, [2, 3], axis=1)
    rows = paddle.unbind(x, axis=0)
    picked = x[paddle.to_tensor([0, 2, 0])]              # advanced index, a repeated row
    strided = x[:, ::2]
    gathered = paddle.gather(x, paddle.to_tensor([1, 1, 0]), axis=0)
    emb = paddle.nn.functional.embedding(ids, w)
    tiled = paddle.tile(a, [2, 1])
    sliced = paddle.slice(x, axes=[1], starts=[1], ends=[4])
    return ((a * 2).sum() + (b ** 2).sum() + (rows[1] * rows[2]).sum() + picked.sum()
            + (strided ** 3).sum() + (gathered * 1.5).sum() + (emb ** 2).sum()
            + (tiled ** 2).sum() + sliced.sum())


def test_gradients_of_slicing_gathers_and_embedding_match_numpy(monkeypatch):
    monkeypatch.setenv("DY2ST_XLA_STRICT", "1")      # every op lowered, none on numpy
    rng = np.random.default_rng(4)
    x0 = rng.standard_normal((3, 5))
    w0 = rng.standard_normal((6, 4))
    ids = paddle.to_tensor(np.array([[1, 5, 1], [0, 2, 2]], "int64"))
    got = {}
    for backend in ("numpy", "xla"):
        x = paddle.to_tensor(x0, stop_gradient=False)
        w = paddle.to_tensor(w0, stop_gradient=False)
        out = paddle.jit.to_static(rearranging, backend=backend)(x, w, ids)
        out.backward()
        got[backend] = (float(out), x.grad.numpy(), w.grad.numpy())
    np.testing.assert_allclose(got["xla"][0], got["numpy"][0], rtol=1e-12)
    np.testing.assert_allclose(got["xla"][1], got["numpy"][1], rtol=1e-12)
    np.testing.assert_allclose(got["xla"][2], got["numpy"][2], rtol=1e-12)
