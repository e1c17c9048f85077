"""Lamb (paddle.optimizer.Lamb), as Paddle's kernel computes it: Adam moments with bias
correction (beta powers start at beta), r = m_hat / (sqrt(v_hat) + epsilon) + wd * param,
and a layer-wise trust ratio ||param|| / ||r|| (1 when either norm is 0, or when there is no
weight decay and always_adapt is False); param -= lr * ratio * r."""
from __future__ import annotations

from typing import Any, Callable, Optional

from ..runtime import ops
from ..runtime.persistable import write_persistable
from .adam import check_betas
from .optimizer import Optimizer


def _l2(x: Any) -> Any:
    return ops.sqrt(ops.sum(ops.multiply(x, x)))


class Lamb(Optimizer):
    _accumulator_specs = (("moment1", 0.0, None), ("moment2", 0.0, None),
                          ("beta1_pow_acc", None, [1]), ("beta2_pow_acc", None, [1]))

    def __init__(self, learning_rate: Any = 0.001, lamb_weight_decay: float = 0.01,
                 beta1: float = 0.9, beta2: float = 0.999, epsilon: float = 1e-06,
                 parameters: Any = None, grad_clip: Any = None,
                 exclude_from_weight_decay_fn: Optional[Callable[[Any], bool]] = None,
                 multi_precision: bool = False, always_adapt: bool = False,
                 name: Optional[str] = None) -> None:
        check_betas(beta1, beta2, epsilon)
        super().__init__(learning_rate, parameters, None, grad_clip, name)
        self._lamb_weight_decay = float(lamb_weight_decay)
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon
        self._exclude_fn = exclude_from_weight_decay_fn
        self._always_adapt = always_adapt
        self._multi_precision = multi_precision
        self._default_dict.update(lamb_weight_decay=self._lamb_weight_decay, beta1=beta1,
                                  beta2=beta2, epsilon=epsilon)

    def _fill(self, name: str, group: dict) -> float:
        return float(self._option(group, "beta1" if name == "beta1_pow_acc" else "beta2"))

    def _update(self, param, grad, lr, group) -> None:
        beta1 = self._option(group, "beta1")
        beta2 = self._option(group, "beta2")
        eps = self._option(group, "epsilon")
        wd = self._option(group, "lamb_weight_decay")
        if self._exclude_fn is not None and self._exclude_fn(param):
            wd = 0.0
        m = self._accumulator("moment1", param, group)
        v = self._accumulator("moment2", param, group)
        b1p_acc = self._accumulator("beta1_pow_acc", param, group)
        b2p_acc = self._accumulator("beta2_pow_acc", param, group)
        b1p, b2p = ops.reshape(b1p_acc, []), ops.reshape(b2p_acc, [])
        m_new = ops.add(ops.scale(m, beta1), ops.scale(grad, 1.0 - beta1))
        v_new = ops.add(ops.scale(v, beta2), ops.scale(ops.multiply(grad, grad), 1.0 - beta2))
        m_hat = ops.divide(m_new, ops.subtract(1.0, b1p))
        v_hat = ops.divide(v_new, ops.subtract(1.0, b2p))
        r = ops.add(ops.divide(m_hat, ops.scale(ops.sqrt(v_hat), 1.0, eps)), ops.scale(param, wd))
        if wd > 0.0 or self._always_adapt:
            p_norm, r_norm = _l2(param), _l2(r)
            zero = ops.zeros_like(p_norm)
            both = ops.logical_and(ops.greater_than(p_norm, zero), ops.greater_than(r_norm, zero))
            safe_r = ops.where(both, r_norm, ops.full_like(r_norm, 1.0))
            ratio = ops.where(both, ops.divide(p_norm, safe_r), ops.full_like(p_norm, 1.0))
            r = ops.multiply(ratio, r)
        write_persistable(m, m_new)
        write_persistable(v, v_new)
        write_persistable(b1p_acc, ops.scale(b1p_acc, beta1))
        write_persistable(b2p_acc, ops.scale(b2p_acc, beta2))
        write_persistable(param, ops.subtract(param, ops.multiply(lr, r)))
