"""accuracy (an op composition, usable in static programs) and the stateful Metric classes that
accumulate over batches on the host, as Paddle's do."""
from __future__ import annotations

from typing import Any, List, Sequence, Union

import numpy as np

from ..runtime import ops
from ..runtime.ops.dims import dims


def _label_column(label: Any) -> Any:
    return ops.reshape(label, [-1, 1])


def accuracy(input: Any, label: Any, k: int = 1, correct: Any = None, total: Any = None,
             name: Any = None) -> Any:
    """The fraction of rows whose label is among the k highest scores of `input` ([N, C]
    scores, [N] or [N, 1] int labels); a float32 0-D tensor."""
    if len(dims(input)) != 2:
        raise ValueError(f"accuracy: input must be [N, C] scores, got shape {list(dims(input))}")
    _, top = ops.topk(input, k)
    hit = ops.any(ops.equal(top, ops.cast(_label_column(label), top.dtype)), axis=1)
    n_correct = ops.sum(ops.cast(hit, "int64"))
    n_total = ops.numel(hit) if hasattr(hit, "_shape") else ops.to_tensor(hit.shape[0], "int64")
    acc = ops.divide(ops.cast(n_correct, "float32"), ops.cast(n_total, "float32"))
    if correct is not None and hasattr(correct, "_value") and not hasattr(correct, "_shape"):
        correct._value = np.asarray(n_correct.numpy()).astype(correct._value.dtype)
    if total is not None and hasattr(total, "_value") and not hasattr(total, "_shape"):
        total._value = np.asarray(n_total.numpy()).astype(total._value.dtype)
    return acc


def to_numpy(x: Any) -> np.ndarray:
    return np.asarray(x.numpy() if hasattr(x, "numpy") else x)


class Metric:
    """Base class: reset(), update(*args), accumulate(), name(); compute() maps a batch's model
    outputs to update()'s arguments (the outputs themselves by default)."""

    def reset(self) -> None:
        raise NotImplementedError(f"{type(self).__name__} must define reset")

    def update(self, *args: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define update")

    def accumulate(self) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define accumulate")

    def name(self) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define name")

    def compute(self, *args: Any) -> Any:
        return args


class Accuracy(Metric):
    """Top-k accuracy over the batches seen since reset()."""

    def __init__(self, topk: Union[int, Sequence[int]] = (1,), name: Any = None, *args: Any,
                 **kwargs: Any) -> None:
        self.topk = (topk,) if isinstance(topk, int) else tuple(topk)
        if not self.topk or any(k <= 0 for k in self.topk):
            raise ValueError(f"Accuracy: topk must be positive ints, got {topk!r}")
        self.maxk = max(self.topk)
        base = name or "acc"
        self._names = [f"{base}_top{k}" for k in self.topk] if len(self.topk) > 1 else [base]
        self.reset()

    def compute(self, pred: Any, label: Any, *args: Any) -> Any:
        """A float32 [N, maxk] tensor: 1 where the j-th highest score is the label."""
        order = ops.argsort(pred, axis=-1, descending=True)
        nd = len(dims(order))
        top = ops.slice(order, [nd - 1], [0], [self.maxk])
        ld = dims(label)
        if len(ld) == 1 or (len(ld) == 2 and ld[-1] == 1):
            label = _label_column(label)
        else:
            label = ops.argmax(label, axis=-1, keepdim=True)     # one-hot labels
        return ops.cast(ops.equal(top, ops.cast(label, top.dtype)), "float32")

    def update(self, correct: Any, *args: Any) -> Any:
        c = to_numpy(correct)
        n = int(np.prod(c.shape[:-1]))
        accs = []
        for i, k in enumerate(self.topk):
            hits = float(c[..., :k].sum())
            accs.append(hits / n if n else 0.0)
            self.total[i] += hits
            self.count[i] += n
        return accs[0] if len(self.topk) == 1 else accs

    def reset(self) -> None:
        self.total = [0.0] * len(self.topk)
        self.count = [0] * len(self.topk)

    def accumulate(self) -> Any:
        res = [t / c if c else 0.0 for t, c in zip(self.total, self.count)]
        return res[0] if len(self.topk) == 1 else res

    def name(self) -> List[str]:
        return list(self._names)


class _BinaryCounts(Metric):
    def __init__(self, name: str) -> None:
        self._name = name
        self.reset()

    def reset(self) -> None:
        self.tp = 0
        self.fp = 0
        self.fn = 0

    def update(self, preds: Any, labels: Any) -> None:
        p = np.rint(to_numpy(preds)).astype(np.int64).reshape(-1)
        y = to_numpy(labels).astype(np.int64).reshape(-1)
        if p.shape != y.shape:
            raise ValueError(f"{type(self).__name__}: {p.size} predictions for {y.size} labels")
        self.tp += int(((p == 1) & (y == 1)).sum())
        self.fp += int(((p == 1) & (y == 0)).sum())
        self.fn += int(((p == 0) & (y == 1)).sum())

    def name(self) -> str:
        return self._name


class Precision(_BinaryCounts):
    """tp / (tp + fp) of binary predictions (probabilities are rounded)."""

    def __init__(self, name: str = "precision", *args: Any, **kwargs: Any) -> None:
        super().__init__(name)

    def accumulate(self) -> float:
        return _share(self.tp, self.fp)


class Recall(_BinaryCounts):
    """tp / (tp + fn) of binary predictions (probabilities are rounded)."""

    def __init__(self, name: str = "recall", *args: Any, **kwargs: Any) -> None:
        super().__init__(name)

    def accumulate(self) -> float:
        return _share(self.tp, self.fn)


def _share(hits: int, misses: int) -> float:
    return float(hits) / (hits + misses) if hits + misses else 0.0
