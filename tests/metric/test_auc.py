"""paddle.metric.Auc against the rank statistic (the probability that a positive scores above a
negative, ties counting one half) computed by hand, over several updates."""
import numpy as np
import pytest

import dy2st as paddle


def _pairwise_auc(p, y):
    pos, neg = p[y == 1], p[y == 0]
    wins = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return wins / (len(pos) * len(neg))


def test_auc_matches_the_rank_statistic_over_batches():
    rng = np.random.default_rng(0)
    # scores on the bucket grid, so the histogram loses nothing and the match is exact
    probs = rng.integers(0, 101, 300) / 100.0
    labels = (rng.random(300) < probs * 0.8 + 0.1).astype(np.int64)
    m = paddle.metric.Auc(num_thresholds=100)
    for lo in range(0, 300, 100):
        p = probs[lo:lo + 100]
        m.update(paddle.to_tensor(np.stack([1 - p, p], 1)), paddle.to_tensor(labels[lo:lo + 100, None]))
    assert m.accumulate() == pytest.approx(_pairwise_auc(probs, labels), abs=1e-12)
    assert m.name() == "auc"
    m.reset()
    assert m.accumulate() == 0.0


def test_auc_extremes_and_checks():
    m = paddle.metric.Auc()
    m.update(np.array([0.9, 0.8, 0.2, 0.1]), np.array([1, 1, 0, 0]))
    assert m.accumulate() == 1.0
    m.reset()
    m.update(np.array([0.1, 0.2, 0.8, 0.9]), np.array([1, 1, 0, 0]))
    assert m.accumulate() == 0.0
    with pytest.raises(ValueError, match="ROC"):
        paddle.metric.Auc(curve="PR")
    with pytest.raises(ValueError, match="probabilities"):
        m.update(np.array([1.5]), np.array([1]))
