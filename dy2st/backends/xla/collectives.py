"""The communicator of a job of several processes, on JAX's distributed runtime.

The processes meet at a coordinator (`jax.distributed.initialize`), each collective is a small SPMD
computation over one device per process of its group (gloo between CPUs, NCCL between GPUs), and
point-to-point transfers go through the coordinator's key-value store."""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ...runtime.collective import Communicator, Ranks, reduce_stack
from . import coordination
from .device import current_device
from .loader import jax_modules, x64
from .spmd import AXIS, OverProcesses

HOLDER = "init_parallel_env"


def _numeric(array: np.ndarray) -> np.ndarray:
    # lax reduces numbers; a bool goes through as int32 and comes back as any/all
    array = np.asarray(array)
    return array.astype(np.int32) if array.dtype == np.bool_ else array


class JaxCommunicator(Communicator):
    """Collectives across the processes of a job that `jax.distributed.initialize` joined."""

    spmd = True

    def __init__(self, coordinator: str, world_size: int, rank: int, local_rank: int = 0,
                 device_ids: Optional[Sequence[int]] = None, timeout: int = 300) -> None:
        super().__init__()
        coordination.join(HOLDER, coordinator, world_size, rank, device_ids, timeout)
        self.rank = rank
        self.world_size = world_size
        self.local_rank = local_rank
        self.timeout = timeout
        self._fns: Dict[Tuple[Any, ...], OverProcesses] = {}

    @property
    def backend(self) -> str:
        return "NCCL" if current_device().platform == "gpu" else "GLOO"

    def _run(self, key: Tuple[Any, ...], body: Callable, array: np.ndarray,
             ranks: Ranks) -> np.ndarray:
        key = key + (ranks,)
        fn = self._fns.get(key)
        if fn is None:
            fn = self._fns[key] = OverProcesses(body, ranks)
        with x64():
            return np.array(fn(np.asarray(array)))

    def _size(self, ranks: Ranks) -> int:
        return self.world_size if ranks is None else len(ranks)

    # Four compiled programs (per group, shape and dtype) carry every collective: a reduction
    # (psum / pmax / pmin / pmean), an all-gather, a reduce-scatter of sums and an all-to-all;
    # the rest is done on the host, so a job compiles few programs
    def all_reduce(self, array: np.ndarray, op: str, ranks: Ranks = None) -> np.ndarray:
        dtype = np.asarray(array).dtype
        if op == "prod":            # lax has no product across processes
            return reduce_stack(self.all_gather(array, ranks), op)
        lax = jax_modules().lax
        reduce = {"sum": lax.psum, "avg": lax.pmean, "max": lax.pmax, "min": lax.pmin}[op]
        out = self._run(("reduce", op), lambda x: reduce(x, AXIS), _numeric(array), ranks)
        return out.astype(dtype, copy=False)

    def all_gather(self, array: np.ndarray, ranks: Ranks = None) -> List[np.ndarray]:
        lax = jax_modules().lax
        return list(self._run(("gather",), lambda x: lax.all_gather(x, AXIS), array, ranks))

    def broadcast(self, array: np.ndarray, src: int, ranks: Ranks = None) -> np.ndarray:
        n = self._size(ranks)
        if not 0 <= src < n:
            raise ValueError(f"broadcast: src {src} is not a rank of a group of {n} processes")
        return self.all_gather(array, ranks)[src]

    def reduce_scatter(self, array: np.ndarray, op: str, ranks: Ranks = None) -> np.ndarray:
        array = np.asarray(array)
        n, dtype = self._size(ranks), array.dtype
        if op not in ("sum", "avg"):
            whole = reduce_stack(self.all_gather(array, ranks), op)
            return np.split(whole, n)[self._index(ranks)]
        lax = jax_modules().lax
        out = self._run(("reduce_scatter",),
                        lambda x: lax.psum_scatter(x, AXIS, scatter_dimension=0, tiled=True),
                        _numeric(array), ranks)
        return (out / n if op == "avg" else out).astype(dtype, copy=False)

    def scatter(self, array: np.ndarray, src: int, ranks: Ranks = None) -> np.ndarray:
        # chunk j of src's array goes to j: chunk src of what the all-to-all brings here
        # (exact: no arithmetic on the values)
        return np.split(self.all_to_all(array, ranks), self._size(ranks))[src]

    def all_to_all(self, array: np.ndarray, ranks: Ranks = None) -> np.ndarray:
        lax = jax_modules().lax
        return self._run(("all_to_all",), lambda x: lax.all_to_all(x, AXIS, 0, 0, tiled=True),
                         array, ranks)

    def _index(self, ranks: Ranks) -> int:
        return self.rank if ranks is None else list(ranks).index(self.rank)

    def barrier(self, ranks: Ranks = None) -> None:
        self.all_reduce(np.zeros((), np.int32), "sum", ranks)

    def put(self, key: str, value: bytes) -> None:
        coordination.put(key, value)

    def get(self, key: str, timeout: float) -> bytes:
        return coordination.get(key, timeout)

    def try_get(self, key: str) -> Optional[bytes]:
        return coordination.try_get(key)

    def delete(self, key: str) -> None:
        coordination.delete(key)

    def release(self, ranks: Ranks) -> None:
        for key in [k for k in self._fns if k[-1] == ranks]:
            del self._fns[key]

    def shutdown(self) -> None:
        self._fns.clear()
        coordination.leave(HOLDER)
