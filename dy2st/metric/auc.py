"""paddle.metric.Auc: the area under the ROC curve from histograms of the predicted positive
probability over num_thresholds + 1 buckets, as Paddle accumulates it."""
from __future__ import annotations

from typing import Any

import numpy as np

from .metrics import Metric, to_numpy


class Auc(Metric):
    """ROC AUC of [N, 2] class probabilities (column 1: the positive class) or [N] / [N, 1]
    positive probabilities, against 0/1 labels; update() adds a batch, accumulate() reads it."""

    def __init__(self, curve: str = "ROC", num_thresholds: int = 4095, name: str = "auc",
                 *args: Any, **kwargs: Any) -> None:
        if curve != "ROC":
            raise ValueError(f"Auc: only curve='ROC' is supported, got {curve!r}")
        if num_thresholds < 1:
            raise ValueError(f"Auc: num_thresholds must be positive, got {num_thresholds}")
        self._curve, self._num_thresholds, self._name = curve, int(num_thresholds), name
        self.reset()

    def reset(self) -> None:
        self._stat_pos = np.zeros(self._num_thresholds + 1, np.int64)
        self._stat_neg = np.zeros(self._num_thresholds + 1, np.int64)

    def update(self, preds: Any, labels: Any) -> None:
        p = to_numpy(preds).astype(np.float64)
        if p.ndim == 2 and p.shape[1] == 2:
            p = p[:, 1]
        p = p.reshape(-1)
        y = to_numpy(labels).reshape(-1)
        if p.shape != y.shape:
            raise ValueError(f"Auc: {p.size} predictions for {y.size} labels")
        if np.any((p < 0) | (p > 1)):
            raise ValueError("Auc: predictions must be probabilities in [0, 1]")
        bins = (p * self._num_thresholds).astype(np.int64)
        positive = y.astype(bool)
        self._stat_pos += np.bincount(bins[positive], minlength=self._num_thresholds + 1)
        self._stat_neg += np.bincount(bins[~positive], minlength=self._num_thresholds + 1)

    def accumulate(self) -> float:
        # walk the thresholds from high to low, adding trapezoids of the ROC curve
        pos = np.cumsum(self._stat_pos[::-1]).astype(np.float64)
        neg = np.cumsum(self._stat_neg[::-1]).astype(np.float64)
        prev_pos = np.concatenate([[0.0], pos[:-1]])
        prev_neg = np.concatenate([[0.0], neg[:-1]])
        area = float(np.sum((neg - prev_neg) * (pos + prev_pos) / 2.0))
        total = pos[-1] * neg[-1]
        return area / total if total > 0 else 0.0

    def name(self) -> str:
        return self._name
