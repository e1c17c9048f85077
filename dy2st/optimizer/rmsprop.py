"""RMSProp (paddle.optimizer.RMSProp), as Paddle's kernel computes it:
mean_square = rho * mean_square + (1 - rho) * g^2;
centered: mean_grad = rho * mean_grad + (1 - rho) * g, and the denominator is
sqrt(mean_square - mean_grad^2 + epsilon) instead of sqrt(mean_square + epsilon);
moment = momentum * moment + lr * g / denominator; param -= moment."""
from __future__ import annotations

from typing import Any, Optional

from ..runtime import ops
from ..runtime.persistable import write_persistable
from .optimizer import Optimizer


class RMSProp(Optimizer):
    _accumulator_specs = (("momentum", 0.0, None), ("mean_square", 0.0, None),
                          ("mean_grad", 0.0, None))

    def __init__(self, learning_rate: Any, rho: float = 0.95, epsilon: float = 1e-06,
                 momentum: float = 0.0, centered: bool = False, parameters: Any = None,
                 weight_decay: Any = None, grad_clip: Any = None,
                 name: Optional[str] = None) -> None:
        if learning_rate is None:
            raise ValueError("learning_rate is not set.")
        if not 0.0 <= rho:
            raise ValueError("Invalid value of rho, expect rho >= 0.")
        if not 0.0 <= momentum:
            raise ValueError("Invalid value of momentum, expect momentum >= 0.")
        if not 0.0 <= epsilon:
            raise ValueError("Invalid value of epsilon, expect epsilon >= 0.")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._rho, self._epsilon, self._momentum = rho, epsilon, momentum
        self._centered = centered
        self._default_dict.update(rho=rho, epsilon=epsilon, momentum=momentum, centered=centered)

    def _update(self, param, grad, lr, group) -> None:
        rho = self._option(group, "rho")
        eps = self._option(group, "epsilon")
        mom_acc = self._accumulator("momentum", param)
        ms_acc = self._accumulator("mean_square", param)
        mg_acc = self._accumulator("mean_grad", param)
        ms = ops.add(ops.scale(ms_acc, rho), ops.scale(ops.multiply(grad, grad), 1.0 - rho))
        if self._option(group, "centered"):
            mg = ops.add(ops.scale(mg_acc, rho), ops.scale(grad, 1.0 - rho))
            denom = ops.sqrt(ops.scale(ops.subtract(ms, ops.multiply(mg, mg)), 1.0, eps))
            write_persistable(mg_acc, mg)
        else:
            denom = ops.sqrt(ops.scale(ms, 1.0, eps))
        mom = ops.add(ops.scale(mom_acc, self._option(group, "momentum")),
                      ops.divide(ops.multiply(lr, grad), denom))
        write_persistable(ms_acc, ms)
        write_persistable(mom_acc, mom)
        write_persistable(param, ops.subtract(param, mom))
