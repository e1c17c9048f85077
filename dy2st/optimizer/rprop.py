"""Rprop (paddle.optimizer.Rprop), as Paddle's docs give it: each element keeps its own step
size, starting at learning_rate. Where g * g_prev > 0 the step grows by etas[1] (at most
learning_rate_range[1]), where it is < 0 it shrinks by etas[0] (at least learning_rate_range[0])
and the gradient counts as 0 (no move, and g_prev becomes 0); param -= sign(g) * step."""
from __future__ import annotations

from typing import Any, Optional, Tuple

from ..runtime import ops
from ..runtime.persistable import write_persistable
from .optimizer import Optimizer


class Rprop(Optimizer):
    _accumulator_specs = (("prev", 0.0, None), ("learning_rate", None, None))

    def __init__(self, learning_rate: Any = 0.001,
                 learning_rate_range: Tuple[float, float] = (1e-5, 50),
                 parameters: Any = None, etas: Tuple[float, float] = (0.5, 1.2),
                 grad_clip: Any = None, multi_precision: bool = False,
                 name: Optional[str] = None) -> None:
        if learning_rate is None:
            raise ValueError("learning_rate is not set")
        lo, hi = learning_rate_range
        if not isinstance(learning_rate, (int, float)) or not lo <= learning_rate <= hi:
            raise ValueError("'0.0 <= learning_rate_range[0] <= learning_rate <= "
                             "learning_rate_range[1]' must be true")
        if not 0.0 <= lo:
            raise ValueError("learning_rate_range[0] must be >= 0")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError("'0.0 < etas[0] < 1.0 < etas[1]' must be true")
        super().__init__(learning_rate, parameters, None, grad_clip, name)
        self._learning_rate_range = (float(lo), float(hi))
        self._etas = (float(etas[0]), float(etas[1]))
        self._multi_precision = multi_precision
        self._default_dict.update(learning_rate_range=self._learning_rate_range, etas=self._etas)

    def _fill(self, name: str, group: dict) -> float:
        return float(self.get_lr())

    def _update(self, param, grad, lr, group) -> None:
        lo, hi = self._option(group, "learning_rate_range")
        eta_minus, eta_plus = self._option(group, "etas")
        prev = self._accumulator("prev", param, group)
        step = self._accumulator("learning_rate", param, group)
        prod = ops.multiply(grad, prev)
        grow = ops.greater_than(prod, ops.zeros_like(prod))
        shrink = ops.less_than(prod, ops.zeros_like(prod))
        new_step = ops.where(grow, ops.minimum(ops.scale(step, eta_plus), ops.full_like(step, hi)),
                             ops.where(shrink, ops.maximum(ops.scale(step, eta_minus),
                                                           ops.full_like(step, lo)), step))
        g = ops.where(shrink, ops.zeros_like(grad), grad)
        write_persistable(prev, g)
        write_persistable(step, new_step)
        write_persistable(param, ops.subtract(param, ops.multiply(ops.sign(g), new_step)))
