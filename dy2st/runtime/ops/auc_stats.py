"""The auc op of paddle.static.auc: prediction histograms of the positive and negative
instances over num_thresholds + 1 buckets, accumulated across runs (all of them, or a sliding
window of the last slide_steps batches), and the ROC AUC they give."""
from __future__ import annotations

import numpy as np

from ..dtype import convert_dtype
from ..registry import Meta, register_op


def roc_auc(pos: np.ndarray, neg: np.ndarray) -> float:
    """The area under the ROC curve of two bucket histograms, walking the thresholds from the
    highest bucket down and adding trapezoids."""
    tp = np.cumsum(pos[::-1].astype(np.float64))
    fp = np.cumsum(neg[::-1].astype(np.float64))
    prev_tp = np.concatenate([[0.0], tp[:-1]])
    prev_fp = np.concatenate([[0.0], fp[:-1]])
    area = float(np.sum(np.abs(fp - prev_fp) * (tp + prev_tp) / 2.0))
    total = tp[-1] * fp[-1] if tp.size else 0.0
    return area / total if total > 0 else 0.0


def _infer(predict, label, weight, stat_pos, stat_neg, **_):
    f64 = convert_dtype("float64")
    return (Meta((), f64), Meta(stat_pos._shape, stat_pos.dtype),
            Meta(stat_neg._shape, stat_neg.dtype))


@register_op("auc", infer=_infer, n_outputs=3)
def _auc_kernel(predict, label, weight, stat_pos, stat_neg, num_thresholds, slide_steps):
    """This batch added to the histograms [rows, num_thresholds + 1] (with a window, rows are
    the last slide_steps batches then their sum; else one row, the running total); the AUC of
    the total row and the new histograms."""
    p = np.asarray(predict, dtype=np.float64)
    p = p.reshape(p.shape[0], -1)[:, -1]
    y = np.asarray(label).reshape(-1)
    if p.shape[0] != y.shape[0]:
        raise ValueError(f"auc: {p.shape[0]} predictions for {y.shape[0]} labels")
    buckets = num_thresholds + 1
    fake = np.asarray(weight).size > 0 and np.asarray(weight).reshape(-1)[0] == 0
    bins = np.clip((p * num_thresholds).astype(np.int64), 0, num_thresholds)
    batch_pos = np.zeros(buckets, np.int64) if fake else \
        np.bincount(bins[y != 0], minlength=buckets)
    batch_neg = np.zeros(buckets, np.int64) if fake else \
        np.bincount(bins[y == 0], minlength=buckets)
    pos, neg = np.array(stat_pos, dtype=np.int64), np.array(stat_neg, dtype=np.int64)
    if slide_steps > 0:
        for stat, batch in ((pos, batch_pos), (neg, batch_neg)):
            stat[:slide_steps - 1] = stat[1:slide_steps].copy()
            stat[slide_steps - 1] = batch
            stat[slide_steps] = stat[:slide_steps].sum(axis=0)
    else:
        pos[0] += batch_pos
        neg[0] += batch_neg
    auc = roc_auc(pos[-1], neg[-1])
    return np.float64(auc), pos.astype(stat_pos.dtype), neg.astype(stat_neg.dtype)
