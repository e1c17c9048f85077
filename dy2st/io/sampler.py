"""Samplers (Paddle's paddle.io): which dataset indices are read, in what order and batches."""
from __future__ import annotations

from typing import Any, Iterator, List, Optional, Sequence

import numpy as np

from ..runtime import config


def _rng(generator: Any) -> np.random.Generator:
    return generator if isinstance(generator, np.random.Generator) else config.rng()


class Sampler:
    """Base class: iterating yields dataset indices."""

    def __init__(self, data_source: Any = None) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")


class SequenceSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random permutation of the indices (or num_samples draws with replacement)."""

    def __init__(self, data_source: Any, replacement: bool = False,
                 num_samples: Optional[int] = None, generator: Any = None) -> None:
        super().__init__(data_source)
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if num_samples is not None and not replacement:
            raise ValueError("RandomSampler: num_samples can only be given with "
                             "replacement=True")
        if num_samples is not None and num_samples <= 0:
            raise ValueError(f"RandomSampler: num_samples must be positive, got {num_samples}")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        rng = _rng(self.generator)
        if self.replacement:
            return iter(rng.integers(0, n, self.num_samples).tolist())
        return iter(rng.permutation(n).tolist())

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order."""

    def __init__(self, indices: Sequence[int], generator: Any = None) -> None:
        super().__init__(None)
        self.indices = list(indices)
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        order = _rng(self.generator).permutation(len(self.indices))
        return iter([self.indices[k] for k in order])

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """num_samples indices drawn with probabilities proportional to `weights`."""

    def __init__(self, weights: Sequence[float], num_samples: int, replacement: bool = True
                 ) -> None:
        super().__init__(None)
        w = np.asarray(weights.numpy() if hasattr(weights, "numpy") else weights, dtype=np.float64)
        if w.ndim != 1 or (w < 0).any() or w.sum() <= 0:
            raise ValueError("WeightedRandomSampler: weights must be 1-D, non-negative and not "
                             "all zero")
        if not replacement and num_samples > len(w):
            raise ValueError("WeightedRandomSampler: num_samples exceeds the number of weights "
                             "without replacement")
        self.weights, self.num_samples, self.replacement = w, int(num_samples), replacement

    def __iter__(self) -> Iterator[int]:
        p = self.weights / self.weights.sum()
        return iter(config.rng().choice(len(p), self.num_samples, self.replacement, p).tolist())

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Lists of batch_size indices from `sampler` (or from a Sequence/RandomSampler over
    `dataset`, shuffle choosing which); drop_last drops a short final batch."""

    def __init__(self, dataset: Any = None, sampler: Optional[Sampler] = None,
                 shuffle: bool = False, batch_size: int = 1, drop_last: bool = False) -> None:
        if (dataset is None) == (sampler is None):
            raise ValueError("BatchSampler: give exactly one of dataset and sampler")
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"BatchSampler: batch_size must be a positive int, got {batch_size!r}")
        if sampler is not None and shuffle:
            raise ValueError("BatchSampler: shuffle applies to a dataset; a given sampler "
                             "decides its own order")
        if sampler is None:
            sampler = RandomSampler(dataset) if shuffle else SequenceSampler(dataset)
        super().__init__(dataset)
        self.sampler, self.shuffle = sampler, shuffle
        self.batch_size, self.drop_last = batch_size, drop_last

    def __iter__(self) -> Iterator[List[int]]:
        batch: List[int] = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
