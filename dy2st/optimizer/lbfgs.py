"""L-BFGS (paddle.optimizer.LBFGS): `step(closure)` runs up to max_iter quasi-Newton iterations,
each direction from the two-loop recursion over the last history_size (s, y) pairs, with a
fixed step (learning_rate) or a strong-Wolfe line search. Eager only: the closure re-evaluates
the loss, so the iteration count depends on values (Paddle's LBFGS is dygraph-only too)."""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from ..runtime import state
from .optimizer import Optimizer

Evaluate = Callable[[float, np.ndarray], Tuple[float, np.ndarray]]


def _cubic_minimum(x1: float, f1: float, g1: float, x2: float, f2: float, g2: float,
                   bounds: Optional[Tuple[float, float]] = None) -> float:
    """The minimiser of the cubic through (x1, f1, slope g1) and (x2, f2, slope g2), clamped to
    `bounds` (default: between x1 and x2); the middle when the cubic has no minimum."""
    lo, hi = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    disc = d1 * d1 - g1 * g2
    if disc < 0:
        return (lo + hi) / 2.0
    d2 = np.sqrt(disc)
    if x1 <= x2:
        pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return float(min(max(pos, lo), hi))


def strong_wolfe(evaluate: Evaluate, t: float, d: np.ndarray, f: float, g: np.ndarray,
                 gtd: float, c1: float = 1e-4, c2: float = 0.9, tolerance_change: float = 1e-9,
                 max_ls: int = 25) -> Tuple[float, np.ndarray, float, int]:
    """A step t along d meeting the strong Wolfe conditions (Nocedal and Wright, algorithms 3.5
    and 3.6, with cubic interpolation): `evaluate(t)` gives the loss and gradient there.
    Returns (loss, gradient, t, number of evaluations)."""
    d_norm = float(np.max(np.abs(d)))
    f_new, g_new = evaluate(t)
    evals, gtd_new = 1, float(g_new @ d)
    t_prev, f_prev, g_prev, gtd_prev = 0.0, f, g, gtd
    done, it = False, 0
    # bracketing: grow t until an interval holds a point meeting the conditions
    while it < max_ls:
        sufficient = f_new <= f + c1 * t * gtd and not (it > 1 and f_new >= f_prev)
        if sufficient and abs(gtd_new) <= -c2 * gtd:
            br, done = [[t, f_new, g_new, gtd_new]], True
            break
        if not sufficient or gtd_new >= 0:
            br = [[t_prev, f_prev, g_prev, gtd_prev], [t, f_new, g_new, gtd_new]]
            break
        low, high = t + 0.01 * (t - t_prev), t * 10
        t_next = _cubic_minimum(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, (low, high))
        t_prev, f_prev, g_prev, gtd_prev = t, f_new, g_new, gtd_new
        t = t_next
        f_new, g_new = evaluate(t)
        evals, gtd_new, it = evals + 1, float(g_new @ d), it + 1
    else:
        br = [[0.0, f, g, gtd], [t, f_new, g_new, gtd_new]]
    # zoom: shrink the bracket; entry `lo` is the best point so far
    stalled = False
    lo, hi = (0, 1) if br[0][1] <= br[-1][1] else (1, 0)
    while not done and it < max_ls:
        if abs(br[1][0] - br[0][0]) * d_norm < tolerance_change:
            break
        t = _cubic_minimum(br[0][0], br[0][1], br[0][3], br[1][0], br[1][1], br[1][3])
        top, bottom = max(br[0][0], br[1][0]), min(br[0][0], br[1][0])
        margin = 0.1 * (top - bottom)
        if min(top - t, t - bottom) < margin:      # too close to an end: move inside
            if stalled or t >= top or t <= bottom:
                t = top - margin if abs(t - top) < abs(t - bottom) else bottom + margin
                stalled = False
            else:
                stalled = True
        else:
            stalled = False
        f_new, g_new = evaluate(t)
        evals, gtd_new, it = evals + 1, float(g_new @ d), it + 1
        if f_new > f + c1 * t * gtd or f_new >= br[lo][1]:
            br[hi] = [t, f_new, g_new, gtd_new]
            lo, hi = (0, 1) if br[0][1] <= br[1][1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (br[hi][0] - br[lo][0]) >= 0:
                br[hi] = list(br[lo])
            br[lo] = [t, f_new, g_new, gtd_new]
    t, f_new, g_new = br[lo][0], br[lo][1], br[lo][2]
    return f_new, g_new, t, evals


class LBFGS(Optimizer):
    """Limited-memory BFGS over all parameters as one flat vector."""

    def __init__(self, learning_rate: float = 1.0, max_iter: int = 20,
                 max_eval: Optional[int] = None, tolerance_grad: float = 1e-7,
                 tolerance_change: float = 1e-9, history_size: int = 100,
                 line_search_fn: Optional[str] = None, parameters: Any = None,
                 weight_decay: Any = None, grad_clip: Any = None,
                 name: Optional[str] = None) -> None:
        if line_search_fn not in (None, "strong_wolfe"):
            raise ValueError(f"LBFGS: line_search_fn must be None or 'strong_wolfe', got "
                             f"{line_search_fn!r}")
        if int(max_iter) < 1 or int(history_size) < 1:
            raise ValueError(f"LBFGS: max_iter and history_size must be >= 1, got {max_iter} "
                             f"and {history_size}")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self.max_iter = int(max_iter)
        self.max_eval = int(max_eval) if max_eval is not None else self.max_iter * 5 // 4
        self.tolerance_grad = float(tolerance_grad)
        self.tolerance_change = float(tolerance_change)
        self.history_size = int(history_size)
        self.line_search_fn = line_search_fn
        self.state: Dict[str, Any] = {"func_evals": 0, "n_iter": 0}

    # ----------------------------------------------------------------------------- flat views
    def _params(self) -> List[Any]:
        return [p for p in self._all_params() if not p.stop_gradient]

    def _flat_params(self) -> np.ndarray:
        return np.concatenate([np.asarray(p.numpy(), np.float64).ravel()
                               for p in self._params()])

    def _set_flat_params(self, flat: np.ndarray) -> None:
        at = 0
        for p in self._params():
            n = int(np.prod(p.shape))
            p.set_value(flat[at:at + n].reshape(p.shape))
            at += n

    def _flat_grad(self) -> np.ndarray:
        """The gradients (zero where a parameter has none), clipped and with weight decay."""
        pairs = [(p, p.grad) for p in self._params() if p.grad is not None]
        group = self._groups()[0]
        if self._grad_clip is not None and pairs:
            pairs = self._grad_clip(pairs)
        found = {id(p): g for p, g in self._regularize(pairs, group)}
        return np.concatenate([
            np.asarray(found[id(p)].numpy(), np.float64).ravel() if id(p) in found
            else np.zeros(int(np.prod(p.shape))) for p in self._params()])

    def _evaluate(self, closure: Callable[[], Any]) -> Tuple[Any, float, np.ndarray]:
        loss = closure()
        return loss, float(np.asarray(loss.numpy() if hasattr(loss, "numpy") else loss)), \
            self._flat_grad()

    # ----------------------------------------------------------------------------- the step
    def _direction(self, g: np.ndarray) -> np.ndarray:
        """-H g by the two-loop recursion over the stored pairs (H0 = h_diag * I)."""
        st = self.state
        q = -g
        alphas = []
        for s, y, rho in reversed(list(zip(st["old_stps"], st["old_dirs"], st["ro"]))):
            a = rho * float(s @ q)
            alphas.append(a)
            q = q - a * y
        r = q * st["H_diag"]
        for (s, y, rho), a in zip(zip(st["old_stps"], st["old_dirs"], st["ro"]),
                                  reversed(alphas)):
            b = rho * float(y @ r)
            r = r + s * (a - b)
        return r

    def _remember(self, g: np.ndarray) -> None:
        """Store the pair (s, y) of the last step if it keeps H positive definite."""
        st = self.state
        y = g - st["prev_flat_grad"]
        s = st["d"] * st["t"]
        ys = float(y @ s)
        if ys > 1e-10:
            if len(st["old_dirs"]) == self.history_size:
                for key in ("old_dirs", "old_stps", "ro"):
                    st[key].pop(0)
            st["old_dirs"].append(y)
            st["old_stps"].append(s)
            st["ro"].append(1.0 / ys)
            st["H_diag"] = ys / float(y @ y)

    def step(self, closure: Optional[Callable[[], Any]] = None) -> Any:
        """Up to max_iter iterations; `closure` clears the gradients, computes the loss, calls
        backward() and returns the loss. Returns the loss of the first evaluation."""
        if closure is None:
            raise TypeError("LBFGS.step needs a closure that re-evaluates the model and returns "
                            "the loss (call loss.backward() inside it)")
        if state.in_static_mode():
            raise RuntimeError("LBFGS works in dynamic mode only: its step count depends on the "
                               "loss values the closure returns")
        st = self.state
        lr = float(self.get_lr())
        orig_loss, loss, g = self._evaluate(closure)
        evals = 1
        st["func_evals"] += 1
        if np.max(np.abs(g)) <= self.tolerance_grad:
            return orig_loss
        n_iter = 0
        while n_iter < self.max_iter:
            n_iter += 1
            st["n_iter"] += 1
            if st["n_iter"] == 1:
                st.update(old_dirs=[], old_stps=[], ro=[], H_diag=1.0)
                d = -g
            else:
                self._remember(g)
                d = self._direction(g)
            st["prev_flat_grad"], st["prev_loss"] = g.copy(), loss
            t = min(1.0, 1.0 / float(np.sum(np.abs(g)))) * lr if st["n_iter"] == 1 else lr
            st["d"], st["t"] = d, t
            gtd = float(g @ d)
            if gtd > -self.tolerance_change:         # not a descent direction any more
                break
            ls_evals = 0
            if self.line_search_fn == "strong_wolfe":
                x0 = self._flat_params()

                # called by strong_wolfe below, within this iteration
                def along(step: float) -> Tuple[float, np.ndarray]:
                    self._set_flat_params(x0 + step * d)  # noqa: B023
                    _, f_at, g_at = self._evaluate(closure)
                    return f_at, g_at

                loss, g, t, ls_evals = strong_wolfe(along, t, d, loss, g, gtd,
                                                    tolerance_change=self.tolerance_change)
                self._set_flat_params(x0 + t * d)
                st["t"] = t
            else:
                self._set_flat_params(self._flat_params() + t * d)
                if n_iter != self.max_iter:
                    _, loss, g = self._evaluate(closure)
                    ls_evals = 1
            evals += ls_evals
            st["func_evals"] += ls_evals
            if n_iter == self.max_iter or evals >= self.max_eval:
                break
            if np.max(np.abs(g)) <= self.tolerance_grad:
                break
            if np.max(np.abs(d * t)) <= self.tolerance_change:
                break
            if abs(loss - st["prev_loss"]) < self.tolerance_change:
                break
        return orig_loss

    def minimize(self, loss: Any, startup_program: Any = None, parameters: Any = None,
                 no_grad_set: Any = None) -> Any:
        raise NotImplementedError("LBFGS has no minimize(); call step(closure) with a closure "
                                  "that computes the loss and calls backward()")
