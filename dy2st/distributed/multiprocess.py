"""`paddle.distributed.spawn(func, args, nprocs)`: a data-parallel job of `nprocs` processes on this
machine started from Python, each calling `func(*args)` with the environment the launcher would
give it. A failing process stops the others and raises in the parent with its traceback."""
from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import traceback
from typing import Any, Callable, Dict, Iterable, List, Optional

from . import env
from .launch import free_port


def _entry(func: Callable[..., Any], args: Iterable[Any], environ: Dict[str, str],
           errors: Any, returns: Any) -> None:
    os.environ.update(environ)
    try:
        result = func(*args)
        if result is not None:       # (keep it small: the pipe holds the process until read)
            returns.put(result)
    except KeyboardInterrupt:
        pass
    except BaseException:  # noqa: BLE001 - the parent raises it, naming the rank
        errors.put(traceback.format_exc())
        raise SystemExit(1) from None


class ProcessRaisedException(Exception):
    """A process of a spawned job raised; the message holds its traceback."""


class MultiprocessContext:
    """The processes of a spawned job. `join()` waits for them; `return_queues[r]` holds what
    rank r's function returned."""

    def __init__(self, processes: List[Any], error_queues: List[Any],
                 return_queues: List[Any]) -> None:
        self.processes = processes
        self.error_queues = error_queues
        self.return_queues = return_queues
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def join(self, timeout: Optional[float] = None) -> bool:
        """Wait for a process to end (at most `timeout` s); True once every one ended well.
        When one failed, the others are stopped and its error is raised."""
        if not self.sentinels:
            return True
        ready = multiprocessing.connection.wait(list(self.sentinels), timeout=timeout)
        failed = None
        for sentinel in ready:
            rank = self.sentinels.pop(sentinel)
            self.processes[rank].join()
            if self.processes[rank].exitcode != 0:
                failed = rank
                break
        if failed is None:
            return not self.sentinels
        self.stop()
        code = self.processes[failed].exitcode
        if not self.error_queues[failed].empty():
            raise ProcessRaisedException(f"process {failed} of the spawned job raised:\n\n"
                                         f"{self.error_queues[failed].get()}")
        what = f"signal {-code}" if code < 0 else f"exit status {code}"
        raise ProcessRaisedException(f"process {failed} of the spawned job ended with {what}")

    def stop(self) -> None:
        for p in self.processes:
            if p.is_alive():
                p.terminate()
        for p in self.processes:
            p.join(3.0)
            if p.is_alive():
                p.kill()
                p.join()
        self.sentinels.clear()


def spawn(func: Callable[..., Any], args: Iterable[Any] = (), nprocs: int = -1,
          join: bool = True, daemon: bool = False, **options: Any) -> MultiprocessContext:
    """Start `nprocs` processes (-1: one per CPU core) calling `func(*args)` as the ranks of
    one job on this machine (multiprocessing's spawn start method: `func` must be importable,
    a module-level function). `options`: `gpus="0,1"` gives each process one GPU. With `join`
    it returns once every process ended, and raises when one failed."""
    if nprocs == -1:
        nprocs = os.cpu_count() or 1
    if not isinstance(nprocs, int) or nprocs < 1:
        raise ValueError(f"spawn: nprocs must be a positive int or -1, got {nprocs!r}")
    unknown = set(options) - {"gpus", "ips", "start_port", "backend"}
    if unknown:
        raise TypeError(f"spawn: unknown option(s) {sorted(unknown)}")
    gpus = [g.strip() for g in str(options.get("gpus") or "").split(",") if g.strip()]
    if gpus and len(gpus) != nprocs:
        raise ValueError(f"spawn: gpus lists {len(gpus)} devices for nprocs {nprocs}")
    master = f"127.0.0.1:{free_port()}"
    endpoints = ",".join(f"127.0.0.1:{free_port()}" for _ in range(nprocs))
    context = multiprocessing.get_context("spawn")
    processes, errors, returns = [], [], []
    for rank in range(nprocs):
        environ = {env.MASTER: master, env.TRAINER_ID: str(rank), env.TRAINERS_NUM: str(nprocs),
                   env.GLOBAL_RANK: str(rank), env.GLOBAL_SIZE: str(nprocs),
                   env.LOCAL_RANK: str(rank), env.LOCAL_SIZE: str(nprocs),
                   env.RANK_IN_NODE: str(rank), env.NNODES: "1",
                   env.TRAINER_ENDPOINTS: endpoints,
                   env.CURRENT_ENDPOINT: endpoints.split(",")[rank]}
        if gpus:
            environ[env.SELECTED_GPUS] = gpus[rank]
        errors.append(context.SimpleQueue())
        returns.append(context.SimpleQueue())
        p = context.Process(target=_entry, args=(func, args, environ, errors[-1], returns[-1]),
                            daemon=daemon)
        p.start()
        processes.append(p)
    job = MultiprocessContext(processes, errors, returns)
    if join:
        try:
            while not job.join():
                pass
        except BaseException:
            job.stop()
            raise
    return job
