"""backward() and `.grad` around graph breaks agree with eager code: a region that runs backward()
itself while later code differentiates its outputs again, and a `.grad` that a tensor `if` may
leave None handed from a region to the Python code after it (whole-function fuzz programs
8000924 and 11001211)."""
import numpy as np

import dy2st as paddle
from dy2st.static import InputSpec

# inputs whose Python decisions differ, so that regions are traced, reused and traced again
XS = [np.array([[0.4, -0.6, 0.9]], np.float32),
      np.array([[0.2, 0.5, 0.1], [0.3, 0.6, -0.2], [0.1, 0.2, 0.3]], np.float32),
      np.array([[0.9, -0.6, 0.2], [0.3, -0.5, 0.5], [0.0, 0.5, 0.9], [0.7, -0.1, 0.9]],
               np.float32),
      np.full((2, 3), 0.01, np.float32),
      np.array([[1.5, 0.7, 1.9], [0.6, 1.2, 0.8], [1.1, 1.4, 0.5]], np.float32)]


def _parameter():
    w = paddle.create_parameter([3], "float32")
    w.set_value(paddle.to_tensor([0.5, -0.25, 1.0]))
    return w


def _against_eager(f, w, xs=XS):
    """Per input: eager f, then the converted f (full_graph=False, an InputSpec with an unknown
    batch); their outputs and w.grad after each call must agree. Returns the converted f."""
    sf = paddle.jit.to_static(f, input_spec=[InputSpec([None, 3], "float32")], full_graph=False)
    for x in xs:
        want = f(paddle.to_tensor(x)).numpy()
        want_grad = None if w.grad is None else w.grad.numpy().copy()
        got = sf(paddle.to_tensor(x)).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
        if want_grad is None:
            assert w.grad is None
        else:
            np.testing.assert_allclose(w.grad.numpy(), want_grad, rtol=1e-5, atol=1e-6)
    return sf


def test_a_second_backward_after_a_break_reaches_what_the_region_before_computed():
    w = _parameter()

    def f(x):
        h = x.mean(axis=0)
        w.clear_grad()
        loss = (x * w).sum() + (x * x).sum()
        loss.backward(retain_graph=True)
        first = w.grad * 1.0
        k = sorted(h.tolist())[0]       # Python over tensor values: a graph break
        loss.backward()
        return h * k + first + w.grad

    sf = _against_eager(f, w)
    # the region before the break runs backward() and hands on `loss`, which eager code has
    # needing a gradient: it breaks at that backward() (which runs as Python), not elsewhere
    lines = {b.lineno - f.__code__.co_firstlineno for b in sf.graph_breaks if b.kind == "unsupported"}
    assert lines == {4}


def test_a_closure_splits_the_region_between_two_backwards():
    # fuzz seed 8000924 (whole-function breaks), minimized: `g`, read by `inner`, is rebound
    # between the two backward() calls, so that statement runs in the driver and the region of
    # the first backward hands `loss` on; from its first reuse the second backward failed
    # ("does not depend on any tensor that needs a gradient")
    w = _parameter()

    def f(x):
        h = x.mean(axis=0)
        g = h * 0.5

        def inner(t):
            return t - g
        w.clear_grad()
        best = max(range(3), key=lambda k: h.tolist()[k])
        loss = (x * w).sum()
        loss.backward(retain_graph=True)
        g = w.grad * 1.0 + h[best]
        loss.backward()
        return h + inner(g) + w.grad

    _against_eager(f, w)


def test_a_region_that_runs_backward_with_constant_outputs_stays_compiled():
    w = _parameter()

    def f(x):
        h = x.mean(axis=0)
        w.clear_grad()
        (x * w * w).sum().backward()
        k = sorted(h.tolist())[0]
        return h * k + w.grad

    sf = _against_eager(f, w)
    # only the break of `sorted`: the backward stays in the compiled region (a whole step)
    assert [b.lineno - f.__code__.co_firstlineno for b in sf.graph_breaks] == [4]


def test_a_grad_a_tensor_if_may_leave_none_reaches_code_after_a_break_as_none():
    # fuzz seed 11001211 (whole-function breaks), minimized: `gw` is None when the `if` did not
    # run backward(); the region handed out an UndefinedVar for it (a false UnboundLocalError
    # at `g + gw`), from the call that reused the entry traced on that path
    w = _parameter()

    def f(x):
        h = x.mean(axis=0)
        g = h * 0.5
        s = x.sum() * 0.1

        def inner(t):
            return t - g
        best = max(range(3), key=lambda k: h.tolist()[k])
        w.clear_grad(set_to_zero=False)
        if s > 0.1:
            (h.detach() * w * w).sum().backward()
        gw = w.grad
        if gw is not None:
            g = g + gw * 0.5
        return h + inner(g) + h[best]

    # both paths, each taken again after the other
    _against_eager(f, w, XS + XS[::-1])
