"""paddle.distributed's process group and collectives: `init_parallel_env`, ranks, `all_reduce`,
`all_gather`, `broadcast`, `barrier`. A job of one process needs nothing more than numpy; a job
of several runs on JAX's distributed runtime, through the communicator the xla backend gives."""
from __future__ import annotations

import importlib
import importlib.util
import os
import pickle
from typing import Any, List, Optional, Sequence

import numpy as np

from ..runtime import ops
from ..runtime.collective import Communicator, communicator, set_communicator
from ..runtime.inplace import assign_in_place
from ..runtime.program import Variable
from ..runtime.registry import apply
from ..runtime.tensor import Tensor
from .env import (
    SELECTED_GPUS,
    env_local_rank,
    env_master,
    env_rank,
    env_timeout_seconds,
    env_world_size,
)


class ReduceOp:
    """The reductions of `all_reduce` (Paddle's values)."""
    SUM = 0
    MAX = 1
    MIN = 2
    PROD = 3
    AVG = 4


_REDUCTION_NAMES = {ReduceOp.SUM: "sum", ReduceOp.MAX: "max", ReduceOp.MIN: "min",
                    ReduceOp.PROD: "prod", ReduceOp.AVG: "avg"}

XLA_HINT = ('pip install "dy2st[xla]" (jax[cpu]), then compile train steps with '
            'paddle.jit.to_static(..., backend="xla")')


class Group:
    """A set of processes collectives run over. Only the world group (every process of the job)
    exists: `new_group()` with no ranks, or with every rank, returns it."""

    def __init__(self, rank: int, ranks: Sequence[int], id: int = 0,
                 name: str = "_default_pg") -> None:
        self.rank = rank            # this process's rank in the group (-1: not a member)
        self.ranks = list(ranks)
        self.id = id
        self.name = name

    @property
    def nranks(self) -> int:
        return len(self.ranks)

    world_size = nranks

    @property
    def backend(self) -> str:
        return "jax" if self.nranks > 1 else "local"

    def is_member(self) -> bool:
        return self.rank >= 0

    def get_group_rank(self, rank: int) -> int:
        return self.ranks.index(rank) if rank in self.ranks else -1

    def __repr__(self) -> str:
        return f"Group(rank={self.rank}, nranks={self.nranks}, id={self.id}, name={self.name!r})"


class Task:
    """What a collective returns (it has completed when it returns, sync_op or not)."""

    def wait(self, timeout: Any = None) -> bool:
        return True

    def is_completed(self) -> bool:
        return True


_world: List[Optional[Group]] = [None]


def is_available() -> bool:
    return True


def is_initialized() -> bool:
    return _world[0] is not None


def init_parallel_env() -> Group:
    """Join the job this process belongs to (from the launcher's environment: PADDLE_TRAINER_ID,
    PADDLE_TRAINERS_NUM, PADDLE_MASTER) and return the world group. A job of one process needs
    no jax; a job of several meets through JAX's distributed runtime. Calling it again returns
    the same group."""
    if _world[0] is not None:
        return _world[0]
    world_size, rank = env_world_size(), env_rank()
    if world_size < 1 or not 0 <= rank < world_size:
        raise ValueError(f"init_parallel_env: rank {rank} of a job of {world_size} processes "
                         "(PADDLE_TRAINER_ID / PADDLE_TRAINERS_NUM) is not valid")
    if world_size > 1:
        set_communicator(_join(world_size, rank))
    _world[0] = Group(rank, range(world_size))
    return _world[0]


def _join(world_size: int, rank: int) -> Communicator:
    if importlib.util.find_spec("jax") is None:
        raise ImportError(f"paddle.distributed: a job of {world_size} processes runs on JAX's "
                          f"distributed runtime, and jax is not installed: {XLA_HINT}. A job "
                          "of one process needs no jax.")
    master = env_master()
    if not master:
        raise RuntimeError(
            f"init_parallel_env: this process is rank {rank} of {world_size}, but PADDLE_MASTER "
            "(host:port where the processes meet) is not set; start the job with "
            "python -m dy2st.distributed.launch --nproc_per_node N script.py")
    gpus = os.environ.get(SELECTED_GPUS, "").strip()
    device_ids = [int(g) for g in gpus.split(",")] if gpus else None
    # loaded here only: a job of several processes is the one user of jax's distributed runtime
    module = importlib.import_module("dy2st.backends.xla.collectives")
    return module.JaxCommunicator(master, world_size, rank, env_local_rank(), device_ids,
                                  env_timeout_seconds())


def _check_joined() -> None:
    if _world[0] is None and env_world_size() > 1:
        raise RuntimeError(f"this process is one of {env_world_size()} (PADDLE_TRAINERS_NUM); "
                           "call paddle.distributed.init_parallel_env() before a collective")


def get_rank(group: Optional[Group] = None) -> int:
    """This process's rank (before init_parallel_env: from PADDLE_TRAINER_ID, as in Paddle)."""
    if group is not None:
        return group.rank
    return communicator().rank if _world[0] is not None else env_rank()


def get_world_size(group: Optional[Group] = None) -> int:
    """How many processes the job has (before init_parallel_env: PADDLE_TRAINERS_NUM)."""
    if group is not None:
        return group.nranks
    return communicator().world_size if _world[0] is not None else env_world_size()


def new_group(ranks: Optional[Sequence[int]] = None, backend: Optional[str] = None,
              timeout: Any = None, nccl_comm_init_option: int = 0,
              nccl_config: Any = None) -> Group:
    """The world group. Groups of fewer processes are not supported."""
    world = _world[0] or init_parallel_env()
    if ranks is not None and sorted(ranks) != world.ranks:
        raise NotImplementedError(f"new_group(ranks={list(ranks)}): only the group of every "
                                  f"process ({world.ranks}) is supported")
    return world


def get_group(id: int = 0) -> Group:
    if id != 0:
        raise ValueError(f"get_group({id}): only the world group (id 0) exists")
    return _world[0] or init_parallel_env()


def destroy_process_group(group: Optional[Group] = None) -> None:
    """Leave the job: shut this process's side of the distributed runtime down."""
    if _world[0] is None:
        return
    communicator().shutdown()
    set_communicator(Communicator())
    _world[0] = None


def _check_group(group: Optional[Group], what: str) -> None:
    _check_joined()
    if group is not None and group is not _world[0] and \
            (_world[0] is None or group.ranks != _world[0].ranks):
        raise NotImplementedError(f"{what}: only the world group is supported, got {group}")


def _reduction(op: Any) -> str:
    name = _REDUCTION_NAMES.get(op) if isinstance(op, int) else None
    if name is None:
        raise ValueError(f"all_reduce: op must be a paddle.distributed.ReduceOp (SUM, MAX, MIN, "
                         f"PROD, AVG), got {op!r}")
    return name


def _in_place(tensor: Any, op_type: str, attrs: dict, what: str) -> Task:
    """Replace tensor's value by the collective's result (a traced tensor takes the op's
    output, so the collective runs inside the compiled program)."""
    if isinstance(tensor, Variable):
        assign_in_place(tensor, apply(op_type, [tensor], attrs))
        return Task()
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{what} expects a paddle Tensor, got {type(tensor).__name__}")
    out = apply(op_type, [Tensor(tensor._value)], attrs)
    tensor._value = np.asarray(out._value, dtype=tensor._value.dtype)
    return Task()


def all_reduce(tensor: Any, op: int = ReduceOp.SUM, group: Optional[Group] = None,
               sync_op: bool = True) -> Task:
    """Reduce `tensor` over every process, in place (SUM, MAX, MIN, PROD or AVG)."""
    _check_group(group, "all_reduce")
    return _in_place(tensor, "c_allreduce", {"op": _reduction(op)}, "all_reduce")


def broadcast(tensor: Any, src: int, group: Optional[Group] = None, sync_op: bool = True) -> Task:
    """Give every process the value `tensor` has on rank `src`, in place."""
    _check_group(group, "broadcast")
    world = get_world_size()
    if not isinstance(src, int) or not 0 <= src < world:
        raise ValueError(f"broadcast: src must be a rank of the job (0..{world - 1}), got {src!r}")
    return _in_place(tensor, "c_broadcast", {"src": src}, "broadcast")


def all_gather(tensor_list: List[Any], tensor: Any, group: Optional[Group] = None,
               sync_op: bool = True) -> Task:
    """Fill `tensor_list` with every process's `tensor`, in rank order (the same shape and
    dtype on every process)."""
    _check_group(group, "all_gather")
    if not isinstance(tensor_list, list):
        raise TypeError(f"all_gather: tensor_list must be a list, got {type(tensor_list).__name__}")
    world = get_world_size()
    source = tensor if isinstance(tensor, Variable) else Tensor(tensor._value)
    gathered = apply("c_allgather", [source], {"world_size": world})
    tensor_list.clear()
    if len(tensor.shape) == 0:
        tensor_list.extend(gathered[r] for r in range(world))
    else:
        tensor_list.extend(ops.split(gathered, world, axis=0) if world > 1 else [gathered])
    return Task()


def all_gather_object(object_list: List[Any], obj: Any, group: Optional[Group] = None) -> None:
    """Fill `object_list` with every process's picklable `obj`, in rank order."""
    _check_group(group, "all_gather_object")
    comm = communicator()
    data = np.frombuffer(pickle.dumps(obj), np.uint8)
    sizes = comm.all_gather(np.array(data.size, np.int64))
    padded = np.zeros(int(max(sizes)), np.uint8)
    padded[:data.size] = data
    parts = comm.all_gather(padded)
    object_list.clear()
    object_list.extend(pickle.loads(p[:int(n)].tobytes()) for p, n in zip(parts, sizes))


def barrier(group: Optional[Group] = None) -> None:
    """Wait until every process of the job reaches this call."""
    _check_group(group, "barrier")
    communicator().barrier()
