"""`paddle.io.DistributedBatchSampler`: each process of a data-parallel job reads its own share
of the dataset, with Paddle's index semantics (so a job moved between Paddle and dy2st sees the
same samples on each rank)."""
from __future__ import annotations

import math
from typing import Any, Iterator, List, Optional

import numpy as np

from ..distributed.env import ParallelEnv
from .sampler import BatchSampler


class DistributedBatchSampler(BatchSampler):
    """Batches of `batch_size` indices for process `rank` of `num_replicas` (both read from the
    job's environment when None).

    - The index list 0..len(dataset)-1 is padded to a multiple of `num_replicas` by repeating it
      from the start, so every rank has `num_samples = ceil(len / num_replicas)` indices.
    - `shuffle=True` shuffles the padded list with numpy's RandomState(epoch), the same on every
      rank; each pass over the sampler then moves to the next epoch, and `set_epoch(e)` picks it.
    - Rank r takes the r-th run of `batch_size` indices out of every `batch_size * num_replicas`,
      and its equal part of what is left at the end; the ranks' shares are disjoint and cover
      the dataset (the padding repeats a few indices).
    - `drop_last=True` drops each rank's last batch when it is short."""

    def __init__(self, dataset: Any, batch_size: int, num_replicas: Optional[int] = None,
                 rank: Optional[int] = None, shuffle: bool = False,
                 drop_last: bool = False) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"DistributedBatchSampler: batch_size must be a positive int, got "
                             f"{batch_size!r}")
        if not isinstance(shuffle, bool):
            raise TypeError(f"DistributedBatchSampler: shuffle must be a bool, got {shuffle!r}")
        if not isinstance(drop_last, bool):
            raise TypeError(f"DistributedBatchSampler: drop_last must be a bool, got "
                            f"{drop_last!r}")
        if num_replicas is not None and (not isinstance(num_replicas, int) or num_replicas <= 0):
            raise ValueError(f"DistributedBatchSampler: num_replicas must be a positive int, got "
                             f"{num_replicas!r}")
        if rank is not None and (not isinstance(rank, int) or rank < 0):
            raise ValueError(f"DistributedBatchSampler: rank must be a non-negative int, got "
                             f"{rank!r}")
        env = ParallelEnv()
        self.nranks = num_replicas if num_replicas is not None else env.nranks
        self.local_rank = rank if rank is not None else env.local_rank
        if self.local_rank >= self.nranks:
            raise ValueError(f"DistributedBatchSampler: rank {self.local_rank} is not below "
                             f"num_replicas {self.nranks}")
        self.dataset = dataset
        self.data_source = dataset
        self.sampler = None
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.drop_last = drop_last
        self.epoch = 0
        self.num_samples = int(math.ceil(len(dataset) / self.nranks))
        self.total_size = self.num_samples * self.nranks

    def indices(self) -> List[int]:
        """This rank's indices for the current epoch, in order (without moving to the next)."""
        n = len(self.dataset)
        if n == 0:
            return []
        order = np.resize(np.arange(n), self.total_size)       # padded by wrapping around
        if self.shuffle:
            np.random.RandomState(self.epoch).shuffle(order)
        if self.nranks == 1:
            return order.tolist()
        step = self.batch_size * self.nranks
        tail = self.total_size % step
        full = order[:self.total_size - tail].reshape(-1, self.nranks, self.batch_size)
        size = tail // self.nranks                               # each rank's part of the rest
        rest = order[self.total_size - tail:][self.local_rank * size:(self.local_rank + 1) * size]
        return full[:, self.local_rank, :].reshape(-1).tolist() + rest.tolist()

    def __iter__(self) -> Iterator[List[int]]:
        indices = self.indices()
        if self.shuffle:
            self.epoch += 1
        for start in range(0, len(indices), self.batch_size):
            batch = indices[start:start + self.batch_size]
            if len(batch) == self.batch_size or not self.drop_last:
                yield batch

    def __len__(self) -> int:
        if self.drop_last:
            return self.num_samples // self.batch_size
        return -(-self.num_samples // self.batch_size)

    def set_epoch(self, epoch: int) -> None:
        """Shuffle with `epoch` as the seed on the next pass (every rank must set the same)."""
        self.epoch = epoch
