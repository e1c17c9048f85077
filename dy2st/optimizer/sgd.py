"""SGD (paddle.optimizer.SGD): param -= lr * grad."""
from __future__ import annotations

from typing import Any, Optional

from ..runtime import ops
from ..runtime.persistable import write_persistable
from .optimizer import Optimizer


class SGD(Optimizer):
    """Stochastic gradient descent."""

    def __init__(self, learning_rate: Any = 0.001, parameters: Any = None,
                 weight_decay: Any = None, grad_clip: Any = None, multi_precision: bool = False,
                 name: Optional[str] = None) -> None:
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._multi_precision = multi_precision

    def _update(self, param, grad, lr, group) -> None:
        write_persistable(param, ops.subtract(param, ops.multiply(lr, grad)))
