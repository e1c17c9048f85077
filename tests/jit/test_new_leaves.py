"""`y.stop_gradient = False` in a to_static function on a value that needs no gradient on the call
(a detach, a value computed under no_grad or from tensors that need none) makes `y` a new leaf,
as eager code: the outputs computed from it need a gradient, a returned `y` is a leaf that gets
`.grad` from the call's backward and from later eager code, in both full_graph settings; on a
value that needs a gradient it changes nothing."""
import numpy as np
import pytest

import dy2st as paddle

X = np.array([1.0, -2.0, 0.5], "float32")
W = np.array([0.5, 1.5, -1.0], "float32")


def _detached(x, w):
    y = x.detach()
    y.stop_gradient = False
    return (y * w).sum(), y


def _under_no_grad(x, w):
    with paddle.no_grad():
        y = x * 2.0
    y.stop_gradient = False
    return (y * y * w).sum(), y


def _computed(x, w):
    y = x * 2.0             # needs a gradient when x does: then the flag changes nothing
    y.stop_gradient = False
    return (y * w).sum(), y


def _not_returned(x, w):
    y = paddle.exp(x.detach())
    y.stop_gradient = False
    return (y * w).sum()


def _chained(x, w):
    a = x.detach()
    a.stop_gradient = False
    b = a * 3.0             # computed from the new leaf: not a leaf itself
    b.stop_gradient = False
    return (b * w).sum(), a, b


def _run(fn, needs, later):
    x, w = (paddle.to_tensor(a, stop_gradient=not n) for a, n in zip((X, W), needs))
    out = fn(x, w)
    out = out if isinstance(out, tuple) else (out,)
    z, rest = out[0], out[1:]
    state = [z.stop_gradient] + [(t.stop_gradient, t.is_leaf) for t in rest]
    z.backward(retain_graph=later)
    if later and rest:
        (rest[0] * rest[0]).sum().backward()     # eager code after the call adds to the leaf's grad
    grads = [None if t.grad is None else t.grad.numpy() for t in (x, w) + tuple(rest)]
    return state, grads


@pytest.mark.parametrize("full_graph", [True, False])
@pytest.mark.parametrize("fn", [_detached, _under_no_grad, _computed, _not_returned, _chained],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("needs", [(True, True), (False, True), (False, False)],
                         ids=["both", "w", "none"])
def test_a_new_leaf_agrees_with_eager(fn, needs, full_graph):
    static = paddle.jit.to_static(fn, full_graph=full_graph)
    for later in (False, True):
        want, got = _run(fn, needs, later), _run(static, needs, later)
        assert got[0] == want[0]
        for g, w in zip(got[1], want[1]):
            assert (g is None) == (w is None)
            if w is not None:
                np.testing.assert_allclose(g, w, rtol=1e-6)


def _in_a_branch(x, w):
    y = x.detach()
    if x.sum() > 0:
        y.stop_gradient = False
    return (y * w).sum()


def test_a_new_leaf_on_some_paths_is_refused_at_its_line():
    static = paddle.jit.to_static(_in_a_branch)
    x, w = paddle.to_tensor(X), paddle.to_tensor(W, stop_gradient=False)
    with pytest.raises(paddle.autograd.GradientError if hasattr(paddle.autograd, "GradientError")
                       else RuntimeError, match=r"test_new_leaves.py\", line \d+.*some paths"):
        static(x, w)


def test_create_graph_through_a_new_leaf_is_refused():
    static = paddle.jit.to_static(_detached)
    x, w = paddle.to_tensor(X), paddle.to_tensor(W, stop_gradient=False)
    z, y = static(x, w)
    with pytest.raises(RuntimeError, match="new leaf"):
        paddle.grad([z], [w], create_graph=True)


def _input_made_leaf(x, w):
    x.stop_gradient = False
    return (x * w).sum()


@pytest.mark.parametrize("full_graph", [True, False])
def test_an_input_set_to_need_a_gradient_changes_the_callers_tensor(full_graph):
    static = paddle.jit.to_static(_input_made_leaf, full_graph=full_graph)
    for run in (_input_made_leaf, static):
        x, w = paddle.to_tensor(X), paddle.to_tensor(W)
        z = run(x, w)
        assert not z.stop_gradient and not x.stop_gradient
        z.backward()
        np.testing.assert_allclose(x.grad.numpy(), W)
        assert w.grad is None


def _to_tensor_copy(x, w):
    # eagerly a copy that is a new leaf: x's gradient comes through `* x` only
    y = paddle.to_tensor(x * 2.0, stop_gradient=False)
    return (y * x * w).sum(), y


@pytest.mark.parametrize("full_graph", [True, False])
def test_a_to_tensor_copy_that_needs_a_gradient_is_a_new_leaf(full_graph):
    # the copy was an `assign`, so the gradient flowed back through it into x (audit round 5)
    grads = []
    for fn in (_to_tensor_copy, paddle.jit.to_static(_to_tensor_copy, full_graph=full_graph)):
        x = paddle.to_tensor(X, stop_gradient=False)
        loss, y = fn(x, paddle.to_tensor(W))
        loss.backward()
        assert not y.stop_gradient
        grads.append((x.grad.numpy(), y.grad.numpy()))
    np.testing.assert_allclose(grads[1][0], grads[0][0], rtol=1e-6)
    np.testing.assert_allclose(grads[1][1], grads[0][1], rtol=1e-6)
