"""Collective ops (all-reduce, all-gather, broadcast across the processes of a data-parallel job)
and the communicator hook that carries them out: one process by default, JAX's distributed runtime
once `paddle.distributed.init_parallel_env` fills the hook (dy2st/backends/xla/collectives.py)."""
from __future__ import annotations

from typing import List, Sequence

import numpy as np

from .registry import Meta, register_op

# the reductions of all_reduce, by the names the ops carry (ReduceOp maps onto them)
REDUCTIONS = ("sum", "max", "min", "prod", "avg")
# the op types; passes never fold, merge or drop them (passes/effects.py)
COLLECTIVE_OPS = frozenset(("c_allreduce", "c_allgather", "c_broadcast"))


class Communicator:
    """The processes of a job and their collectives, on numpy arrays. This one is a job of one
    process, where every collective gives its input back; the xla backend's communicator
    (dy2st/backends/xla/collectives.py) spans processes through JAX."""

    rank = 0
    world_size = 1
    local_rank = 0
    # whether programs on the xla backend must compile their collectives across processes
    spmd = False

    def all_reduce(self, array: np.ndarray, op: str) -> np.ndarray:
        return np.array(array, copy=True)

    def all_gather(self, array: np.ndarray) -> List[np.ndarray]:
        """One array per rank, in rank order (the same shape and dtype on every rank)."""
        return [np.array(array, copy=True)]

    def broadcast(self, array: np.ndarray, src: int) -> np.ndarray:
        return np.array(array, copy=True)

    def barrier(self) -> None:
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
