"""Tensor globals (issue 23, item 1): a tensor a function writes to a global before a graph
break and reads after it, a global tensor rebound or changed in place between calls, and one
read by a helper, agree with eager on every call, also when gradients are recorded and when the
eager run (sharing the module, as tools/fuzz.py does) rebinds the global first."""
import numpy as np
import pytest

import dy2st as paddle

GT = paddle.to_tensor(np.ones([3], "float32"))
GN = 1


def _brk(x):
    return sorted(x.tolist())


def write_then_read(x):
    global GN
    h = x.mean(axis=0)
    GN = h * 2.0
    order = _brk(h)
    return h + GN + order[0]


def write_in_a_loop(x):
    global GN
    GN = x[0] * 1.0
    for row in x:
        GN = GN + row
    order = _brk(GN)
    return GN * order[-1]


def read_before_write(x):
    global GN
    h = x.mean(axis=0) + GN
    GN = (h * 0.5).detach()      # (eager would backward into the last call)
    order = _brk(h)
    return h - GN + order[0]


def _reads_gt(h):
    return h * GT


def read_by_a_helper(x, brk):
    h = x.mean(axis=0)
    if brk:
        _brk(h)
    return _reads_gt(h) + GT


def _inputs():
    rng = np.random.default_rng(0)
    return [rng.uniform(-1, 1, size=(b, 3)).astype("float32") for b in (1, 3, 4, 2, 3)]


@pytest.fixture(autouse=True)
def fresh_globals():
    global GT, GN
    GT, GN = paddle.to_tensor(np.ones([3], "float32")), 1
    yield
    GT, GN = paddle.to_tensor(np.ones([3], "float32")), 1


@pytest.mark.parametrize("grad", [False, True])
@pytest.mark.parametrize("fn", [write_then_read, write_in_a_loop, read_before_write],
                         ids=lambda f: f.__name__)
def test_a_global_tensor_written_around_a_break(fn, grad):
    global GN
    static = paddle.jit.to_static(fn, input_spec=[paddle.static.InputSpec([None, 3], "float32")])
    for i, x in enumerate(_inputs()):
        start = GN
        xe = paddle.to_tensor(x)
        xe.stop_gradient = not grad
        want = fn(xe)
        after_eager = GN
        GN = start                      # the static call starts from the same state
        xs = paddle.to_tensor(x)
        xs.stop_gradient = not grad
        got = static(xs)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, err_msg=f"call {i + 1}")
        np.testing.assert_allclose(np.asarray(GN.numpy()), np.asarray(after_eager.numpy()),
                                   rtol=1e-5, err_msg=f"call {i + 1}")
        if grad:
            want.sum().backward()
            got.sum().backward()
            np.testing.assert_allclose(xs.grad.numpy(), xe.grad.numpy(), rtol=1e-5)


@pytest.mark.parametrize("full_graph,brk", [(True, False), (False, False), (False, True)])
def test_a_global_tensor_rebound_or_changed_in_place(full_graph, brk):
    global GT
    static = paddle.jit.to_static(read_by_a_helper, full_graph=full_graph)
    x = np.arange(6, dtype="float32").reshape(2, 3)
    for i in range(6):
        if i % 2:
            GT = paddle.to_tensor(np.full([3], float(i), "float32"))
        else:
            GT[0] = float(10 * i)
        np.testing.assert_allclose(static(paddle.to_tensor(x), brk).numpy(),
                                   read_by_a_helper(paddle.to_tensor(x), brk).numpy(),
                                   err_msg=f"call {i + 1}")
