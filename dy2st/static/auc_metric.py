"""paddle.static.auc: the running ROC AUC of a binary classifier inside a static program, over
all batches so far and over a sliding window of the last slide_steps batches."""
from __future__ import annotations

from typing import Any, List, Tuple

import numpy as np

from ..runtime import ops, state
from ..runtime.ops.operands import as_tensor
from ..runtime.persistable import write_persistable
from ..runtime.registry import apply
from ..runtime.tensor import Tensor

__all__ = ["auc"]


def _stats(name: str, rows: int, buckets: int) -> Tensor:
    return Tensor(np.zeros([rows, buckets], np.int64), name=name)


def auc(input: Any, label: Any, curve: str = "ROC", num_thresholds: int = 2 ** 12 - 1,
        topk: int = 1, slide_steps: int = 1, ins_tag_weight: Any = None
        ) -> Tuple[Any, Any, List[Any]]:
    """The AUC of `input` [N, C] (its last column: the positive class's probability) against
    0/1 labels [N, 1], from histograms over num_thresholds + 1 buckets kept across runs.
    Returns (auc of every batch so far, auc of the last slide_steps batches (0: every batch),
    [batch_stat_pos, batch_stat_neg, stat_pos, stat_neg]); a batch whose ins_tag_weight is 0
    (fake data) adds nothing. Inside a program being built the histograms are persistable
    state updated by each run; eagerly they start at zero for each call."""
    if curve != "ROC":
        raise ValueError(f"auc: only curve='ROC' is computed (Paddle's kernel computes the ROC "
                         f"curve too), got {curve!r}")
    if not isinstance(num_thresholds, int) or num_thresholds < 1:
        raise ValueError(f"auc: num_thresholds must be a positive int, got {num_thresholds!r}")
    if not isinstance(slide_steps, int) or slide_steps < 0:
        raise ValueError(f"auc: slide_steps must be an int >= 0, got {slide_steps!r}")
    predict, label = as_tensor(input), as_tensor(label)
    weight = as_tensor(ins_tag_weight) if ins_tag_weight is not None else \
        ops.ones([1, 1], "float32")
    buckets = num_thresholds + 1
    results = []
    for steps, tag in ((0, "global"), (slide_steps, "batch")):
        pos = _stats(f"auc_{tag}_stat_pos", steps + 1, buckets)
        neg = _stats(f"auc_{tag}_stat_neg", steps + 1, buckets)
        value, new_pos, new_neg = apply("auc", [predict, label, weight, pos, neg],
                                        {"num_thresholds": num_thresholds,
                                         "slide_steps": steps})
        if state.build_state.blocks:
            write_persistable(pos, new_pos)
            write_persistable(neg, new_neg)
        results.append((value, new_pos, new_neg))
    (auc_out, stat_pos, stat_neg), (batch_auc, batch_pos, batch_neg) = results
    return auc_out, batch_auc, [batch_pos, batch_neg, stat_pos, stat_neg]
