"""Loss layers: CrossEntropyLoss, NLLLoss, MSELoss, L1Loss, SmoothL1Loss."""
from __future__ import annotations

from typing import Any, Optional

from .. import functional as F
from ..layer import Layer


class CrossEntropyLoss(Layer):
    def __init__(self, weight: Any = None, ignore_index: int = -100, reduction: str = "mean",
                 soft_label: bool = False, axis: int = -1, use_softmax: bool = True,
                 label_smoothing: float = 0.0, name: Optional[str] = None) -> None:
        super().__init__()
        self._weight, self._ignore_index, self._reduction = weight, ignore_index, reduction
        self._soft_label, self._axis, self._use_softmax = soft_label, axis, use_softmax
        self._label_smoothing = label_smoothing

    def forward(self, input: Any, label: Any) -> Any:
        return F.cross_entropy(input, label, weight=self._weight, ignore_index=self._ignore_index,
                               reduction=self._reduction, soft_label=self._soft_label, axis=self._axis,
                               use_softmax=self._use_softmax, label_smoothing=self._label_smoothing)


class NLLLoss(Layer):
    def __init__(self, weight: Any = None, ignore_index: int = -100, reduction: str = "mean",
                 name: Optional[str] = None) -> None:
        super().__init__()
        self._weight, self._ignore_index, self._reduction = weight, ignore_index, reduction

    def forward(self, input: Any, label: Any) -> Any:
        return F.nll_loss(input, label, self._weight, self._ignore_index, self._reduction)


class MSELoss(Layer):
    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        self._reduction = reduction

    def forward(self, input: Any, label: Any) -> Any:
        return F.mse_loss(input, label, self._reduction)


class L1Loss(Layer):
    def __init__(self, reduction: str = "mean", name: Optional[str] = None) -> None:
        super().__init__()
        self._reduction = reduction

    def forward(self, input: Any, label: Any) -> Any:
        return F.l1_loss(input, label, self._reduction)


class SmoothL1Loss(Layer):
    def __init__(self, reduction: str = "mean", delta: float = 1.0, name: Optional[str] = None) -> None:
        super().__init__()
        self._reduction, self._delta = reduction, delta

    def forward(self, input: Any, label: Any) -> Any:
        return F.smooth_l1_loss(input, label, self._reduction, self._delta)
