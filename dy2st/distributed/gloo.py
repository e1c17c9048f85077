"""paddle.distributed's CPU barrier context: `gloo_init_parallel_env(rank_id, rank_num,
server_endpoint)`, `gloo_barrier()`, `gloo_release()`.

The processes meet at server_endpoint through JAX's distributed runtime, and the barrier is its
coordination service's barrier (no device, no tensor). A process that joined the job already
(init_parallel_env) as that rank shares it."""
from __future__ import annotations

import importlib
import importlib.util
from typing import Any, List, Optional

from .env import env_timeout_seconds
from .group import XLA_HINT

HOLDER = "gloo"
# the joined context: [coordination module, barriers passed (never reset: barrier names of a
# runtime are used once)]
_context: List[Optional[Any]] = [None, 0]


def gloo_init_parallel_env(rank_id: int, rank_num: int, server_endpoint: str) -> None:
    """Join the CPU context of `rank_num` processes (this one is `rank_id`) meeting at
    `server_endpoint` ("host:port"; rank 0 serves it). Every process of it calls this."""
    if not isinstance(rank_num, int) or rank_num < 2:
        raise ValueError(f"gloo_init_parallel_env: rank_num should be at least 2, got "
                         f"{rank_num!r}")
    if not isinstance(rank_id, int) or not 0 <= rank_id < rank_num:
        raise ValueError(f"gloo_init_parallel_env: rank_id {rank_id!r} is not a rank of "
                         f"0..{rank_num - 1}")
    if not isinstance(server_endpoint, str) or ":" not in server_endpoint:
        raise ValueError(f"gloo_init_parallel_env: server_endpoint must be 'host:port', got "
                         f"{server_endpoint!r}")
    if importlib.util.find_spec("jax") is None:
        raise ImportError(f"gloo_init_parallel_env: the processes meet through JAX's "
                          f"distributed runtime, and jax is not installed: {XLA_HINT}")
    if _context[0] is not None:
        return
    # loaded here only: a job of several processes is the one user of jax's distributed runtime
    coordination = importlib.import_module("dy2st.backends.xla.coordination")
    coordination.join(HOLDER, server_endpoint, rank_num, rank_id, None, env_timeout_seconds())
    _context[0] = coordination


def gloo_barrier() -> None:
    """Wait until every process of the context reaches this call."""
    coordination = _context[0]
    if coordination is None:
        raise RuntimeError("gloo_barrier: the gloo context is not initialized; call "
                           "paddle.distributed.gloo_init_parallel_env first")
    _context[1] += 1
    coordination.barrier(f"dy2st/gloo/{_context[1]}", env_timeout_seconds())


def gloo_release() -> None:
    """Leave the context (the runtime shuts down unless init_parallel_env uses it too)."""
    coordination = _context[0]
    if coordination is not None:
        _context[0] = None
        coordination.leave(HOLDER)
