"""NAdam (paddle.optimizer.NAdam), as Paddle's kernel computes it: with the momentum-decay power
p_t = 0.96^t, mu_t = beta1 (1 - p_t^psi / 2), mu_{t+1} = beta1 (1 - (0.96 p_t)^psi / 2) and the
running product M_t = mu_1 ... mu_t,
m_hat = mu_{t+1} m_t / (1 - M_t mu_{t+1}) + (1 - mu_t) g / (1 - M_t), v_hat = v_t / (1 - beta2^t),
param -= lr * m_hat / (sqrt(v_hat) + epsilon)."""
from __future__ import annotations

from typing import Any, Optional

from ..runtime import ops
from ..runtime.persistable import write_persistable
from .adam import check_betas
from .optimizer import Optimizer


class NAdam(Optimizer):
    _accumulator_specs = (("momentum_decay_pow", 1.0, [1]), ("beta2_pow", 1.0, [1]),
                          ("mu_product", 1.0, [1]), ("moment1", 0.0, None),
                          ("moment2", 0.0, None))

    def __init__(self, learning_rate: Any = 0.002, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1.0e-8, momentum_decay: float = 0.004, parameters: Any = None,
                 weight_decay: Any = None, grad_clip: Any = None,
                 name: Optional[str] = None) -> None:
        check_betas(beta1, beta2, epsilon)
        if not momentum_decay >= 0:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}, expect "
                             "momentum_decay >= 0.")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon
        self._momentum_decay = momentum_decay
        self._default_dict.update(beta1=beta1, beta2=beta2, epsilon=epsilon,
                                  momentum_decay=momentum_decay)

    def _update(self, param, grad, lr, group) -> None:
        beta1 = float(self._option(group, "beta1"))
        beta2 = float(self._option(group, "beta2"))
        eps = float(self._option(group, "epsilon"))
        psi = float(self._option(group, "momentum_decay"))
        decay_acc = self._accumulator("momentum_decay_pow", param, group)
        b2p_acc = self._accumulator("beta2_pow", param, group)
        mu_acc = self._accumulator("mu_product", param, group)
        m = self._accumulator("moment1", param, group)
        v = self._accumulator("moment2", param, group)
        decay = ops.scale(ops.reshape(decay_acc, []), 0.96)
        b2p = ops.scale(ops.reshape(b2p_acc, []), beta2)
        decay_psi = ops.pow(decay, psi)
        mu_t = ops.scale(ops.subtract(1.0, ops.scale(decay_psi, 0.5)), beta1)
        mu_next = ops.scale(ops.subtract(1.0, ops.scale(decay_psi, 0.5 * 0.96 ** psi)), beta1)
        mu_product = ops.multiply(ops.reshape(mu_acc, []), mu_t)
        m_new = ops.add(ops.scale(m, beta1), ops.scale(grad, 1.0 - beta1))
        v_new = ops.add(ops.scale(v, beta2), ops.scale(ops.multiply(grad, grad), 1.0 - beta2))
        m_hat = ops.add(
            ops.divide(ops.multiply(mu_next, m_new),
                       ops.subtract(1.0, ops.multiply(mu_product, mu_next))),
            ops.divide(ops.multiply(ops.subtract(1.0, mu_t), grad),
                       ops.subtract(1.0, mu_product)))
        v_hat = ops.divide(v_new, ops.subtract(1.0, b2p))
        step = ops.divide(m_hat, ops.scale(ops.sqrt(v_hat), 1.0, eps))
        write_persistable(decay_acc, ops.reshape(decay, [1]))
        write_persistable(b2p_acc, ops.reshape(b2p, [1]))
        write_persistable(mu_acc, ops.reshape(mu_product, [1]))
        write_persistable(m, m_new)
        write_persistable(v, v_new)
        write_persistable(param, ops.subtract(param, ops.multiply(lr, step)))
