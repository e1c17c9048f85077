"""Layer forms of small functional ops: CosineSimilarity, PairwiseDistance, Dropout2D/3D,
SoftMarginLoss and Unflatten."""
from __future__ import annotations

from typing import Any, Optional, Sequence

from ...runtime import ops
from .. import functional as F
from ..layer import Layer

__all__ = ["CosineSimilarity", "PairwiseDistance", "Dropout2D", "Dropout3D", "SoftMarginLoss",
           "Unflatten"]


class CosineSimilarity(Layer):
    def __init__(self, axis: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.axis, self.eps = axis, eps

    def forward(self, x1: Any, x2: Any) -> Any:
        return F.cosine_similarity(x1, x2, axis=self.axis, eps=self.eps)


class PairwiseDistance(Layer):
    def __init__(self, p: float = 2.0, epsilon: float = 1e-6, keepdim: bool = False,
                 name: Optional[str] = None) -> None:
        super().__init__()
        self.p, self.epsilon, self.keepdim = p, epsilon, keepdim

    def forward(self, x: Any, y: Any) -> Any:
        return F.pairwise_distance(x, y, self.p, self.epsilon, self.keepdim)


class Dropout2D(Layer):
    def __init__(self, p: float = 0.5, data_format: str = "NCHW", name: Optional[str] = None) -> None:
        super().__init__()
        self.p, self.data_format = p, data_format

    def forward(self, x: Any) -> Any:
        return F.dropout2d(x, self.p, self.training, self.data_format)


class Dropout3D(Layer):
    def __init__(self, p: float = 0.5, data_format: str = "NCDHW", name: Optional[str] = None) -> None:
        super().__init__()
        self.p, self.data_format = p, data_format

    def forward(self, x: Any) -> Any:
        return F.dropout3d(x, self.p, self.training, self.data_format)


class SoftMarginLoss(Layer):
    def __init__(self, reduction: str = "mean", name: Optional[str] = None) -> None:
        super().__init__()
        self.reduction = reduction

    def forward(self, input: Any, label: Any) -> Any:
        return F.soft_margin_loss(input, label, self.reduction)


class Unflatten(Layer):
    """Split dim `axis` into `shape` (one entry may be -1)."""

    def __init__(self, axis: int, shape: Sequence[int], name: Optional[str] = None) -> None:
        super().__init__()
        self.axis, self.shape = axis, list(shape)

    def forward(self, x: Any) -> Any:
        axis = self.axis % x.ndim
        dims = x.shape
        return ops.reshape(x, list(dims[:axis]) + self.shape + list(dims[axis + 1:]))
