"""Collective ops (all-reduce, all-gather, broadcast, reduce-scatter, all-to-all across the
processes of a data-parallel job) and the communicator hook that carries them out: one process by
default, JAX's distributed runtime once `paddle.distributed.init_parallel_env` fills the hook
(dy2st/backends/xla/collectives.py)."""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from .registry import Meta, register_op

# the reductions of all_reduce, by the names the ops carry (ReduceOp maps onto them)
REDUCTIONS = ("sum", "max", "min", "prod", "avg")
# the op types; passes never fold, merge or drop them (passes/effects.py)
COLLECTIVE_OPS = frozenset(("c_allreduce", "c_allgather", "c_broadcast", "c_reducescatter",
                            "c_alltoall", "sync_batch_norm_stats"))

# the processes a collective spans, by global rank, in group order (None: every process)
Ranks = Optional[Tuple[int, ...]]


class Communicator:
    """The processes of a job and their collectives, on numpy arrays, plus a key-value store
    that point-to-point transfers go through. This one is a job of one process, where every
    collective gives its input back; the xla backend's communicator
    (dy2st/backends/xla/collectives.py) spans processes through JAX. `ranks` names the
    processes of a group (only they call); `src`/`dst` are indices into it."""

    rank = 0
    world_size = 1
    local_rank = 0
    # whether programs on the xla backend must compile their collectives across processes
    spmd = False
    # what paddle.distributed.get_backend() says
    backend = "LOCAL"

    def __init__(self) -> None:
        self._store: Dict[str, bytes] = {}
        self._numbers: Dict[str, int] = {}

    def next_number(self, channel: str) -> int:
        """0, 1, 2, ... at each call for `channel` (numbers the messages between two
        processes, so a receiver takes them in the order they were sent)."""
        n = self._numbers.get(channel, 0)
        self._numbers[channel] = n + 1
        return n

    def all_reduce(self, array: np.ndarray, op: str, ranks: Ranks = None) -> np.ndarray:
        return np.array(array, copy=True)

    def all_gather(self, array: np.ndarray, ranks: Ranks = None) -> List[np.ndarray]:
        """One array per rank, in rank order (the same shape and dtype on every rank)."""
        return [np.array(array, copy=True)]

    def broadcast(self, array: np.ndarray, src: int, ranks: Ranks = None) -> np.ndarray:
        return np.array(array, copy=True)

    def reduce_scatter(self, array: np.ndarray, op: str, ranks: Ranks = None) -> np.ndarray:
        """The reduction over the ranks of `array` (first axis: one equal chunk per rank),
        chunk `rank` of it."""
        return np.array(array, copy=True)

    def scatter(self, array: np.ndarray, src: int, ranks: Ranks = None) -> np.ndarray:
        """Chunk `rank` of rank src's `array` (the others pass any array of its shape)."""
        return np.array(array, copy=True)

    def all_to_all(self, array: np.ndarray, ranks: Ranks = None) -> np.ndarray:
        """Chunk j of the result is chunk `rank` of rank j's array (first axis: one equal chunk
        per rank)."""
        return np.array(array, copy=True)

    def barrier(self, ranks: Ranks = None) -> None:
        return None

    # the key-value store (a one-process job keeps it in memory)
    def put(self, key: str, value: bytes) -> None:
        self._store[key] = value

    def get(self, key: str, timeout: float) -> bytes:
        """The value under `key`, waiting up to `timeout` s for another process to put it."""
        if key not in self._store:
            raise TimeoutError(f"nothing was stored under {key!r}, and no other process can "
                               "store it in a job of one process")
        return self._store[key]

    def try_get(self, key: str) -> Optional[bytes]:
        return self._store.get(key)

    def delete(self, key: str) -> None:
        self._store.pop(key, None)

    def release(self, ranks: Ranks) -> None:
        """Drop what the collectives of the group `ranks` hold (shutdown_process_group)."""
        return None

    def shutdown(self) -> None:
        return None


_current: List[Communicator] = [Communicator()]


def communicator() -> Communicator:
    """The communicator of this process (a one-process job until init_parallel_env)."""
    return _current[0]


def set_communicator(comm: Communicator) -> None:
    """Install `comm` (init_parallel_env does; destroy_process_group puts back a one-process
    communicator)."""
    _current[0] = comm


def check_reduction(op: str) -> str:
    if op not in REDUCTIONS:
        raise ValueError(f"unknown reduction {op!r}; expected one of {', '.join(REDUCTIONS)}")
    return op


def reduce_stack(arrays: Sequence[np.ndarray], op: str) -> np.ndarray:
    """The reduction `op` of equal-shaped arrays (one per rank), in their dtype."""
    stacked = np.stack(arrays)
    dtype = stacked.dtype
    if op == "sum":
        out = stacked.sum(axis=0)
    elif op == "prod":
        out = stacked.prod(axis=0)
    elif op == "max":
        out = stacked.max(axis=0)
    elif op == "min":
        out = stacked.min(axis=0)
    else:
        out = stacked.sum(axis=0) / len(arrays)
    return np.asarray(out).astype(dtype, copy=False)


@register_op("c_allreduce", infer=lambda x, op: Meta(x._shape, x.dtype))
def _allreduce_kernel(x, op):
    """x reduced (sum, max, min, prod or avg) over every process of the job."""
    return communicator().all_reduce(np.asarray(x), op)


def _gather_meta(x, world_size):
    shape = tuple(x._shape)
    lead = shape[0] * world_size if shape and shape[0] >= 0 else -1
    return Meta((lead,) + shape[1:] if shape else (world_size,), x.dtype)


@register_op("c_allgather", infer=_gather_meta)
def _allgather_kernel(x, world_size):
    """Every process's x, concatenated along the first axis in rank order (a scalar per rank
    gives a vector)."""
    parts = communicator().all_gather(np.asarray(x))
    if len(parts) != world_size:
        raise RuntimeError(f"all_gather was traced for {world_size} processes but the job has "
                           f"{len(parts)}")
    return np.concatenate([np.reshape(p, (1,) + p.shape) if p.ndim == 0 else p for p in parts])


@register_op("c_broadcast", infer=lambda x, src: Meta(x._shape, x.dtype))
def _broadcast_kernel(x, src):
    """Process `src`'s x, on every process."""
    return communicator().broadcast(np.asarray(x), src)


def _chunks_meta(x, nranks):
    shape = tuple(x._shape)
    if not shape:
        raise ValueError("a collective that splits its input into one chunk per process needs "
                         "at least one axis, got a scalar")
    lead = shape[0] // nranks if shape[0] >= 0 else -1
    return Meta((lead,) + shape[1:], x.dtype)


def check_chunks(x: np.ndarray, nranks: int, what: str) -> None:
    if x.ndim == 0 or x.shape[0] % nranks:
        raise ValueError(f"{what}: the first axis ({x.shape[0] if x.ndim else 'a scalar'}) "
                         f"must split into {nranks} equal chunks, one per process")


@register_op("c_reducescatter", infer=lambda x, op, nranks: _chunks_meta(x, nranks))
def _reducescatter_kernel(x, op, nranks):
    """x reduced over every process (first axis: one chunk per process), this process's
    chunk."""
    x = np.asarray(x)
    check_chunks(x, nranks, "reduce_scatter")
    return communicator().reduce_scatter(x, op)


@register_op("c_alltoall", infer=lambda x, nranks: Meta(x._shape, x.dtype))
def _alltoall_kernel(x, nranks):
    """Chunk j of the result is chunk `rank` of process j's x."""
    x = np.asarray(x)
    check_chunks(x, nranks, "alltoall")
    return communicator().all_to_all(x)


def _sync_stats_meta(x, axis):
    c = x._shape[axis]
    return Meta((c,), x.dtype), Meta((c,), x.dtype), Meta((), x.dtype)


@register_op("sync_batch_norm_stats", infer=_sync_stats_meta, n_outputs=3)
def _sync_batch_norm_stats_kernel(x, axis):
    """SyncBatchNorm's statistics: the per-channel mean and biased variance over every axis but
    `axis` of the batches of every process (one all-reduce of their sums, sums of squares and
    counts), and the number of values per channel over the job."""
    x = np.asarray(x)
    axes = tuple(i for i in range(x.ndim) if i != axis)
    # in double: the variance is E[x^2] - mean^2 of sums over the whole job
    wide = x.astype(np.float64)
    local = np.concatenate([wide.sum(axis=axes), np.square(wide).sum(axis=axes),
                            [x.size // max(x.shape[axis], 1)]])
    total = communicator().all_reduce(local, "sum")
    c = x.shape[axis]
    count = total[-1]
    mean = total[:c] / count
    var = np.maximum(total[c:2 * c] / count - np.square(mean), 0.0)
    return mean.astype(x.dtype), var.astype(x.dtype), np.asarray(count, x.dtype)
