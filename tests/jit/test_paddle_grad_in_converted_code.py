"""`paddle.grad(...)` inside a converted function gives eager's results: a second
`paddle.grad` / `backward()` through the same graph works (Paddle 3.3.1's paddle.grad frees
nothing) but fails after a `backward()` that freed it, `allow_unused`, `no_grad_vars`,
`grad_outputs`, `create_graph`, inputs whose `stop_gradient` changes between calls; in one
graph, in the default mode and across a graph break."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.autograd.engine import GradientError
from tests.support import BREAK_MODES, check_user_error, graph_break, numeric_gradient


def _leaf(v, stop_gradient=False):
    return paddle.to_tensor(np.asarray(v, "float32"), stop_gradient=stop_gradient)


def _arrays(res):
    res = res if isinstance(res, (tuple, list)) else (res,)
    return [None if r is None else np.asarray(r.numpy()).copy() for r in res]


def _agree(f, calls, full_graph):
    """Each call's results (and its arguments' `.grad`) from eager and from to_static."""
    run = paddle.jit.to_static(f, full_graph=full_graph)
    for make in calls:
        want_args, got_args = make(), make()
        want = _arrays(f(*want_args)) + [a.grad for a in want_args]
        got = _arrays(run(*got_args)) + [a.grad for a in got_args]
        assert len(want) == len(got)
        for w, g in zip(want, got):
            assert (w is None) == (g is None), (w, g)
            if w is not None:
                np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-6)
    return run


# inputs taking both branches of the tensor `if` and 0, 1 and 3 turns of the tensor loop
CALLS = [([0.5, -1.0, 2.0], 0), ([-2.0, 0.25, -1.0], 1), ([1.5, 1.0, 0.5], 3),
         ([-0.5, -0.5, 0.1], 3), ([0.2, 0.3, -0.4], 0)]


def _shared(x, n):
    """A tensor `if` and a tensor loop before the shared part of two gradients."""
    h = paddle.tanh(x)
    if h.sum() > 0:
        h = h * x
    else:
        h = h - x
    i = paddle.zeros([], "int64")
    while i < n:
        h = paddle.sin(h) + x
        i += 1
    return h


def _shared_np(a, n):
    h = np.tanh(a)
    h = h * a if h.sum() > 0 else h - a
    for _ in range(n):
        h = np.sin(h) + a
    return h


def _branchy(x):
    h = paddle.tanh(x)
    if h.sum() > 0:
        h = h * x
    else:
        h = h - x
    return h


def _branchy_np(a):
    h = np.tanh(a)
    return h * a if h.sum() > 0 else h - a


def _calls():
    return [lambda v=v, n=n: (_leaf(v), paddle.to_tensor(n)) for v, n in CALLS]


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("retain_graph", [None, True, False])
@pytest.mark.parametrize("full_graph, with_break", [BREAK_MODES[0], BREAK_MODES[2]])
def test_a_second_grad_and_a_backward_through_the_same_graph(full_graph, with_break,
                                                             retain_graph, create_graph):
    loop = not (create_graph and full_graph)

    def f(x, n):
        # (create_graph=True through the loop is refused in one graph: see below)
        h = _shared(x, n) if loop else _branchy(x)
        (g1,) = paddle.grad((h * h).sum(), x, retain_graph=retain_graph,
                            create_graph=create_graph)
        if with_break:
            graph_break(x)
        (g2,) = paddle.grad((h * 3.0).sum(), [x])
        (h * 2.0).sum().backward()
        return g1 * 1.0, g2 * 1.0
    _agree(f, _calls(), full_graph)
    for v, n in CALLS[1:3]:     # one turn and three
        (g1, g2) = paddle.jit.to_static(f, full_graph=full_graph)(_leaf(v), paddle.to_tensor(n))
        a = np.asarray(v, "float64")

        def h(p, n=n):
            return _shared_np(p, n) if loop else _branchy_np(p)
        np.testing.assert_allclose(g1.numpy(), numeric_gradient(lambda p: float((h(p) ** 2).sum()), a),
                                   rtol=1e-3, atol=1e-4)
        np.testing.assert_allclose(g2.numpy(), numeric_gradient(lambda p: float(3.0 * h(p).sum()), a),
                                   rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("retain_graph", [False, True])
@pytest.mark.parametrize("full_graph", [True, False])
def test_grad_after_a_backward_that_freed_the_graph_fails_at_its_line(full_graph, retain_graph):
    def f(x, n):
        h = _shared(x, n)
        (h * h).sum().backward(retain_graph=retain_graph)
        (after,) = paddle.grad(h.sum(), x)
        return after
    run = paddle.jit.to_static(f, full_graph=full_graph)
    if retain_graph:
        _agree(f, _calls(), full_graph)
        return
    with pytest.raises(GradientError, match="a second time"):
        f(_leaf([1.0, 2.0, 3.0]), paddle.to_tensor(1))
    with pytest.raises(GradientError, match="a second time") as info:
        run(_leaf([1.0, 2.0, 3.0]), paddle.to_tensor(1))
    check_user_error(info.value, __file__, "(after,) = paddle.grad(h.sum(), x)")


@pytest.mark.parametrize("full_graph", [True, False])
def test_an_unused_input_is_none_with_allow_unused_and_an_error_without(full_graph):
    def used(x, w):
        return paddle.grad((x * x).sum(), [x, w], allow_unused=True)

    def refused(x, w):
        return paddle.grad((x * x).sum(), [x, w])
    calls = [lambda v=v: (_leaf(v), _leaf([1.0, 1.0, 1.0])) for v, _ in CALLS]
    _agree(used, calls, full_graph)
    with pytest.raises(ValueError, match="input 1 .* is not used"):
        refused(*calls[0]())
    with pytest.raises(ValueError, match="input 1 .* is not used") as info:
        paddle.jit.to_static(refused, full_graph=full_graph)(*calls[0]())
    assert isinstance(info.value, GradientError)
    check_user_error(info.value, __file__, "return paddle.grad((x * x).sum(), [x, w])")


@pytest.mark.parametrize("full_graph", [True, False])
def test_inputs_whose_stop_gradient_changes_between_calls(full_graph):
    def f(x, w):
        y = (paddle.exp(x) * w).sum()
        return paddle.grad(y, [x, w], allow_unused=True)

    def calls():
        flags = [(False, False), (False, True), (True, False), (False, True), (False, False)]
        return [lambda a=a, b=b, v=v: (_leaf(v, a), _leaf([2.0, -1.0, 0.5], b))
                for (a, b), (v, _) in zip(flags, CALLS)]
    run = _agree(f, calls(), full_graph)
    assert run.num_programs == 3        # one per stop_gradient combination seen
    gx, gw = run(_leaf([0.0, 1.0, 2.0]), _leaf([2.0, -1.0, 0.5], True))
    assert gw is None
    np.testing.assert_allclose(gx.numpy(), np.exp([0.0, 1.0, 2.0]) * [2.0, -1.0, 0.5], rtol=1e-5)


@pytest.mark.parametrize("full_graph, with_break", BREAK_MODES)
def test_no_grad_vars_and_grad_outputs(full_graph, with_break):
    def f(x, n):
        h = _shared(x, n)
        if with_break:
            graph_break(h)
        y = h * x
        (blocked,) = paddle.grad(y.sum(), x, no_grad_vars=h)
        (seeded,) = paddle.grad(y, x, grad_outputs=paddle.to_tensor([1.0, -2.0, 0.5]))
        return blocked, seeded
    _agree(f, _calls(), full_graph)
    for v, n in CALLS:     # the gradient with h held constant is h itself
        blocked, _ = paddle.jit.to_static(f, full_graph=full_graph)(_leaf(v), paddle.to_tensor(n))
        np.testing.assert_allclose(blocked.numpy(), _shared_np(np.asarray(v, "float32"), n),
                                   rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("full_graph", [True, False])
def test_the_gradient_is_a_constant_unless_create_graph(full_graph):
    def f(x):
        h = _branchy(x)
        (plain,) = paddle.grad(h.sum(), x)
        (graph,) = paddle.grad(h.sum(), x, create_graph=True)
        ((plain * x).sum() + (graph * graph).sum()).backward()
        return plain, graph * 1.0
    _agree(f, [lambda v=v: (_leaf(v),) for v, _ in CALLS], full_graph)
    run = paddle.jit.to_static(f, full_graph=full_graph)
    for v, _ in CALLS[:2]:      # x.grad = plain + d/dx |graph|^2, by differences of graph
        x = _leaf(v)
        plain, _ = run(x)
        a = np.asarray(v, "float64")

        def penalty(p):
            d = numeric_gradient(lambda q: float(_branchy_np(q).sum()), p, eps=1e-4)
            return float((d * d).sum())
        want = plain.numpy() + numeric_gradient(penalty, a, eps=1e-3)
        np.testing.assert_allclose(x.grad.numpy(), want, rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("full_graph", [True, False])
def test_create_graph_through_a_tensor_loop_is_refused_in_one_graph(full_graph):
    def f(x, n):
        (graph,) = paddle.grad(_shared(x, n).sum(), x, create_graph=True)
        (graph * graph).sum().backward()
        return graph * 1.0
    if full_graph:      # a second derivative through a `while` would miss terms
        with pytest.raises(GradientError, match="second derivative of a `while`") as info:
            paddle.jit.to_static(f, full_graph=True)(_leaf([1.0, 2.0, 3.0]), paddle.to_tensor(2))
        check_user_error(info.value, __file__, "(graph,) = paddle.grad(_shared(x, n).sum()")
    else:               # the line runs eagerly
        _agree(f, _calls(), full_graph)


@pytest.mark.parametrize("full_graph", [True, False])
def test_a_loss_needing_no_gradient_fails_as_eager(full_graph):
    def f(x):
        (g,) = paddle.grad((x * 2.0).sum(), x)
        return g
    with pytest.raises(GradientError, match="does not depend on any tensor"):
        f(_leaf([1.0], stop_gradient=True))
    with pytest.raises(GradientError, match="does not depend on any tensor") as info:
        paddle.jit.to_static(f, full_graph=full_graph)(_leaf([1.0], stop_gradient=True))
    check_user_error(info.value, __file__, "(g,) = paddle.grad((x * 2.0).sum(), x)")


W = paddle.create_parameter([3], "float32")
W.set_value(paddle.to_tensor([0.5, -0.25, 1.0]))


@pytest.mark.parametrize("x_needs_grad", [True, False])
@pytest.mark.parametrize("full_graph", [True, False])
def test_grad_under_a_tensor_if_and_after_an_early_return(full_graph, x_needs_grad):
    def f(x):
        h = x.mean(axis=0)
        if h.sum() > 1.0:
            return h * 2.0                       # what follows runs in the other branch
        (gw,) = paddle.grad((h.detach() * W * W).sum(), W)
        g = x.max(axis=0) + gw
        if g.sum() > 0:
            (gx,) = paddle.grad((h * h).sum(), x)   # eager raises here unless x needs one
            g = g + gx.sum(axis=0)
            (gg,) = paddle.grad((g * h).sum(), [h], create_graph=True)
            g = g + gg
        return g * h
    run = paddle.jit.to_static(f, full_graph=full_graph)
    rows = [[[1.0, 2.0, 0.5]], [[-1.0, 0.2, 0.1], [0.3, 0.3, 0.3]], [[0.1, -0.5, 0.2]],
            [[-2.0, -1.0, -1.0]], [[0.4, 0.4, 0.1]]]
    kinds = set()
    for r in rows:
        a = paddle.to_tensor(np.asarray(r, "float32"), stop_gradient=not x_needs_grad)
        b = paddle.to_tensor(np.asarray(r, "float32"), stop_gradient=not x_needs_grad)
        try:
            want = f(a).numpy()
        except GradientError:
            with pytest.raises(GradientError, match="does not depend") as info:
                run(b)      # on the path taken only, as eagerly
            check_user_error(info.value, __file__, "(gx,) = paddle.grad((h * h).sum(), x)")
            kinds.add("error")
            continue
        np.testing.assert_allclose(run(b).numpy(), want, rtol=1e-5, atol=1e-6)
        kinds.add("value")
    assert kinds == ({"value"} if x_needs_grad else {"value", "error"})


def _per_turn(x, n):
    i = paddle.zeros([], "int64")
    h = x * 1.0
    y = x.exp()
    while i < n:
        # of values before the loop and this turn's: the gradient ops run in the body
        (g,) = paddle.grad((y * x * W * paddle.cast(i + 1, "float32")).sum(), x)
        h = h * g + x
        i += 1
    return h * x


@pytest.mark.parametrize("full_graph", [True, False])
def test_grad_inside_a_tensor_loop_body(full_graph):
    run = _agree(_per_turn, _calls(), full_graph)
    for v, n in CALLS:      # and an eager backward through the call, every trip count
        grads = []
        for fn in (_per_turn, run):
            W.clear_grad(set_to_zero=False)
            x = _leaf(v)
            out = fn(x, paddle.to_tensor(n))
            (out * out).sum().backward()
            grads.append(_arrays((x.grad, W.grad)) if W.grad is not None else
                         _arrays(x.grad) + [None])
        for w, g in zip(*grads):
            assert (w is None) == (g is None)       # W.grad None with no turn
            if w is not None:
                np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    a, n = np.asarray(CALLS[2][0], "float64"), CALLS[2][1]
    w = W.numpy().astype("float64")

    def value(p):       # _per_turn in numpy: turn i's gradient, a constant (no create_graph)
        h = p.copy()
        for i in range(n):
            h = h * (np.exp(a) * (a + 1.0) * w * (i + 1)) + p
        return float(((h * p) ** 2).sum())
    x = _leaf(CALLS[2][0])
    out = run(x, paddle.to_tensor(n))
    (out * out).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), numeric_gradient(value, a, eps=1e-5), rtol=1e-3)


@pytest.mark.parametrize("full_graph", [True, False])
def test_grad_in_a_loop_of_a_value_carried_from_earlier_turns_is_refused_in_one_graph(
        full_graph):
    def f(x, n):
        i = paddle.zeros([], "int64")
        h = x * 1.0
        while i < n:
            (g,) = paddle.grad((h * x).sum(), x)    # h's earlier turns are another graph
            h = h * 0.5 + g
            i += 1
        return h

    def second(x, n):
        i = paddle.zeros([], "int64")
        h = x * 1.0
        while i < n:
            (g,) = paddle.grad((x * x * x).sum(), x, create_graph=True)
            h = h + g
            i += 1
        return h
    if not full_graph:      # the loop runs eagerly
        _agree(f, _calls(), full_graph)
        _agree(second, _calls(), full_graph)
        return
    with pytest.raises(GradientError, match="carries from earlier turns") as info:
        paddle.jit.to_static(f, full_graph=True)(_leaf([1.0, 2.0, 3.0]), paddle.to_tensor(2))
    check_user_error(info.value, __file__, "(g,) = paddle.grad((h * x).sum(), x)")
    with pytest.raises(GradientError, match="inside a tensor loop body") as info:
        paddle.jit.to_static(second, full_graph=True)(_leaf([1.0, 2.0]), paddle.to_tensor(2))
    check_user_error(info.value, __file__, "paddle.grad((x * x * x).sum(), x, create_graph=True)")
