"""paddle.static.ExponentialMovingAverage: shadow copies of the trainable parameters, updated
by each run of the program after the optimizer's step, swapped in for evaluation (apply) and
back out (restore)."""
from __future__ import annotations

import contextlib
from typing import Any, Dict, Iterator, List, Optional

import numpy as np

from ..runtime import ops, state
from ..runtime.persistable import write_persistable
from ..runtime.program import default_main_program
from ..runtime.tensor import Tensor

__all__ = ["ExponentialMovingAverage"]


class ExponentialMovingAverage:
    """ema_t = decay_t * ema_{t-1} + (1 - decay_t) * param_t for every trainable parameter,
    once per run of the program update() was called in (call it after minimize). With
    thres_steps (a step count: an int or a tensor such as a global step counter)
    decay_t = min(decay, (1 + thres_steps) / (10 + thres_steps)). apply() swaps in the averages
    corrected for their zero start, ema / (1 - decay_t ** t), and restores the parameters on
    leaving (need_restore=True) or at restore()."""

    def __init__(self, decay: float = 0.999, thres_steps: Any = None,
                 name: Optional[str] = None) -> None:
        if not 0.0 <= float(decay) <= 1.0:
            raise ValueError(f"ExponentialMovingAverage: decay must be in [0, 1], got {decay}")
        self._decay = float(decay)
        self._thres_steps = thres_steps
        self._name = name or "ema"
        self._params: List[Tensor] = []
        self._averages: Dict[int, Tensor] = {}
        self._backup: Dict[int, np.ndarray] = {}
        self._step = Tensor(np.zeros([1], np.int64), name=f"{self._name}.step")
        self._decay_now = Tensor(np.full([1], self._decay, np.float64),
                                 name=f"{self._name}.decay")

    def _trainable(self) -> List[Tensor]:
        program = state.current_program() or default_main_program()
        return [t for t in program.persistables.values()
                if getattr(t, "trainable", False) and not t.stop_gradient
                and t.dtype.is_floating and getattr(t, "do_model_average", True) is not False]

    def _decay_value(self) -> Any:
        steps = self._thres_steps
        if steps is None:
            return ops.full([1], self._decay, "float64")
        if isinstance(steps, (int, float)):
            return ops.full([1], min(self._decay, (steps + 1.0) / (steps + 10.0)), "float64")
        steps = ops.cast(ops.reshape(steps, [-1])[:1], "float64")
        return ops.minimum(ops.full([1], self._decay, "float64"), (steps + 1.0) / (steps + 10.0))

    def update(self) -> None:
        """Append the averaging of every trainable parameter to the program being built (run it
        eagerly outside one): each later run of the program then updates the averages."""
        self._params = self._trainable()
        if not self._params:
            raise RuntimeError("ExponentialMovingAverage.update: no trainable parameters found; "
                               "call it inside the program_guard that built the model and its "
                               "optimizer (after minimize)")
        decay = self._decay_value()
        write_persistable(self._step, self._step + 1)
        write_persistable(self._decay_now, decay)
        for p in self._params:
            avg = self._averages.get(id(p))
            if avg is None:
                avg = self._averages[id(p)] = Tensor(np.zeros(p.shape, p._value.dtype),
                                                     name=f"{p.name}.{self._name}")
            d = ops.cast(decay, p.dtype)
            write_persistable(avg, avg * d + p * (1.0 - d))

    def _corrected(self, p: Tensor) -> np.ndarray:
        avg = self._averages[id(p)]._value
        t = int(self._step._value[0])
        if t == 0:
            return p._value.copy()
        scale = 1.0 - float(self._decay_now._value[0]) ** t
        return (avg / scale).astype(p._value.dtype)

    @contextlib.contextmanager
    def apply(self, executor: Any = None, need_restore: bool = True) -> Iterator[None]:
        """Parameters take their bias-corrected averages inside the block (for evaluation)."""
        if not self._averages:
            raise RuntimeError("ExponentialMovingAverage.apply: update() was never called")
        for p in self._params:
            self._backup[id(p)] = p._value.copy()
            p._value = self._corrected(p)
            p._version = getattr(p, "_version", 0) + 1
        try:
            yield
        finally:
            if need_restore:
                self.restore(executor)

    def restore(self, executor: Any = None) -> None:
        """Give the parameters back the values apply() replaced."""
        for p in self._params:
            saved = self._backup.pop(id(p), None)
            if saved is not None:
                p._value = saved
                p._version = getattr(p, "_version", 0) + 1
