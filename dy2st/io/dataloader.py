"""paddle.io.DataLoader (single process) and its default collate function."""
from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from typing import Any, Callable, Iterator, List, Optional

import numpy as np

from ..runtime.tensor import Tensor
from .dataset import IterableDataset
from .sampler import BatchSampler, Sampler


def default_collate_fn(batch: List[Any]) -> Any:
    """Samples to one batch: tensors and arrays are stacked into a Tensor (new dim 0), numbers
    become a Tensor, strings stay a list, and dicts / lists / tuples are collated field by
    field."""
    first = batch[0]
    if isinstance(first, Tensor):
        return Tensor(np.stack([t.numpy() for t in batch]))
    if isinstance(first, np.ndarray):
        return Tensor(np.stack(batch))
    if isinstance(first, (bool, np.bool_)):
        return Tensor(np.array(batch, dtype=np.bool_))
    if isinstance(first, numbers.Number):
        return Tensor(np.array(batch))
    if isinstance(first, (str, bytes)):
        return list(batch)
    if isinstance(first, Mapping):
        return {key: default_collate_fn([s[key] for s in batch]) for key in first}
    if isinstance(first, Sequence):
        sizes = {len(s) for s in batch}
        if len(sizes) != 1:
            raise ValueError(f"default_collate_fn: the samples have different numbers of fields "
                             f"({sorted(sizes)})")
        return [default_collate_fn(list(fields)) for fields in zip(*batch)]
    raise TypeError(f"default_collate_fn: cannot batch samples of type {type(first).__name__} "
                    "(give DataLoader a collate_fn)")


def default_convert_fn(batch: Any) -> Any:
    """A sample read without batching: arrays and numbers become Tensors, containers keep their
    structure."""
    if isinstance(batch, Tensor):
        return batch
    if isinstance(batch, (np.ndarray, np.generic)):
        return Tensor(np.asarray(batch))
    if isinstance(batch, Mapping):
        return {k: default_convert_fn(v) for k, v in batch.items()}
    if isinstance(batch, Sequence) and not isinstance(batch, (str, bytes)):
        return [default_convert_fn(v) for v in batch]
    return batch


def get_worker_info() -> None:
    """Information about the current loader worker: None, as data is read in this process."""
    return None


class DataLoader:
    """Batches of samples from `dataset`, read in this process (num_workers is accepted and the
    samples are read in order in the main process)."""

    def __init__(self, dataset: Any, feed_list: Any = None, places: Any = None,
                 return_list: bool = True, batch_sampler: Optional[Sampler] = None,
                 batch_size: Optional[int] = 1, shuffle: bool = False, drop_last: bool = False,
                 collate_fn: Optional[Callable[[List[Any]], Any]] = None, num_workers: int = 0,
                 use_buffer_reader: bool = True, prefetch_factor: int = 2,
                 use_shared_memory: bool = True, timeout: int = 0,
                 worker_init_fn: Optional[Callable[[int], None]] = None,
                 persistent_workers: bool = False) -> None:
        if not isinstance(num_workers, int) or num_workers < 0:
            raise ValueError(f"DataLoader: num_workers must be an int >= 0, got {num_workers!r}")
        self.dataset = dataset
        self.return_list = return_list
        self.collate_fn = collate_fn
        self.num_workers = num_workers
        self.drop_last = drop_last
        self._iterable = isinstance(dataset, IterableDataset)
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or drop_last:
                raise ValueError("DataLoader: batch_sampler is mutually exclusive with "
                                 "batch_size, shuffle and drop_last")
            if self._iterable:
                raise ValueError("DataLoader: an IterableDataset takes no batch_sampler")
            self.batch_sampler: Optional[Sampler] = batch_sampler
            self.batch_size = getattr(batch_sampler, "batch_size", None)
        elif batch_size is None:
            self.batch_sampler, self.batch_size = None, None
        else:
            if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
                raise ValueError(f"DataLoader: batch_size must be a positive int or None, got "
                                 f"{batch_size!r}")
            if self._iterable:
                if shuffle:
                    raise ValueError("DataLoader: an IterableDataset cannot be shuffled")
                self.batch_sampler = None
            else:
                self.batch_sampler = BatchSampler(dataset, shuffle=shuffle, batch_size=batch_size,
                                                  drop_last=drop_last)
            self.batch_size = batch_size

    def _collate(self, samples: List[Any]) -> Any:
        return (self.collate_fn or default_collate_fn)(samples)

    def _convert(self, sample: Any) -> Any:
        return self.collate_fn(sample) if self.collate_fn else default_convert_fn(sample)

    def __iter__(self) -> Iterator[Any]:
        if self._iterable:
            return self._iter_stream()
        return self._iter_indexed()

    def _iter_indexed(self) -> Iterator[Any]:
        if self.batch_sampler is None:
            for k in range(len(self.dataset)):
                yield self._convert(self.dataset[k])
            return
        for indices in self.batch_sampler:
            yield self._collate([self.dataset[k] for k in indices])

    def _iter_stream(self) -> Iterator[Any]:
        if self.batch_size is None:
            for sample in self.dataset:
                yield self._convert(sample)
            return
        batch: List[Any] = []
        for sample in self.dataset:
            batch.append(sample)
            if len(batch) == self.batch_size:
                yield self._collate(batch)
                batch = []
        if batch and not self.drop_last:
            yield self._collate(batch)

    def __call__(self) -> Iterator[Any]:
        return iter(self)

    def __len__(self) -> int:
        if self._iterable:
            raise TypeError("DataLoader over an IterableDataset has no length")
        if self.batch_sampler is None:
            return len(self.dataset)
        return len(self.batch_sampler)
