"""`loss.backward()` inside a tensor `if` of a converted function runs in the graph: `.grad`
of parameters and inputs changes only on the path taken (None stays None on the other), read
inside the branch, an optimizer step and `clear_grad()` after it, both branches, nested `if`s,
`.grad` read after the `if` when it is None on one path only (a value flagged None there);
what one graph cannot hold is refused at the user's line with full_graph=True and agrees with
eager by default; a backward inside a tensor loop body is refused with full_graph=True."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.autograd.engine import GradientError
from tests.support import check_user_error, numeric_gradient

ROWS = [[1.0, -2.0, 3.0], [-3.5, 0.25, -1.0], [2.0, 0.0, 1.0], [-1.0, -1.0, -1.0],
        [0.5, 0.5, 0.5]]


def _leaf(v):
    return paddle.to_tensor(np.asarray(v, "float32"), stop_gradient=False)


def _arrays(res):
    res = res if isinstance(res, tuple) else (res,)
    return [None if r is None else np.asarray(r.numpy()).copy() for r in res]


def _same(want, got):
    assert len(want) == len(got)
    for w, g in zip(want, got):
        assert (w is None) == (g is None), (w, g)
        if w is not None:
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def _grads(ts):
    return [None if t.grad is None else t.grad.numpy().copy() for t in ts]


def _model(warm):
    paddle.seed(7)
    lin = paddle.nn.Linear(3, 2)
    opt = paddle.optimizer.Adam(0.1, parameters=lin.parameters())
    if warm:        # the parameters have (zero) gradients before the first step
        lin(_leaf([1.0, 1.0, 1.0])).sum().backward()
        opt.clear_grad()
    return lin, opt


def _step(lin, opt):
    def step(x):
        h = lin(x)
        if h.mean() > 0:
            loss = (h * h).sum()
            loss.backward()
            seen = x.grad * 1.0         # read inside the branch, after its backward
        else:
            loss = h.sum() * 0.5
            seen = x * 0.0
        opt.step()
        opt.clear_grad()
        return loss, seen, lin.weight * 1.0, lin.bias * 1.0
    return step


@pytest.mark.parametrize("full_graph", [True, False])
def test_a_training_step_whose_backward_is_under_a_tensor_if(full_graph):
    eager_model, static_model = _model(True), _model(True)
    eager, static = _step(*eager_model), paddle.jit.to_static(_step(*static_model),
                                                              full_graph=full_graph)
    taken = []
    for r in ROWS:
        a, b = _leaf(r), _leaf(r)
        _same(_arrays(eager(a)), _arrays(static(b)))
        _same(_grads([a]), _grads([b]))
        taken.append(a.grad is not None)
    assert any(taken) and not all(taken)
    assert static.num_programs == 1


def test_the_gradient_taken_in_the_branch_matches_differences():
    def f(x):
        y = paddle.tanh(x) * x
        if y.sum() > 0.5:
            (y * y).sum().backward()
        return x * 1.0
    run = paddle.jit.to_static(f, full_graph=True)
    for r in ROWS:
        x = _leaf(r)
        run(x)
        a = np.asarray(r, "float64")
        y = np.tanh(a) * a
        if y.sum() > 0.5:
            want = numeric_gradient(lambda p: float(((np.tanh(p) * p) ** 2).sum()), a)
            np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-4, atol=1e-5)
        else:
            assert x.grad is None


@pytest.mark.parametrize("full_graph", [True, False])
def test_backward_in_both_branches_nested_ifs_and_clear_grad(full_graph):
    def both(x):
        y = paddle.tanh(x)
        if y.sum() > 0:
            (y * y).sum().backward()
        else:
            (y * 3.0).sum().backward()
        return x.grad * 1.0             # a gradient on every path

    def nested(x):
        y = paddle.sin(x)
        if y.sum() > 0:
            if x.mean() > 0.5:
                (y * x).sum().backward()
                g = x.grad * 1.0
            else:
                g = x * 0.0
        else:
            g = x * 2.0
        return g

    def clear_in_branch(x):
        (x * x).sum().backward()
        if x.sum() > 0:
            x.clear_grad()
            (x * 3.0).sum().backward()
        return x.grad * 1.0

    def drop_in_branch(x):
        (x * x).sum().backward()
        if x.sum() > 0:
            x.clear_grad(set_to_zero=False)
        return x * 1.0
    for f in (both, nested, clear_in_branch, drop_in_branch):
        run = paddle.jit.to_static(f, full_graph=full_graph)
        outcomes = set()
        for r in ROWS:
            a, b = _leaf(r), _leaf(r)
            _same(_arrays(f(a)), _arrays(run(b)))
            _same(_grads([a]), _grads([b]))
            outcomes.add(a.grad is None)
        assert f is both or f is clear_in_branch or outcomes == {True, False}, f.__name__


def test_reading_a_gradient_that_is_none_on_one_path_is_refused_in_one_graph():
    eager, static = _step(*_model(False)), _step(*_model(False))
    with pytest.raises(GradientError, match="None when that branch is not taken") as info:
        paddle.jit.to_static(static, full_graph=True)(_leaf(ROWS[0]))
    check_user_error(info.value, __file__, "opt.step()")
    default = paddle.jit.to_static(_step(*_model(False)))     # the line runs eagerly
    for r in ROWS:
        a, b = _leaf(r), _leaf(r)
        _same(_arrays(eager(a)), _arrays(default(b)))
        _same(_grads([a]), _grads([b]))


W = paddle.create_parameter([3], "float32")
W.set_value(paddle.to_tensor([0.5, -1.0, 2.0]))


def _given_in_branch(x):
    if x.sum() > 0:
        (x * x * W).sum().backward()
    g = x.grad                  # None when the branch was not taken
    if g is None:
        return x * 0.0, W.grad
    return g * 2.0 + 1.0, W.grad


def _dropped_in_branch(x):
    (x * x).sum().backward()
    if x.mean() < 0:
        x.clear_grad(set_to_zero=False)
    return x * 1.0, x.grad      # returned: None on one path


def _used_without_a_test(x):
    if x.sum() > 0:
        (x * x).sum().backward()
    return x.grad * 2.0         # eager: TypeError when the branch was not taken


@pytest.mark.parametrize("full_graph", [True, False])
@pytest.mark.parametrize("fn", [_given_in_branch, _dropped_in_branch])
def test_a_gradient_none_on_one_path_is_read_after_the_if(full_graph, fn):
    run = paddle.jit.to_static(fn, full_graph=full_graph)
    paths = set()
    for r in ROWS + ROWS[::-1]:        # several calls, both paths, in both orders
        W.grad = None
        a = _leaf(r)
        want = _arrays(fn(a)) + _grads([a, W])
        W.grad = None
        b = _leaf(r)
        _same(want, _arrays(run(b)) + _grads([b, W]))
        paths.add(want[1] is None)
    assert paths == {True, False}
    x = np.asarray(ROWS[0], "float32")      # the gradient taken in the branch, by differences
    W.grad = None
    got = _arrays(run(_leaf(x)))
    if fn is _given_in_branch:
        w = W.numpy().astype("float64")
        want = numeric_gradient(lambda v: float((v * v * w).sum()), x.astype("float64"), 1e-4)
        np.testing.assert_allclose(got[0], want * 2.0 + 1.0, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("full_graph", [True, False])
def test_computing_with_a_gradient_none_on_the_path_taken_fails_as_eager(full_graph):
    run = paddle.jit.to_static(_used_without_a_test, full_graph=full_graph)
    for r in ROWS:
        if sum(r) > 0:
            _same(_arrays(_used_without_a_test(_leaf(r))), _arrays(run(_leaf(r))))
            continue
        with pytest.raises(TypeError):
            _used_without_a_test(_leaf(r))
        with pytest.raises(TypeError) as info:
            run(_leaf(r))
        check_user_error(info.value, __file__, "return x.grad * 2.0")


@pytest.mark.parametrize("full_graph", [True, False])
def test_a_later_backward_through_what_the_branch_freed(full_graph):
    def retained(x):
        y = paddle.exp(x)
        if y.sum() > 3:
            (y * 2.0).sum().backward(retain_graph=True)
        (y * y).sum().backward()
        return x.grad * 1.0

    def freed(x):
        y = paddle.exp(x)
        if y.sum() > 3:
            (y * 2.0).sum().backward()
        again = (y * y).sum()
        again.backward()
        return x.grad * 1.0
    run = paddle.jit.to_static(retained, full_graph=full_graph)
    for r in ROWS:
        a, b = _leaf(r), _leaf(r)
        _same(_arrays(retained(a)), _arrays(run(b)))
        _same(_grads([a]), _grads([b]))
    with pytest.raises(GradientError, match="a second time"):
        freed(_leaf(ROWS[0]))
    # eager raises only when the branch ran: one graph cannot hold both, so it is refused
    with pytest.raises(GradientError, match="freed when that branch is taken") as info:
        paddle.jit.to_static(freed, full_graph=True)(_leaf(ROWS[0]))
    check_user_error(info.value, __file__, "again.backward()")


@pytest.mark.parametrize("full_graph", [True, False])
def test_backward_inside_a_tensor_loop(full_graph):
    def f(x, n):
        i = paddle.zeros([], "int64")
        while i < n:
            in_loop = (x * x * paddle.cast(i + 1, "float32")).sum()
            in_loop.backward()
            i += 1
        return x * 1.0
    run = paddle.jit.to_static(f, full_graph=full_graph)
    if full_graph:
        with pytest.raises(GradientError, match="inside a tensor loop body") as info:
            run(_leaf(ROWS[0]), paddle.to_tensor(2))
        check_user_error(info.value, __file__, "in_loop.backward()")
        return
    for r, n in zip(ROWS, (0, 1, 3, 2, 0)):     # the loop runs eagerly: every trip count
        a, b = _leaf(r), _leaf(r)
        _same(_arrays(f(a, paddle.to_tensor(n))), _arrays(run(b, paddle.to_tensor(n))))
        _same(_grads([a]), _grads([b]))
        if n:
            np.testing.assert_allclose(b.grad.numpy(), 2.0 * np.asarray(r) * n * (n + 1) / 2,
                                       rtol=1e-5)
