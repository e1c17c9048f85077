"""The communicator of a job of several processes, on JAX's distributed runtime: the processes
meet at a coordinator (`jax.distributed.initialize`), and each collective is a small SPMD
computation over one device per process (gloo between CPUs, NCCL between GPUs)."""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ...runtime.collective import Communicator
from .loader import jax_modules, x64
from .spmd import AXIS, OverProcesses


class JaxCommunicator(Communicator):
    """Collectives across the processes of a job that `jax.distributed.initialize` joined."""

    spmd = True

    def __init__(self, coordinator: str, world_size: int, rank: int, local_rank: int = 0,
                 device_ids: Optional[Sequence[int]] = None, timeout: int = 300) -> None:
        jax = jax_modules().jax
        # CPUs exchange through gloo (the default CPU client has no collectives across
        # processes); GPU computations use NCCL whatever this says
        jax.config.update("jax_cpu_collectives_implementation", "gloo")
        try:
            jax.distributed.initialize(coordinator_address=coordinator,
                                       num_processes=world_size, process_id=rank,
                                       local_device_ids=device_ids,
                                       initialization_timeout=timeout)
        except RuntimeError as e:
            if any(w in str(e) for w in ("before", "already", "once")):
                raise RuntimeError(
                    "init_parallel_env() must run before anything runs on the xla backend (jax "
                    f"was already started in this process): {e}") from None
            raise RuntimeError(f"init_parallel_env(): the {world_size} processes did not meet "
                               f"at {coordinator} (rank {rank}): {e}") from None
        self.rank = rank
        self.world_size = world_size
        self.local_rank = local_rank
        self._fns: Dict[Tuple[Any, ...], OverProcesses] = {}

    def _fn(self, key: Tuple[Any, ...], body: Callable) -> OverProcesses:
        fn = self._fns.get(key)
        if fn is None:
            fn = self._fns[key] = OverProcesses(body)
        return fn

    def _run(self, key: Tuple[Any, ...], body: Callable, array: np.ndarray) -> np.ndarray:
        with x64():
            out = self._fn(key, body)(np.asarray(array))
            return np.array(out)

    def all_reduce(self, array: np.ndarray, op: str) -> np.ndarray:
        lax = jax_modules().lax
        jnp = jax_modules().jnp
        body = {"sum": lambda x: lax.psum(x, AXIS), "avg": lambda x: lax.pmean(x, AXIS),
                "max": lambda x: lax.pmax(x, AXIS), "min": lambda x: lax.pmin(x, AXIS),
                "prod": lambda x: jnp.prod(lax.all_gather(x, AXIS), axis=0)}[op]
        dtype = np.asarray(array).dtype
        if dtype == np.bool_:          # lax reduces numbers; a bool comes back as any/all
            array = np.asarray(array, np.int32)
        return self._run(("reduce", op), body, array).astype(dtype, copy=False)

    def all_gather(self, array: np.ndarray) -> List[np.ndarray]:
        lax = jax_modules().lax
        out = self._run(("gather",), lambda x: lax.all_gather(x, AXIS), array)
        return list(out)

    def broadcast(self, array: np.ndarray, src: int) -> np.ndarray:
        if not 0 <= src < self.world_size:
            raise ValueError(f"broadcast: src {src} is not a rank of this job of "
                             f"{self.world_size} processes")
        lax = jax_modules().lax
        return self._run(("broadcast", src), lambda x: lax.all_gather(x, AXIS)[src], array)

    def barrier(self) -> None:
        self.all_reduce(np.zeros((), np.int32), "sum")

    def shutdown(self) -> None:
        jax_modules().jax.distributed.shutdown()
