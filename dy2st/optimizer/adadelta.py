"""Adadelta (paddle.optimizer.Adadelta), as Paddle's kernel computes it:
E[g^2] = rho * E[g^2] + (1 - rho) * g^2;
update = -sqrt((E[dx^2] + epsilon) / (E[g^2] + epsilon)) * g;
E[dx^2] = rho * E[dx^2] + (1 - rho) * update^2; param += lr * update."""
from __future__ import annotations

from typing import Any, Optional

from ..runtime import ops
from ..runtime.persistable import write_persistable
from .optimizer import Optimizer


class Adadelta(Optimizer):
    _accumulator_specs = (("avg_squared_grad", 0.0, None), ("avg_squared_update", 0.0, None))

    def __init__(self, learning_rate: Any = 0.001, epsilon: float = 1e-06, rho: float = 0.95,
                 parameters: Any = None, weight_decay: Any = None, grad_clip: Any = None,
                 name: Optional[str] = None) -> None:
        if learning_rate is None:
            raise ValueError("learning_rate is not set.")
        if epsilon is None:
            raise ValueError("epsilon is not set.")
        if rho is None:
            raise ValueError("rho is not set.")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._epsilon, self._rho = epsilon, rho
        self._default_dict.update(epsilon=epsilon, rho=rho)

    def _update(self, param, grad, lr, group) -> None:
        rho = self._option(group, "rho")
        eps = self._option(group, "epsilon")
        eg = self._accumulator("avg_squared_grad", param, group)
        edx = self._accumulator("avg_squared_update", param, group)
        eg_new = ops.add(ops.scale(eg, rho), ops.scale(ops.multiply(grad, grad), 1.0 - rho))
        ratio = ops.divide(ops.scale(edx, 1.0, eps), ops.scale(eg_new, 1.0, eps))
        update = ops.scale(ops.multiply(ops.sqrt(ratio), grad), -1.0)
        edx_new = ops.add(ops.scale(edx, rho), ops.scale(ops.multiply(update, update), 1.0 - rho))
        write_persistable(eg, eg_new)
        write_persistable(edx, edx_new)
        write_persistable(param, ops.add(param, ops.multiply(lr, update)))
