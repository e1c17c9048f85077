"""Gradient checks shared by the autograd tests: eager autograd, autograd through to_static and
central finite differences of the eager function, all in float64."""
import numpy as np

import dy2st as paddle


def eager_value(fn, arrays):
    out = fn(*[paddle.to_tensor(a) for a in arrays])
    return float(paddle.sum(out).numpy())


def finite_differences(fn, arrays, eps=1e-6):
    grads = []
    for k, a in enumerate(arrays):
        g = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            up = [b.copy() for b in arrays]
            down = [b.copy() for b in arrays]
            up[k][idx] += eps
            down[k][idx] -= eps
            g[idx] = (eager_value(fn, up) - eager_value(fn, down)) / (2 * eps)
        grads.append(g)
    return grads


def autograd(fn, arrays):
    """(sum of outputs, gradients) of fn by the tape."""
    xs = [paddle.to_tensor(a, stop_gradient=False) for a in arrays]
    out = paddle.sum(fn(*xs))
    grads = paddle.grad(out, xs, allow_unused=True)
    return float(out.numpy()), [np.zeros_like(a) if g is None else g.numpy() for g, a in zip(grads, arrays)]


def check(fn, arrays, static_fn=None, rtol=1e-6, atol=1e-7):
    """Eager autograd, to_static autograd and finite differences agree; returns the static
    function (so callers can check its cache)."""
    static_fn = static_fn or paddle.jit.to_static(fn, full_graph=True)
    v_eager, g_eager = autograd(fn, arrays)
    v_static, g_static = autograd(static_fn, arrays)
    g_fd = finite_differences(fn, arrays)
    np.testing.assert_allclose(v_static, v_eager, rtol=rtol, atol=atol)
    for ge, gs, gf in zip(g_eager, g_static, g_fd):
        np.testing.assert_allclose(ge, gf, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(gs, ge, rtol=rtol, atol=atol)
    return static_fn
