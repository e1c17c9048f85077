"""ASGD (paddle.optimizer.ASGD), the stochastic average gradient as Paddle applies it: a step
counter m, a table y of the last batch_num gradients and their running sum d; each step takes
slot i = m mod batch_num, sets d = d - y_i + g, y_i = g, m = m + 1 and
param -= lr * d / min(m, batch_num)."""
from __future__ import annotations

from typing import Any, Optional

from ..runtime import ops
from ..runtime.persistable import write_persistable
from .optimizer import Optimizer


def _table_shape(self: "ASGD", param: Any) -> list:
    return [self._n] + list(param.shape)


class ASGD(Optimizer):
    _accumulator_specs = (("d", 0.0, None), ("y", 0.0, _table_shape), ("m", 0.0, [1]))

    def __init__(self, learning_rate: Any = 0.001, batch_num: int = 1, parameters: Any = None,
                 weight_decay: Any = None, grad_clip: Any = None, multi_precision: bool = False,
                 name: Optional[str] = None) -> None:
        if learning_rate is None:
            raise ValueError("learning_rate should not be none")
        if batch_num is None:
            raise ValueError("batch_num should not be none")
        if not 0 < batch_num:
            raise ValueError("batch_num should be greater than 0")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._n = int(batch_num)
        self._multi_precision = multi_precision

    def _update(self, param, grad, lr, group) -> None:
        d = self._accumulator("d", param, group)
        table = self._accumulator("y", param, group)
        m = self._accumulator("m", param, group)
        slot = ops.cast(ops.remainder(m, float(self._n)), "int64")
        rows = [1] + list(grad.shape)
        old = ops.reshape(ops.gather(table, slot), list(grad.shape))
        d_new = ops.add(ops.subtract(d, old), grad)
        table_new = ops.scatter(table, slot, ops.reshape(grad, rows), overwrite=True)
        m_new = ops.scale(m, 1.0, 1.0)
        count = ops.reshape(ops.minimum(m_new, ops.full_like(m_new, float(self._n))), [])
        write_persistable(d, d_new)
        write_persistable(table, table_new)
        write_persistable(m, m_new)
        write_persistable(param, ops.subtract(param, ops.multiply(lr, ops.divide(d_new, count))))
