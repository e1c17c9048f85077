"""Momentum (paddle.optimizer.Momentum): velocity = mu * velocity + grad, then
param -= lr * velocity (Nesterov: param -= lr * (grad + mu * velocity))."""
from __future__ import annotations

from typing import Any, Optional

from ..regularizer import L2Decay
from ..runtime import ops
from ..runtime.persistable import write_persistable
from .optimizer import Optimizer, ParamsGrads


class Momentum(Optimizer):
    """SGD with (Nesterov) momentum. As in Paddle's kernel, L2 weight decay is folded into the
    update after `rescale_grad`: grad = grad * rescale_grad + coeff * param."""

    _accumulator_specs = (("velocity", 0.0, None),)

    def __init__(self, learning_rate: Any = 0.001, momentum: float = 0.9, parameters: Any = None,
                 use_nesterov: bool = False, weight_decay: Any = None, grad_clip: Any = None,
                 multi_precision: bool = False, rescale_grad: float = 1.0,
                 use_multi_tensor: bool = False, name: Optional[str] = None) -> None:
        if learning_rate is None:
            raise ValueError("learning_rate is not set")
        if momentum is None:
            raise ValueError("momentum is not set")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._momentum = momentum
        self._use_nesterov = bool(use_nesterov)
        self._rescale_grad = rescale_grad
        self._multi_precision = multi_precision
        self._default_dict.update(momentum=momentum, use_nesterov=bool(use_nesterov),
                                  rescale_grad=rescale_grad)

    def _regularize(self, params_grads: ParamsGrads, group) -> ParamsGrads:
        # L2 decay is applied inside the update (after rescale_grad); other decays here
        out = []
        for p, g in params_grads:
            reg = self._regularizer(p, group)
            if reg is not None and not isinstance(reg, L2Decay):
                g = ops.add(g, reg(p, g))
            out.append((p, g))
        return out

    def _update(self, param, grad, lr, group) -> None:
        mu = self._option(group, "momentum")
        rescale = self._option(group, "rescale_grad")
        velocity = self._accumulator("velocity", param)
        g = grad if rescale == 1.0 else ops.scale(grad, rescale)
        reg = self._regularizer(param, group)
        if isinstance(reg, L2Decay) and reg.coeff != 0.0:
            g = ops.add(g, ops.scale(param, reg.coeff))
        v = ops.add(ops.scale(velocity, mu), g)
        if self._option(group, "use_nesterov"):
            step = ops.multiply(ops.add(g, ops.scale(v, mu)), lr)
        else:
            step = ops.multiply(lr, v)
        write_persistable(velocity, v)
        write_persistable(param, ops.subtract(param, step))
