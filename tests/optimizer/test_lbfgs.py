"""LBFGS (step(closure)) against a numpy transcription of L-BFGS with a fixed step, written with
the explicit inverse-Hessian matrix instead of the two-loop recursion, on a quadratic and on
Rosenbrock; with the strong-Wolfe line search it reaches Rosenbrock's minimum, and every step
it takes decreases the loss enough (Armijo)."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.optimizer import lbfgs as lbfgs_module

A = np.array([[3.0, 1.0, 0.0, 0.2], [1.0, 2.0, 0.5, 0.0], [0.0, 0.5, 1.5, -0.3],
              [0.2, 0.0, -0.3, 1.0]])
B = np.array([1.0, -2.0, 0.5, 0.7])


def quadratic(x):
    return 0.5 * x @ A @ x - B @ x, A @ x - B


def rosenbrock(x):
    f = (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2
    g = np.array([-2 * (1 - x[0]) - 400 * x[0] * (x[1] - x[0] ** 2), 200 * (x[1] - x[0] ** 2)])
    return f, g


def tensor_loss(kind, w):
    if kind == "quadratic":
        return 0.5 * (w * paddle.matmul(paddle.to_tensor(A), w)).sum() - (paddle.to_tensor(B) * w).sum()
    return (1 - w[0]) ** 2 + 100 * (w[1] - w[0] ** 2) ** 2


def reference_path(fun, x, lr, iters, history, tol_grad=1e-7, tol_change=1e-9):
    """L-BFGS with a fixed step: H_k is gamma I updated by BFGS with each of the last `history`
    pairs (s, y) with y.s > 1e-10 in turn: H <- (I - r s y^T) H (I - r y s^T) + r s s^T.
    The first step is min(1, 1/|g|_1) * lr along -g. Returns the iterates."""
    f, g = fun(x)
    path, pairs = [x.copy()], []
    if np.max(np.abs(g)) <= tol_grad:
        return path
    gamma, prev_g, prev_f, d, t = 1.0, None, f, None, None
    for k in range(iters):
        if k > 0:
            s, y = d * t, g - prev_g
            if y @ s > 1e-10:
                pairs = (pairs + [(s, y)])[-history:]
                gamma = (y @ s) / (y @ y)
            h = gamma * np.eye(len(x))
            for s_i, y_i in pairs:
                r = 1.0 / (y_i @ s_i)
                left = np.eye(len(x)) - r * np.outer(s_i, y_i)
                h = left @ h @ left.T + r * np.outer(s_i, s_i)
            d = -h @ g
        else:
            d = -g
        prev_g, prev_f = g, f
        t = min(1.0, 1.0 / np.sum(np.abs(g))) * lr if k == 0 else lr
        if g @ d > -tol_change:
            break
        x = x + t * d
        path.append(x.copy())
        if k == iters - 1:
            break
        f, g = fun(x)
        if np.max(np.abs(g)) <= tol_grad or np.max(np.abs(d * t)) <= tol_change \
                or abs(f - prev_f) < tol_change:
            break
    return path


def run_lbfgs(kind, x0, steps=1, **options):
    w = paddle.create_parameter([len(x0)], "float64")
    w.set_value(x0)
    opt = paddle.optimizer.LBFGS(parameters=[w], **options)

    def closure():
        opt.clear_grad()
        loss = tensor_loss(kind, w)
        loss.backward()
        return loss

    path = [w.numpy().copy()]
    losses = []
    for _ in range(steps):
        losses.append(float(opt.step(closure)))
        path.append(w.numpy().copy())
    return path, losses, opt


@pytest.mark.parametrize("kind,fun,x0,lr,history", [
    ("quadratic", quadratic, np.array([2.0, -1.0, 0.5, 3.0]), 1.0, 100),
    ("quadratic", quadratic, np.array([2.0, -1.0, 0.5, 3.0]), 0.7, 2),
    ("rosenbrock", rosenbrock, np.array([-1.2, 1.0]), 0.05, 3),
])
def test_iterates_match_numpy_transcription(kind, fun, x0, lr, history):
    # one step() per iteration exposes every iterate; the history carries over between steps
    got, _, _ = run_lbfgs(kind, x0, steps=12, learning_rate=lr, max_iter=1,
                          history_size=history)
    want = reference_path(fun, x0, lr, 12, history)
    n = min(len(got), len(want))
    assert n >= 8
    np.testing.assert_allclose(np.array(got[:n]), np.array(want[:n]), rtol=1e-9, atol=1e-12)


def test_one_step_call_runs_max_iter_iterations_like_the_reference():
    x0 = np.array([2.0, -1.0, 0.5, 3.0])
    got, losses, opt = run_lbfgs("quadratic", x0, steps=1, learning_rate=0.8, max_iter=6)
    want = reference_path(quadratic, x0, 0.8, 6, 100)
    np.testing.assert_allclose(got[-1], want[-1], rtol=1e-10)
    assert losses[0] == pytest.approx(quadratic(x0)[0])      # step returns the first loss
    assert opt.state["n_iter"] == 6 and opt.state["func_evals"] == 6


def test_quadratic_converges_to_the_solution():
    got, _, opt = run_lbfgs("quadratic", np.array([2.0, -1.0, 0.5, 3.0]), steps=1, max_iter=50,
                            tolerance_grad=1e-10, tolerance_change=1e-20)
    np.testing.assert_allclose(got[-1], np.linalg.solve(A, B), atol=1e-9)
    assert opt.state["n_iter"] < 50                          # stopped by a tolerance


def test_rosenbrock_with_strong_wolfe_reaches_the_minimum(monkeypatch):
    searches = []
    real = lbfgs_module.strong_wolfe

    def recording(evaluate, t, d, f, g, gtd, **kw):
        out = real(evaluate, t, d, f, g, gtd, **kw)
        searches.append((f, gtd, out[0], out[2]))
        return out

    monkeypatch.setattr(lbfgs_module, "strong_wolfe", recording)
    got, _, _ = run_lbfgs("rosenbrock", np.array([-1.2, 1.0]), steps=1, max_iter=200,
                          max_eval=400, tolerance_grad=1e-10, tolerance_change=1e-14,
                          line_search_fn="strong_wolfe")
    np.testing.assert_allclose(got[-1], [1.0, 1.0], atol=1e-8)
    assert len(searches) > 10
    for f, gtd, f_new, t in searches:
        assert f_new <= f + 1e-4 * t * gtd + 1e-15           # sufficient decrease


def test_strong_wolfe_on_a_parabola_finds_its_minimum():
    # f(t) = (t - 3)^2 along d = 1 from 0: the search must end where |f'(t)| <= 0.9 |f'(0)|
    def evaluate(t):
        return (t - 3.0) ** 2, np.array([2 * (t - 3.0)])

    f_new, g_new, t, evals = lbfgs_module.strong_wolfe(evaluate, 0.5, np.array([1.0]), 9.0,
                                                       np.array([-6.0]), -6.0)
    assert f_new <= 9.0 + 1e-4 * t * -6.0
    assert abs(g_new[0]) <= 0.9 * 6.0 and evals >= 1


def test_tolerance_grad_returns_at_once():
    x0 = np.linalg.solve(A, B)
    got, losses, opt = run_lbfgs("quadratic", x0, steps=1, tolerance_grad=1e-3)
    np.testing.assert_array_equal(got[-1], x0)
    assert opt.state["n_iter"] == 0 and opt.state["func_evals"] == 1


def test_defaults_and_argument_checks():
    w = paddle.create_parameter([2], "float64")
    opt = paddle.optimizer.LBFGS(parameters=[w])
    assert (opt.get_lr(), opt.max_iter, opt.max_eval, opt.history_size) == (1.0, 20, 25, 100)
    assert (opt.tolerance_grad, opt.tolerance_change, opt.line_search_fn) == (1e-7, 1e-9, None)
    with pytest.raises(ValueError, match="line_search_fn"):
        paddle.optimizer.LBFGS(parameters=[w], line_search_fn="armijo")
    with pytest.raises(TypeError, match="closure"):
        opt.step()
