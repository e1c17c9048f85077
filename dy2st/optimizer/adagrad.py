"""Adagrad (paddle.optimizer.Adagrad): moment += g^2; param -= lr * g / (sqrt(moment) + eps)."""
from __future__ import annotations

from typing import Any, Optional

from ..runtime import ops
from ..runtime.persistable import write_persistable
from .optimizer import Optimizer


class Adagrad(Optimizer):
    _accumulator_specs = (("moment", None, None),)

    def __init__(self, learning_rate: Any, epsilon: float = 1e-06, parameters: Any = None,
                 weight_decay: Any = None, grad_clip: Any = None, name: Optional[str] = None,
                 initial_accumulator_value: float = 0.0) -> None:
        if learning_rate is None:
            raise ValueError("learning_rate is not set.")
        if epsilon is None:
            raise ValueError("epsilon is not set.")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._epsilon = epsilon
        self._initial_accumulator_value = float(initial_accumulator_value)
        self._default_dict.update(epsilon=epsilon,
                                  initial_accumulator_value=self._initial_accumulator_value)

    def _fill(self, name: str, group: dict) -> float:
        return self._initial_accumulator_value

    def _update(self, param, grad, lr, group) -> None:
        moment = self._accumulator("moment", param)
        new_moment = ops.add(moment, ops.multiply(grad, grad))
        denom = ops.scale(ops.sqrt(new_moment), 1.0, self._option(group, "epsilon"))
        write_persistable(moment, new_moment)
        write_persistable(param, ops.subtract(param, ops.divide(ops.multiply(lr, grad), denom)))
