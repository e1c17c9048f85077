"""full_graph=True with tensors written into Python containers (issue 23, item 4): after every
call the containers hold real tensors equal to eager's (not traced values), also when a helper
writes them and when gradients are recorded; an item set in a global or closure container
converts (it used to make the name a local of the converted function)."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.runtime.tensor import Tensor

LOG = []
CACHE = {}


def _remember(t):
    LOG.append(t * 1.0)


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.cache = {}
        self.hist = []
        self.fc = paddle.nn.Linear(3, 3)

    def forward(self, x):
        h = self.fc(x) * 2.0
        self.cache["k"] = h
        self.hist.append(h + 1.0)
        LOG.append(h.sum())
        CACHE["last"] = [h, h * 3.0]
        _remember(h)
        return h + 1.0


def _values(obj):
    """Every leaf of nested lists / dicts, as float64 arrays (a traced value fails here)."""
    if isinstance(obj, dict):
        return [v for k in sorted(obj) for v in _values(obj[k])]
    if isinstance(obj, (list, tuple)):
        return [v for item in obj for v in _values(item)]
    assert type(obj) is Tensor, f"not a real tensor: {obj!r}"
    return [obj.numpy().astype("float64")]


def _state(net):
    return _values([net.cache, net.hist, LOG, CACHE])


@pytest.fixture(autouse=True)
def fresh_state():
    LOG.clear()
    CACHE.clear()
    yield
    LOG.clear()
    CACHE.clear()


@pytest.mark.parametrize("grad", [False, True])
def test_containers_hold_the_eager_tensors_after_every_call(grad):
    paddle.seed(0)
    eager, net = Net(), Net()
    net.set_state_dict(eager.state_dict())
    static = paddle.jit.to_static(net, full_graph=True)
    for i in range(3):
        x = np.full([2, 3], float(i + 1), "float32")
        xe, xs = paddle.to_tensor(x), paddle.to_tensor(x)
        xe.stop_gradient = xs.stop_gradient = not grad
        LOG.clear()
        CACHE.clear()
        expected = eager(xe)
        want = _state(eager)
        LOG.clear()
        CACHE.clear()
        got = static(xs)
        have = _state(net)
        np.testing.assert_allclose(got.numpy(), expected.numpy(), err_msg=f"call {i + 1}")
        assert len(have) == len(want)
        for a, b in zip(have, want):
            np.testing.assert_allclose(a, b, rtol=1e-6, err_msg=f"call {i + 1}")
        if grad:
            expected.sum().backward()
            got.sum().backward()
            np.testing.assert_allclose(xs.grad.numpy(), xe.grad.numpy(), rtol=1e-6)


def set_global_item(x):
    h = x * 2.0
    CACHE["h"] = h
    CACHE["n"] = CACHE.get("n", 0) + 1
    return h * CACHE["n"]


def _closure_writer():
    seen = {}

    def write(x):
        seen["x"] = x + 1.0
        return seen["x"] * 2.0
    return write, seen


@pytest.mark.parametrize("full_graph", [True, False])
def test_an_item_of_a_global_container_is_set_in_place(full_graph):
    static = paddle.jit.to_static(set_global_item, full_graph=full_graph)
    for n in range(1, 4):
        got = static(paddle.to_tensor(np.ones([2], "float32")))
        assert CACHE["n"] == n
        np.testing.assert_allclose(got.numpy(), [2.0 * n] * 2)
        np.testing.assert_allclose(CACHE["h"].numpy(), [2.0, 2.0])


def test_an_item_of_a_closure_container_is_set_in_place():
    write, seen = _closure_writer()
    static = paddle.jit.to_static(write, full_graph=True)
    for v in (1.0, 5.0):
        got = static(paddle.to_tensor(np.full([2], v, "float32")))
        np.testing.assert_allclose(got.numpy(), [2.0 * (v + 1.0)] * 2)
        assert type(seen["x"]) is Tensor
        np.testing.assert_allclose(seen["x"].numpy(), [v + 1.0] * 2)
