"""A variable None before a tensor loop (or tensor `if`) that may assign it is returned as eager
code returns it (issue 24): None when the loop ran no turn that assigned it, the value when one
did, alone, in a tuple or dict, through another name or a helper, across a graph break, with
eager's gradients; computing with it where it is None still fails, and a saved model, which
cannot return None, raises a clear TypeError on the paths where it would."""
import numpy as np
import pytest

import dy2st as paddle
from tests.support import BREAK_MODES, graph_break, numeric_gradient

# rows: every row positive, none, the last only, the first only (0, 2, 1 and 1 turns assign)
INPUTS = [[[1.0, 2.0], [3.0, 4.0]], [[-1.0, -2.0], [-3.0, -4.0]],
          [[-1.0, -2.0], [3.0, 4.0]], [[1.0, 2.0], [-3.0, 0.5]]]


def _last_positive_row(with_break):
    def f(x):
        y = None
        for r in x:
            if r.sum() > 0:
                y = r * r if y is None else y + r
        if with_break:
            graph_break(x)
        return y, x * 2.0
    return f


def _counted(x):
    y = None
    n = (x[:, 0] > 0).astype("int64").sum()
    for i in range(n):
        y = x[i] * 2.0
    g = y
    return {"y": g, "n": n}


def _passed(v):
    return v


def _while(x):
    y = None
    i = paddle.zeros([], "int64")
    while i < (x[:, 0] > 0).astype("int64").sum():
        y = x[i] * x[i]
        i += 1
    return _passed(y)


def _under_if(x):
    y = None
    if x.sum() > 0:
        y = x * 3.0
    return y


def _leaves(out):
    if isinstance(out, dict):
        return [out[k] for k in sorted(out)]
    return list(out) if isinstance(out, tuple) else [out]


def _outcome(run, a):
    x = paddle.to_tensor(np.asarray(a, "float32"), stop_gradient=False)
    leaves = _leaves(run(x))
    squares = [(t * t).sum() for t in leaves if t is not None and t.dtype == paddle.float32]
    if squares:
        paddle.add_n(squares).backward()
    grad = None if x.grad is None else x.grad.numpy()
    return [None if t is None else t.numpy() for t in leaves], grad


def _check(fn, full_graph):
    run = paddle.jit.to_static(fn, full_graph=full_graph)
    nones = set()
    for a in INPUTS:
        (want, want_grad), (got, got_grad) = _outcome(fn, a), _outcome(run, a)
        for w, g in zip(want, got):
            assert (w is None) == (g is None)
            nones.add(w is None)
            if w is not None:
                np.testing.assert_allclose(g, w, rtol=1e-6)
        assert (got_grad is None) == (want_grad is None)
        if want_grad is not None:
            np.testing.assert_allclose(got_grad, want_grad, rtol=1e-6)
    assert nones == {True, False}


@pytest.mark.parametrize("full_graph, with_break", BREAK_MODES)
def test_none_or_the_value_of_a_tensor_loop(full_graph, with_break):
    _check(_last_positive_row(with_break), full_graph)


@pytest.mark.parametrize("full_graph", [True, False])
@pytest.mark.parametrize("fn", [_counted, _while, _under_if])
def test_through_a_name_a_helper_and_containers(fn, full_graph):
    _check(fn, full_graph)


def test_gradient_against_finite_differences():
    run = paddle.jit.to_static(_last_positive_row(False), full_graph=True)
    a = np.array([[-1.0, 2.0], [3.0, 4.0]])

    def loss(v):
        y = None
        for r in v:
            if r.sum() > 0:
                y = r * r if y is None else y + r
        return float((y * y).sum() + ((2 * v) ** 2).sum())
    _, grad = _outcome(run, a)
    np.testing.assert_allclose(grad, numeric_gradient(loss, a), rtol=1e-4)


@pytest.mark.parametrize("full_graph", [True, False])
def test_computing_with_it_where_it_is_none_fails_as_eager(full_graph):
    def f(x):
        y = None
        for r in x:
            if r.sum() > 0:
                y = r * 2.0
        return y + 1.0
    run = paddle.jit.to_static(f, full_graph=full_graph)
    x = paddle.to_tensor(np.asarray(INPUTS[1], "float32"))
    with pytest.raises(TypeError):
        f(x)
    with pytest.raises(TypeError, match="'y' is None here"):
        run(x)
    np.testing.assert_allclose(run(paddle.to_tensor(np.asarray(INPUTS[0], "float32"))).numpy(),
                               [7.0, 9.0])


def test_a_saved_model_raises_where_it_would_return_none(tmp_path):
    spec = [paddle.static.InputSpec([None, 2], "float32")]
    paddle.jit.save(paddle.jit.to_static(_under_if, input_spec=spec), str(tmp_path / "m"))
    loaded = paddle.jit.load(str(tmp_path / "m"))
    x = np.asarray(INPUTS[0], "float32")
    np.testing.assert_allclose(loaded(paddle.to_tensor(x)).numpy(), x * 3.0)
    with pytest.raises(TypeError, match="'y' is None here"):
        loaded(paddle.to_tensor(np.asarray(INPUTS[1], "float32")))


def _returns_on_one_path(x):
    if x.sum() > 0:
        return x * 3.0      # the end of the function returns None


def _returns_none_explicitly(x):
    if x.sum() > 0:
        return x * 3.0
    return None


def _returns_in_a_loop(x):
    for r in x:
        if r.sum() > 0:
            return r * 2.0


@pytest.mark.parametrize("full_graph", [True, False])
@pytest.mark.parametrize("fn", [_returns_on_one_path, _returns_none_explicitly,
                                _returns_in_a_loop])
def test_a_return_on_one_path_returns_none_on_the_others(fn, full_graph):
    """Before: the function's end gave the unassigned return value's zeros, silently."""
    _check(fn, full_graph)


def test_a_saved_model_raises_where_the_function_returns_none(tmp_path):
    spec = [paddle.static.InputSpec([None, 2], "float32")]
    paddle.jit.save(paddle.jit.to_static(_returns_on_one_path, input_spec=spec),
                    str(tmp_path / "m"))
    loaded = paddle.jit.load(str(tmp_path / "m"))
    x = np.asarray(INPUTS[0], "float32")
    np.testing.assert_allclose(loaded(paddle.to_tensor(x)).numpy(), x * 3.0)
    with pytest.raises(TypeError, match="the function returns None here"):
        loaded(paddle.to_tensor(np.asarray(INPUTS[1], "float32")))
