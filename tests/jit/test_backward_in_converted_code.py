"""`loss.backward()` inside a converted function reaches its inputs as eager backward does:
`x.grad` read inside the function and after it, accumulation across calls until `clear_grad`,
`retain_graph`, a whole training step with an optimizer, a tensor passed twice, inputs whose
`stop_gradient` or `.grad` changes between calls, in one graph, in the default mode and across
a graph break."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.autograd.engine import GradientError
from dy2st.static import InputSpec
from tests.support import BREAK_MODES, check_user_error, graph_break, numeric_gradient


def _convert(fn, full_graph, **kw):
    return paddle.jit.to_static(fn, full_graph=full_graph, **kw)


def _arr(v):
    return None if v is None else np.asarray(v.numpy()).copy()


def _outcomes(fn, calls, convert=None):
    """Run `fn` on each call's (fresh) arguments; per call its results and the arguments' grads.
    A call is a function giving the arguments; "clear" clears the grads of the last ones."""
    run = convert(fn) if convert else fn
    out, last = [], ()
    for make in calls:
        if make == "clear":
            for t in last:
                t.clear_grad()
            continue
        args = make()
        res = run(*args)
        res = res if isinstance(res, tuple) else (res,)
        out.append(([_arr(r) for r in res], [_arr(a.grad) for a in args]))
        last = args
    return out


def _same(a, b):
    assert len(a) == len(b)
    for (ra, ga), (rb, gb) in zip(a, b):
        for u, v in zip(ra + ga, rb + gb):
            assert (u is None) == (v is None), (u, v)
            if u is not None:
                np.testing.assert_allclose(u, v, rtol=1e-5, atol=1e-6)


def _leaf(v, stop_gradient=False):
    return paddle.to_tensor(np.asarray(v, "float32"), stop_gradient=stop_gradient)


def _cube_step(with_break):
    def f(x):
        before = x.grad
        y = x * x * x
        if with_break:
            graph_break(x)
        loss = y.sum()
        loss.backward()
        new = x.grad if before is None else x.grad - before
        return new * 1.0, x.grad * 2.0
    return f


@pytest.mark.parametrize("full_graph, with_break", BREAK_MODES)
def test_input_grad_accumulates_across_calls_until_cleared(full_graph, with_break):
    x = _leaf([1.0, -2.0, 0.5])
    calls = [lambda: (x,), lambda: (x,), "clear", lambda: (x,), lambda: (x,)]
    f = _cube_step(with_break)
    want = _outcomes(f, calls)
    x = _leaf([1.0, -2.0, 0.5])
    _same(_outcomes(f, calls, lambda fn: _convert(fn, full_graph)), want)
    # the gradient itself, against central differences of the loss
    got = want[0][0][0]
    num = numeric_gradient(lambda a: float((a.astype(np.float64) ** 3).sum()),
                           np.array([1.0, -2.0, 0.5]))
    np.testing.assert_allclose(got, num, rtol=1e-4)


@pytest.mark.parametrize("full_graph, with_break", BREAK_MODES)
def test_whole_training_step_with_an_input_gradient(full_graph, with_break):
    def make():
        paddle.seed(3)
        lin = paddle.nn.Linear(3, 2)
        return lin, paddle.optimizer.SGD(0.1, parameters=lin.parameters())

    def step_of(lin, opt):
        def step(x):
            h = lin(x)
            if with_break:
                graph_break(h)
            loss = (h ** 2).sum()
            loss.backward()
            g = x.grad * 1.0
            opt.step()
            opt.clear_grad()
            return loss, g, lin.weight * 1.0
        return step

    rows = [[1.0, -2.0, 3.0], [0.5, 0.25, -1.0], [2.0, 0.0, 1.0], [-1.0, 1.0, 1.0]]
    calls = [lambda r=r: (_leaf(r),) for r in rows]
    want = _outcomes(step_of(*make()), calls)
    got = _outcomes(step_of(*make()), calls, lambda fn: _convert(fn, full_graph))
    _same(got, want)


@pytest.mark.parametrize("full_graph, with_break", BREAK_MODES)
def test_retain_graph_allows_a_second_backward(full_graph, with_break):
    def f(x):
        y = x * 3.0
        loss = (y * y).sum()
        loss.backward(retain_graph=True)
        first = x.grad * 1.0
        if with_break:
            graph_break(x)
        loss.backward(retain_graph=True)
        loss2 = (y * x).sum()
        loss2.backward()
        return first, x.grad * 1.0
    calls = [lambda: (_leaf([1.0, 2.0]),), lambda: (_leaf([-1.0, 0.5]),)]
    _same(_outcomes(f, calls, lambda fn: _convert(fn, full_graph)), _outcomes(f, calls))


@pytest.mark.parametrize("full_graph", [True, False])
def test_a_second_backward_through_a_freed_graph_fails_at_its_line(full_graph):
    def f(x):
        y = x * 3.0
        loss = (y * y).sum()
        loss.backward()
        again = (y * x).sum()
        again.backward()
        return x.grad
    with pytest.raises(GradientError, match="a second time"):
        f(_leaf([1.0, 2.0]))
    with pytest.raises(GradientError, match="a second time") as info:
        _convert(f, full_graph)(_leaf([1.0, 2.0]))
    check_user_error(info.value, __file__, "again.backward()")


@pytest.mark.parametrize("full_graph", [True, False])
def test_stop_gradient_and_grad_that_change_between_calls(full_graph):
    paddle.seed(1)
    lin = paddle.nn.Linear(2, 2)

    def f(x):
        seen = x.grad
        loss = lin(x).sum()
        loss.backward()
        out = lin.weight.grad * 1.0
        lin.clear_gradients()
        return out, (x.grad if seen is None else x.grad + seen)

    def calls():
        plain = _leaf([1.0, 2.0], stop_gradient=True)
        with_grad = _leaf([3.0, -1.0])
        with_grad.grad = paddle.to_tensor([10.0, 20.0])
        return [lambda: (plain,), lambda: (_leaf([1.0, 2.0]),), lambda: (with_grad,),
                lambda: (plain,), lambda: (_leaf([0.5, 0.5]),)]

    def sum_tuple(fn):
        def g(x):
            a, b = fn(x)
            return a, (paddle.zeros([2]) if b is None else b)
        return g
    want = _outcomes(sum_tuple(f), calls())
    got = _outcomes(sum_tuple(f), calls(), lambda fn: _convert(fn, full_graph))
    _same(got, want)


@pytest.mark.parametrize("full_graph", [True, False])
def test_one_tensor_passed_twice_gets_both_contributions(full_graph):
    def f(x, y):
        loss = (x * y * x).sum()
        loss.backward()
        return x.grad * 1.0

    def calls():
        x = _leaf([1.0, 2.0, 3.0])
        return [lambda: (x, x), lambda: (x, x), lambda: (_leaf([1.0, 2.0, 3.0]),
                                                         _leaf([4.0, 5.0, 6.0]))]
    want = _outcomes(f, calls())
    _same(_outcomes(f, calls(), lambda fn: _convert(fn, full_graph)), want)
    assert want[0][0][0].tolist() == [3.0, 12.0, 27.0]


@pytest.mark.parametrize("full_graph", [True, False])
def test_gradient_through_a_tensor_loop_for_every_trip_count(full_graph):
    def f(x, n):
        h = x
        i = paddle.zeros([], "int64")
        while i < n:
            h = h * x + 1.0
            i += 1
        loss = h.sum()
        loss.backward()
        return x.grad * 1.0

    run = _convert(f, full_graph)
    for trips in (0, 1, 3):
        x0 = np.array([0.5, -1.5])
        xs = [_leaf(x0) for _ in range(2)]
        got = run(xs[0], paddle.to_tensor(trips)).numpy()
        want = f(xs[1], paddle.to_tensor(trips)).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-5)

        def loss(a):
            h = a
            for _ in range(trips):
                h = h * a + 1.0
            return float(h.sum())
        np.testing.assert_allclose(got, numeric_gradient(loss, x0), rtol=1e-4)


def test_unknown_dims_share_one_program():
    def f(x):
        loss = (x * x).sum()
        loss.backward()
        return x.grad * 1.0
    run = _convert(f, True, input_spec=[InputSpec([None], "float32")])
    for n in (2, 5, 3):
        x = _leaf(np.arange(n))
        np.testing.assert_allclose(run(x).numpy(), 2.0 * np.arange(n))
        np.testing.assert_allclose(x.grad.numpy(), 2.0 * np.arange(n))


def test_a_region_reads_each_calls_input_gradient_after_a_break():
    # the region after the break is recorded on the tape (h needs a gradient), so it runs its
    # training program, traced once more: its `.grad` slots were bound to the tensor of the
    # call that built it and read that call's x.grad from then on (fuzz_backward 12000256)
    def f(x):
        h = x.mean(axis=0)
        s = x.sum() * 0.1
        text = f"{s.item():.3f}"        # a graph break
        loss = (x * x).sum() * 0.5 + len(text) * 0.0
        loss.backward()
        return h + (x.grad.sum(axis=0) if x.grad is not None else s * 0.0)
    run = _convert(f, False, input_spec=[InputSpec([None, 3], "float32")])
    for k, n in enumerate((1, 3, 4, 2, 3, 2)):
        a = np.arange(n * 3, dtype="float32").reshape(n, 3) + 10.0 * k
        got = run(_leaf(a)).numpy()         # a new tensor each call, freed after it
        np.testing.assert_allclose(got, a.mean(axis=0) + a.sum(axis=0), rtol=1e-6)


def test_a_gradient_read_in_the_function_is_a_constant():
    def f(x):
        loss = (x * x).sum()
        loss.backward()
        loss2 = (x.grad * x).sum()      # eager: x.grad has stop_gradient=True
        loss2.backward()
        return x.grad
    want = f(_leaf([1.0, 2.0])).numpy()
    for full_graph in (True, False):
        np.testing.assert_allclose(_convert(f, full_graph)(_leaf([1.0, 2.0])).numpy(), want)
    assert want.tolist() == [4.0, 8.0]


def test_an_input_computed_by_eager_ops_is_refused_in_one_graph_and_runs_by_default():
    def f(x):
        through_x = (x * x).sum()
        through_x.backward()
        return x * 1.0
    a = _leaf([1.0, 2.0])
    f(a * 2.0)
    want = a.grad.numpy()
    b = _leaf([1.0, 2.0])
    _convert(f, False)(b * 2.0)
    np.testing.assert_allclose(b.grad.numpy(), want)
    with pytest.raises(GradientError, match="`x` was computed by eager operations") as info:
        _convert(f, True)(_leaf([1.0, 2.0]) * 2.0)
    check_user_error(info.value, __file__, "through_x.backward()")


def test_a_loss_that_needs_no_gradient_fails_as_eager():
    def f(x):
        loss = (x * 2.0).sum()
        loss.backward()
        return loss
    for run in (f, _convert(f, True), _convert(f, False)):
        with pytest.raises(GradientError, match="does not depend on any tensor"):
            run(_leaf([1.0, 2.0], stop_gradient=True))


@pytest.mark.parametrize("full_graph", [True, False])
def test_backward_under_a_tensor_if(full_graph):
    def f(x):
        if x.sum() > 0:
            under_if = (x * x).sum()
            under_if.backward()
        return x * 1.0
    run = _convert(f, full_graph)
    for v in ([1.0, 2.0], [-1.0, -2.0], [3.0, -1.0]):
        a, b = _leaf(v), _leaf(v)
        f(a)
        run(b)
        assert (a.grad is None) == (b.grad is None)     # None where the branch did not run
        if a.grad is not None:
            np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy())


SCALE = paddle.to_tensor(np.array([1.0, -2.0], "float32"), stop_gradient=False)


@pytest.mark.parametrize("full_graph", [True, False])
def test_a_global_leaf_that_needs_a_gradient_gets_one(full_graph):
    paddle.seed(5)
    lin = paddle.nn.Linear(2, 2)

    def f(x):
        loss = (lin(x) * SCALE * SCALE).sum()
        loss.backward()
        return SCALE.grad * 1.0, lin.weight.grad * 1.0

    run = _convert(f, full_graph)
    for v in ([1.0, 2.0], [-0.5, 3.0], [0.0, 1.0]):
        SCALE.clear_grad(set_to_zero=False)
        lin.clear_gradients(set_to_zero=False)
        want = [t.numpy() for t in f(_leaf(v, stop_gradient=True))]
        SCALE.clear_grad(set_to_zero=False)
        lin.clear_gradients(set_to_zero=False)
        got = [t.numpy() for t in run(_leaf(v, stop_gradient=True))]
        for w, g in zip(want, got):
            np.testing.assert_allclose(g, w, rtol=1e-5)
        out = lin(_leaf(v, stop_gradient=True)).numpy()
        np.testing.assert_allclose(got[0], 2.0 * SCALE.numpy() * out, rtol=1e-5)
