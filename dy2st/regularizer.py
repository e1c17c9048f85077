"""Weight decay regularizers (paddle.regularizer): the term an optimizer adds to a gradient."""
from __future__ import annotations

from typing import Any

from .runtime import ops

__all__ = ["WeightDecayRegularizer", "L1Decay", "L2Decay"]


class WeightDecayRegularizer:
    """Base class: `reg(param, grad)` is the term added to `grad` before the update."""

    def __init__(self, coeff: float = 0.0) -> None:
        if isinstance(coeff, bool) or not isinstance(coeff, (int, float)):
            raise TypeError(f"{type(self).__name__}: coeff must be a float, got "
                            f"{type(coeff).__name__}")
        self._coeff = float(coeff)

    @property
    def coeff(self) -> float:
        return self._coeff

    def __call__(self, param: Any, grad: Any, block: Any = None) -> Any:
        raise NotImplementedError

    def __str__(self) -> str:
        return f"{type(self).__name__}, coeff={self._coeff:f}"

    __repr__ = __str__


class L2Decay(WeightDecayRegularizer):
    """coeff * param: the gradient of coeff/2 * ||param||^2."""

    def __call__(self, param: Any, grad: Any, block: Any = None) -> Any:
        return ops.scale(param, self._coeff)


class L1Decay(WeightDecayRegularizer):
    """coeff * sign(param): the gradient of coeff * ||param||_1."""

    def __call__(self, param: Any, grad: Any, block: Any = None) -> Any:
        return ops.scale(ops.sign(param), self._coeff)
