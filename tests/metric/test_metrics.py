"""paddle.metric / paddle.static accuracy and the Accuracy, Precision, Recall metrics against
counts written by hand; accuracy also in a static Program and through jit.save / jit.load."""
import numpy as np
import pytest

import dy2st as paddle
from tests.support import three_modes

SCORES = np.array([[0.1, 0.6, 0.3], [0.5, 0.2, 0.3], [0.2, 0.3, 0.5], [0.7, 0.2, 0.1]],
                  dtype="float32")
LABELS = np.array([[1], [2], [0], [0]], dtype="int64")
# top-1 hits: rows 0 and 3; top-2 hits: rows 0, 1 and 3 (row 2's two best are classes 2 and 1)


def test_accuracy_top1_and_top2():
    x, y = paddle.to_tensor(SCORES), paddle.to_tensor(LABELS)
    assert float(paddle.metric.accuracy(x, y).numpy()) == pytest.approx(0.5)
    assert float(paddle.metric.accuracy(x, y, k=2).numpy()) == pytest.approx(0.75)
    assert float(paddle.static.accuracy(x, paddle.to_tensor(LABELS[:, 0])).numpy()) == \
        pytest.approx(0.5)


def _acc(x, y):
    return paddle.metric.accuracy(x, y, k=2)


def test_accuracy_static_and_saved(tmp_path):
    for (out,) in three_modes(_acc, [SCORES, LABELS], [[None, 3], [None, 1]], tmp_path):
        assert float(out) == pytest.approx(0.75)


def test_accuracy_refuses_bad_rank():
    with pytest.raises(ValueError, match=r"\[N, C\]"):
        paddle.metric.accuracy(paddle.ones([3]), paddle.to_tensor([0, 1, 0]))


def test_accuracy_metric_accumulates_over_batches():
    m = paddle.metric.Accuracy(topk=(1, 2))
    assert m.name() == ["acc_top1", "acc_top2"]
    correct = m.compute(paddle.to_tensor(SCORES), paddle.to_tensor(LABELS))
    assert correct.shape == [4, 2]
    np.testing.assert_array_equal(correct.numpy(), [[1, 0], [0, 1], [0, 0], [1, 0]])
    assert m.update(correct) == [0.5, 0.75]
    m.update(m.compute(paddle.to_tensor(SCORES[:2]), paddle.to_tensor(np.eye(3)[[1, 0]])))
    assert m.accumulate() == pytest.approx([4 / 6, 5 / 6])
    m.reset()
    assert m.accumulate() == [0.0, 0.0]
    single = paddle.metric.Accuracy()
    assert single.name() == ["acc"]
    assert single.update(single.compute(paddle.to_tensor(SCORES), paddle.to_tensor(LABELS))) \
        == 0.5


def test_precision_and_recall():
    preds = np.array([0.9, 0.2, 0.7, 0.4, 0.6])
    labels = np.array([1, 0, 0, 1, 1])
    p, r = paddle.metric.Precision(), paddle.metric.Recall()
    p.update(preds, labels)
    r.update(preds, labels)
    assert p.accumulate() == pytest.approx(2 / 3)      # tp 2 (rows 0, 4), fp 1 (row 2)
    assert r.accumulate() == pytest.approx(2 / 3)      # fn 1 (row 3)
    assert p.name() == "precision" and r.name() == "recall"
