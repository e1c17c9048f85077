"""RAdam (paddle.optimizer.RAdam), as Paddle's kernel computes it: beta powers from 1,
rho_inf = 2 / (1 - beta2) - 1 and the running rho_t = rho_inf - 2 t beta2^t / (1 - beta2^t);
m_hat = m_t / (1 - beta1^t); when rho_t > 5 the step is rectified,
param -= lr * m_hat * r_t * sqrt(1 - beta2^t) / (sqrt(v_t) + epsilon) with
r_t = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t)),
otherwise param -= lr * m_hat."""
from __future__ import annotations

from typing import Any, Optional

from ..runtime import ops
from ..runtime.persistable import write_persistable
from .adam import check_betas
from .optimizer import Optimizer


class RAdam(Optimizer):
    _accumulator_specs = (("beta1_pow", 1.0, [1]), ("beta2_pow", 1.0, [1]), ("rho", 0.0, [1]),
                          ("moment1", 0.0, None), ("moment2", 0.0, None))

    def __init__(self, learning_rate: Any = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1.0e-8, parameters: Any = None, weight_decay: Any = None,
                 grad_clip: Any = None, name: Optional[str] = None) -> None:
        check_betas(beta1, beta2, epsilon)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon
        self._default_dict.update(beta1=beta1, beta2=beta2, epsilon=epsilon)

    def _update(self, param, grad, lr, group) -> None:
        beta1 = float(self._option(group, "beta1"))
        beta2 = float(self._option(group, "beta2"))
        eps = float(self._option(group, "epsilon"))
        rho_inf = 2.0 / (1.0 - beta2) - 1.0
        b1p_acc = self._accumulator("beta1_pow", param, group)
        b2p_acc = self._accumulator("beta2_pow", param, group)
        rho_acc = self._accumulator("rho", param, group)
        m = self._accumulator("moment1", param, group)
        v = self._accumulator("moment2", param, group)
        b1p, b2p = ops.scale(b1p_acc, beta1), ops.scale(b2p_acc, beta2)
        rho = ops.divide(ops.add(ops.multiply(rho_acc, ops.subtract(beta2, b2p)), b2p),
                         ops.subtract(1.0, b2p))
        m_new = ops.add(ops.scale(m, beta1), ops.scale(grad, 1.0 - beta1))
        v_new = ops.add(ops.scale(v, beta2), ops.scale(ops.multiply(grad, grad), 1.0 - beta2))
        m_hat = ops.divide(m_new, ops.subtract(1.0, ops.reshape(b1p, [])))
        rho_t = ops.reshape(ops.subtract(rho_inf, ops.scale(rho, 2.0)), [])
        ratio = ops.divide(ops.multiply(ops.multiply(ops.subtract(rho_t, 4.0),
                                                     ops.subtract(rho_t, 2.0)), rho_inf),
                           ops.scale(rho_t, (rho_inf - 4.0) * (rho_inf - 2.0)))
        r_t = ops.sqrt(ops.maximum(ratio, ops.zeros_like(ratio)))
        l_t = ops.divide(ops.sqrt(ops.subtract(1.0, ops.reshape(b2p, []))),
                         ops.scale(ops.sqrt(v_new), 1.0, eps))
        rectified = ops.multiply(ops.multiply(m_hat, r_t), l_t)
        step = ops.where(ops.greater_than(rho_t, 5.0), rectified, m_hat)
        write_persistable(b1p_acc, b1p)
        write_persistable(b2p_acc, b2p)
        write_persistable(rho_acc, rho)
        write_persistable(m, m_new)
        write_persistable(v, v_new)
        write_persistable(param, ops.subtract(param, ops.multiply(lr, step)))
