"""Joining JAX's distributed runtime, and its coordination service's key-value store and barriers
(the processes' meeting point: point-to-point transfers and gloo_barrier go through it, no
devices involved)."""
from __future__ import annotations

from typing import Any, List, Optional, Sequence

from .loader import jax_modules

# who joined the runtime: "init_parallel_env" and/or "gloo" (the runtime is left when both left)
_holders: List[str] = []


def _state() -> Any:
    # jax (optional, loaded with the runtime) has no public accessor for the service's client
    from jax._src import distributed
    return distributed.global_state


def _joined(jax: Any) -> bool:
    # jax.distributed.is_initialized came in jax 0.4.31; 0.4.30 (the newest for Python 3.9)
    # shows a joined process by the client it keeps
    is_initialized = getattr(jax.distributed, "is_initialized", None)
    return is_initialized() if is_initialized is not None else _state().client is not None


def join(holder: str, coordinator: str, world_size: int, rank: int,
         device_ids: Optional[Sequence[int]] = None, timeout: int = 300) -> None:
    """Join the runtime as process `rank` of `world_size` meeting at `coordinator` (host:port),
    or share it when this process joined it already as that same process."""
    jax = jax_modules().jax
    if _joined(jax):
        state = _state()
        if (state.process_id, state.num_processes) != (rank, world_size):
            raise RuntimeError(
                f"this process already joined a job as rank {state.process_id} of "
                f"{state.num_processes}; it cannot join again as rank {rank} of {world_size}")
        if holder not in _holders:
            _holders.append(holder)
        return
    # CPUs exchange through gloo (the default CPU client has no collectives across processes);
    # GPU computations use NCCL whatever this says
    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    try:
        jax.distributed.initialize(coordinator_address=coordinator, num_processes=world_size,
                                   process_id=rank, local_device_ids=device_ids,
                                   initialization_timeout=timeout)
    except RuntimeError as e:
        if any(w in str(e) for w in ("before", "already", "once")):
            raise RuntimeError(
                "init_parallel_env() must run before anything runs on the xla backend (jax "
                f"was already started in this process): {e}") from None
        raise RuntimeError(f"the {world_size} processes did not meet at {coordinator} "
                           f"(rank {rank}): {e}") from None
    _holders.append(holder)


def leave(holder: str) -> None:
    """`holder` is done with the runtime; the last one to leave shuts it down."""
    if holder in _holders:
        _holders.remove(holder)
        if not _holders:
            jax_modules().jax.distributed.shutdown()


def client() -> Any:
    c = _state().client
    if c is None:
        raise RuntimeError("this process has not joined a job (init_parallel_env)")
    return c


def put(key: str, value: bytes) -> None:
    client().key_value_set_bytes(key, value)


def get(key: str, timeout: float) -> bytes:
    """The value under `key`, waiting up to `timeout` s for a process to put it."""
    try:
        return client().blocking_key_value_get_bytes(key, int(timeout * 1000))
    except Exception as e:  # noqa: BLE001 - jax raises its own XlaRuntimeError type
        if "DEADLINE" in str(e).upper() or "timed out" in str(e).lower():
            raise TimeoutError(f"no process stored {key!r} within {timeout:g} s") from None
        raise


def try_get(key: str) -> Optional[bytes]:
    try:
        return client().key_value_try_get_bytes(key)
    except Exception as e:  # noqa: BLE001 - jax raises its own XlaRuntimeError type
        if "NOT_FOUND" in str(e).upper() or "not found" in str(e).lower():
            return None
        raise


def delete(key: str) -> None:
    client().key_value_delete(key)


def barrier(name: str, timeout: float) -> None:
    """Wait until every process of the job reached the barrier `name`."""
    client().wait_at_barrier(name, int(timeout * 1000))
