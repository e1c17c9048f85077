"""Loss layers over the multi-class and metric-learning losses in functional.margin_losses."""
from __future__ import annotations

from typing import Any, Callable, Optional

from .. import functional as F
from ..layer import Layer


class MultiLabelSoftMarginLoss(Layer):
    def __init__(self, weight: Any = None, reduction: str = "mean", name: Optional[str] = None) -> None:
        super().__init__()
        self.weight, self.reduction = weight, reduction

    def forward(self, input: Any, label: Any) -> Any:
        return F.multi_label_soft_margin_loss(input, label, self.weight, self.reduction)


class MultiMarginLoss(Layer):
    def __init__(self, p: int = 1, margin: float = 1.0, weight: Any = None, reduction: str = "mean",
                 name: Optional[str] = None) -> None:
        super().__init__()
        self.p, self.margin, self.weight, self.reduction = p, margin, weight, reduction

    def forward(self, input: Any, label: Any) -> Any:
        return F.multi_margin_loss(input, label, self.p, self.margin, self.weight, self.reduction)


class MultiLabelMarginLoss(Layer):
    def __init__(self, reduction: str = "mean", name: Optional[str] = None) -> None:
        super().__init__()
        self.reduction = reduction

    def forward(self, input: Any, label: Any) -> Any:
        return F.multi_label_margin_loss(input, label, self.reduction)


class TripletMarginWithDistanceLoss(Layer):
    def __init__(self, distance_function: Optional[Callable[[Any, Any], Any]] = None, margin: float = 1.0,
                 swap: bool = False, reduction: str = "mean", name: Optional[str] = None) -> None:
        super().__init__()
        self.distance_function, self.margin, self.swap, self.reduction = distance_function, margin, swap, reduction

    def forward(self, input: Any, positive: Any, negative: Any) -> Any:
        return F.triplet_margin_with_distance_loss(input, positive, negative, self.distance_function,
                                                   self.margin, self.swap, self.reduction)
