"""Adamax (paddle.optimizer.Adamax), as Paddle's docs give it:
moment = beta1 * moment + (1 - beta1) * g; inf_norm = max(beta2 * inf_norm + epsilon, |g|);
param -= lr / (1 - beta1_pow) * moment / inf_norm, with beta1_pow starting at beta1 and
multiplied by beta1 after each update."""
from __future__ import annotations

from typing import Any, Optional

from ..runtime import ops
from ..runtime.persistable import write_persistable
from .adam import check_betas
from .optimizer import Optimizer


class Adamax(Optimizer):
    _accumulator_specs = (("moment", 0.0, None), ("inf_norm", 0.0, None),
                          ("beta1_pow_acc", None, [1]))

    def __init__(self, learning_rate: Any = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-08, parameters: Any = None, weight_decay: Any = None,
                 grad_clip: Any = None, name: Optional[str] = None) -> None:
        check_betas(beta1, beta2, epsilon)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon
        self._default_dict.update(beta1=beta1, beta2=beta2, epsilon=epsilon)

    def _fill(self, name: str, group: dict) -> float:
        return float(self._option(group, "beta1"))

    def _update(self, param, grad, lr, group) -> None:
        beta1 = self._option(group, "beta1")
        beta2 = self._option(group, "beta2")
        eps = self._option(group, "epsilon")
        m = self._accumulator("moment", param, group)
        u = self._accumulator("inf_norm", param, group)
        b1p_acc = self._accumulator("beta1_pow_acc", param, group)
        m_new = ops.add(ops.scale(m, beta1), ops.scale(grad, 1.0 - beta1))
        u_new = ops.maximum(ops.scale(u, beta2, eps), ops.abs(grad))
        lr_t = ops.divide(lr, ops.subtract(1.0, ops.reshape(b1p_acc, [])))
        write_persistable(m, m_new)
        write_persistable(u, u_new)
        write_persistable(b1p_acc, ops.scale(b1p_acc, beta1))
        write_persistable(param, ops.subtract(param, ops.multiply(lr_t, ops.divide(m_new, u_new))))
