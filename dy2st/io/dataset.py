"""Datasets (Paddle's paddle.io): the map-style and iterable bases, TensorDataset, Subset,
ComposeDataset, ChainDataset and random_split."""
from __future__ import annotations

import math
from typing import Any, Iterator, List, Sequence

import numpy as np

from ..runtime import config


class Dataset:
    """A map-style dataset: subclasses define __getitem__(idx) and __len__()."""

    def __getitem__(self, idx: int) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__")

    def __len__(self) -> int:
        raise NotImplementedError(f"{type(self).__name__} must define __len__")


class IterableDataset(Dataset):
    """A dataset read as a stream: subclasses define __iter__()."""

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")

    def __getitem__(self, idx: int) -> Any:
        raise RuntimeError(f"{type(self).__name__} is an IterableDataset: it is iterated, "
                           "not indexed")

    def __len__(self) -> int:
        raise RuntimeError(f"{type(self).__name__} is an IterableDataset and has no length")


class TensorDataset(Dataset):
    """Samples are the rows of each tensor (all with the same first dim)."""

    def __init__(self, tensors: Sequence[Any]) -> None:
        tensors = list(tensors)
        if not tensors:
            raise ValueError("TensorDataset: tensors is empty")
        n = tensors[0].shape[0]
        for k, t in enumerate(tensors):
            if t.shape[0] != n:
                raise ValueError(f"TensorDataset: tensor {k} has {t.shape[0]} rows, tensor 0 "
                                 f"has {n}")
        self.tensors = tensors

    def __getitem__(self, index: int) -> List[Any]:
        return [t[index] for t in self.tensors]

    def __len__(self) -> int:
        return int(self.tensors[0].shape[0])


class ComposeDataset(Dataset):
    """Sample i is the fields of sample i of every dataset, joined into one tuple."""

    def __init__(self, datasets: Sequence[Dataset]) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("ComposeDataset: datasets is empty")
        n = len(self.datasets[0])
        for k, d in enumerate(self.datasets):
            if isinstance(d, IterableDataset):
                raise TypeError("ComposeDataset: datasets must be map-style, not iterable")
            if len(d) != n:
                raise ValueError(f"ComposeDataset: dataset {k} has {len(d)} samples, dataset 0 "
                                 f"has {n}")

    def __len__(self) -> int:
        return len(self.datasets[0])

    def __getitem__(self, idx: int) -> tuple:
        fields: List[Any] = []
        for d in self.datasets:
            sample = d[idx]
            fields.extend(sample if isinstance(sample, (list, tuple)) else [sample])
        return tuple(fields)


class ChainDataset(IterableDataset):
    """The iterable datasets read one after another."""

    def __init__(self, datasets: Sequence[IterableDataset]) -> None:
        self.datasets = list(datasets)

    def __iter__(self) -> Iterator[Any]:
        for d in self.datasets:
            yield from d


class ConcatDataset(Dataset):
    """The map-style datasets one after another, indexed as one."""

    def __init__(self, datasets: Sequence[Dataset]) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("ConcatDataset: datasets is empty")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise TypeError("ConcatDataset: datasets must be map-style, not iterable")
        self.cumulative_sizes = list(np.cumsum([len(d) for d in self.datasets]))

    def __len__(self) -> int:
        return int(self.cumulative_sizes[-1])

    def __getitem__(self, idx: int) -> Any:
        n = len(self)
        if idx < 0:
            idx += n
        if not 0 <= idx < n:
            raise IndexError(f"ConcatDataset: index {idx} out of range for {n} samples")
        k = int(np.searchsorted(self.cumulative_sizes, idx, side="right"))
        start = 0 if k == 0 else int(self.cumulative_sizes[k - 1])
        return self.datasets[k][idx - start]


class Subset(Dataset):
    """The samples of `dataset` at `indices`, in that order."""

    def __init__(self, dataset: Dataset, indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = list(indices)

    def __getitem__(self, idx: int) -> Any:
        return self.dataset[self.indices[idx]]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(dataset: Dataset, lengths: Sequence[Any], generator: Any = None) -> List[Subset]:
    """Disjoint random Subsets of the given lengths (or fractions summing to 1)."""
    n = len(dataset)
    lengths = list(lengths)
    if lengths and all(isinstance(v, float) for v in lengths) and math.isclose(sum(lengths), 1.0):
        sizes = [int(math.floor(n * f)) for f in lengths]
        for k in range(n - sum(sizes)):         # the remainder, one each, round robin
            sizes[k % len(sizes)] += 1
        lengths = sizes
    if sum(lengths) != n:
        raise ValueError(f"random_split: the lengths {lengths} do not add up to the dataset's "
                         f"{n} samples")
    order = _permutation(n, generator)
    out, start = [], 0
    for size in lengths:
        out.append(Subset(dataset, order[start:start + size].tolist()))
        start += size
    return out


def _permutation(n: int, generator: Any = None) -> np.ndarray:
    rng = generator if isinstance(generator, np.random.Generator) else config.rng()
    return rng.permutation(n)
