"""paddle.distributed's process groups: joining the job (`init_parallel_env`), ranks, the world
group and groups of some of its processes (`new_group`), and the checks every collective makes
(membership, ranks given as global ranks)."""
from __future__ import annotations

import importlib
import importlib.util
import os
import warnings
from typing import Any, Dict, List, Optional, Sequence

from ..runtime.collective import Communicator, Ranks, communicator, set_communicator
from .env import (
    SELECTED_GPUS,
    env_local_rank,
    env_master,
    env_rank,
    env_timeout_seconds,
    env_world_size,
)

XLA_HINT = ('pip install "dy2st[xla]" (jax[cpu]), then compile train steps with '
            'paddle.jit.to_static(..., backend="xla")')


class Group:
    """A set of processes collectives run over, by global rank (paddle.distributed.Group, with
    Paddle's constructor; `pg` is accepted and unused). `rank` is this process's place in it
    (-1: not a member); `new_group` makes them."""

    def __init__(self, rank_in_group: int, id: int, ranks: Sequence[int], pg: Any = None,
                 name: Optional[str] = None) -> None:
        self.rank = rank_in_group
        self.ranks = list(ranks)
        self.id = id
        self.name = name or ("_default_pg" if id == 0 else f"_default_pg{id}")
        self.shut_down = False       # shutdown_process_group; restart_process_group undoes it

    @property
    def nranks(self) -> int:
        return len(self.ranks)

    @property
    def world_size(self) -> int:
        """The number of processes of the group (-1 where this process is not one, as Paddle)."""
        return self.nranks if self.is_member() else -1

    @property
    def backend(self) -> str:
        return communicator().backend

    def is_member(self) -> bool:
        return self.rank >= 0

    def get_group_rank(self, rank: int) -> int:
        """The place of global rank `rank` in the group (-1: not in it)."""
        return self.ranks.index(rank) if self.is_member() and rank in self.ranks else -1

    def get_global_rank(self, rank: int) -> int:
        """The global rank of the group's `rank`-th process (-1 when this process is not a
        member)."""
        return self.ranks[rank] if self.is_member() and 0 <= rank < self.nranks else -1

    def members(self) -> Ranks:
        """The ranks a communicator call names (None: the world)."""
        world = _world[0]
        return None if world is not None and self.ranks == world.ranks else tuple(self.ranks)

    def __repr__(self) -> str:
        return (f"Group(rank={self.rank}, nranks={self.nranks}, id={self.id}, "
                f"ranks={self.ranks}, name={self.name!r})")


class Task:
    """What a collective returns. Collectives complete before they return (sync_op or not);
    an `irecv` completes at `wait()`."""

    def __init__(self, finish: Any = None, ready: Any = None) -> None:
        self._finish = finish
        self._ready = ready

    def wait(self, timeout: Any = None) -> bool:
        if self._finish is not None:
            finish, self._finish = self._finish, None
            finish()
        return True

    def is_completed(self) -> bool:
        return self._finish is None or bool(self._ready is not None and self._ready())

    def synchronize(self) -> None:
        self.wait()


_world: List[Optional[Group]] = [None]
_groups: Dict[int, Group] = {}


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
    _world[0] = Group(rank, 0, range(world_size))
    _groups.clear()
    _groups[0] = _world[0]
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


def check_joined() -> None:
    if _world[0] is None and env_world_size() > 1:
        raise RuntimeError(f"this process is one of {env_world_size()} (PADDLE_TRAINERS_NUM); "
                           "call paddle.distributed.init_parallel_env() before a collective")


def world() -> Group:
    return _world[0] or init_parallel_env()


def get_rank(group: Optional[Group] = None) -> int:
    """This process's rank (in `group`; before init_parallel_env: from PADDLE_TRAINER_ID, as in
    Paddle)."""
    if group is not None:
        return group.rank
    return communicator().rank if _world[0] is not None else env_rank()


def get_world_size(group: Optional[Group] = None) -> int:
    """How many processes the job (or `group`) has (before init_parallel_env:
    PADDLE_TRAINERS_NUM)."""
    if group is not None:
        return group.world_size
    return communicator().world_size if _world[0] is not None else env_world_size()


def new_group(ranks: Optional[Sequence[int]] = None, backend: Optional[str] = None,
              timeout: Any = None, nccl_comm_init_option: int = 0,
              nccl_config: Any = None) -> Group:
    """A group of the processes `ranks` (global ranks; None: every process). Every process of
    the job calls it, in the same order, as in Paddle; the ones not in `ranks` get a group they
    are not a member of (rank -1)."""
    whole = world()
    members = list(whole.ranks) if ranks is None else list(ranks)
    if any(not isinstance(r, int) or isinstance(r, bool) for r in members):
        raise TypeError(f"new_group: ranks must be ints (global ranks), got {members}")
    bad = [r for r in members if r not in whole.ranks]
    if bad or len(set(members)) != len(members) or not members:
        raise ValueError(f"new_group(ranks={members}): the ranks must be distinct ranks of the "
                         f"job ({whole.ranks[0]}..{whole.ranks[-1]})")
    members.sort()
    gid = max(_groups) + 1
    me = get_rank()
    group = Group(members.index(me) if me in members else -1, gid, members)
    _groups[gid] = group
    return group


def get_group(id: int = 0) -> Optional[Group]:
    """The group `id` (0: the world group); None, with a warning, when there is none."""
    if id == 0:
        return world()
    if id not in _groups:
        warnings.warn(f"Group {id} is not initialized.", stacklevel=2)
        return None
    return _groups[id]


def get_backend(group: Optional[Group] = None) -> str:
    """The name of what carries the collectives: "GLOO" between CPUs, "NCCL" between GPUs
    ("LOCAL" in a job of one process)."""
    if group is not None and not group.is_member():
        raise RuntimeError(f"get_backend: this process (rank {get_rank()}) is not a member of "
                           f"{group}")
    check_joined()
    return communicator().backend


def destroy_process_group(group: Optional[Group] = None) -> None:
    """Forget `group`; without one (or with the world group), leave the job: shut this
    process's side of the distributed runtime down."""
    if _world[0] is None:
        return
    if group is not None and group is not _world[0]:
        if _groups.get(group.id) is not group:
            raise ValueError(f"destroy_process_group: {group} is not a live group")
        communicator().release(group.members())
        del _groups[group.id]
        return
    communicator().shutdown()
    set_communicator(Communicator())
    _world[0] = None
    _groups.clear()


def shutdown_process_group(group: Optional[Group] = None) -> None:
    """Release what the collectives of `group` hold (without one: of every group but the world
    group); its collectives fail until `restart_process_group`."""
    targets = [g for g in _groups.values() if g is not _world[0]] if group is None else [group]
    for g in targets:
        if not g.shut_down:
            communicator().release(g.members())
            g.shut_down = True


def restart_process_group(group: Optional[Group] = None) -> None:
    """Make the groups `shutdown_process_group` shut down usable again (without one: all)."""
    for g in (list(_groups.values()) if group is None else [group]):
        g.shut_down = False


def resolve(group: Optional[Group], what: str) -> Optional[Group]:
    """The group a collective runs over (the world by default), or None when this process is
    not a member: Paddle then warns and the call does nothing."""
    check_joined()
    if group is None:
        return world()
    if not isinstance(group, Group):
        raise TypeError(f"{what}: group must be a paddle.distributed Group (new_group), got "
                        f"{type(group).__name__}")
    if group is not _world[0] and _groups.get(group.id) is not group:
        raise RuntimeError(f"{what}: {group} was destroyed (destroy_process_group) or belongs "
                           "to a job this process left")
    if group.shut_down:
        raise RuntimeError(f"{what}: {group} was shut down by shutdown_process_group(); call "
                           "restart_process_group() before using it")
    if not group.is_member():
        warnings.warn(f"{what}: the current global rank {get_rank()} is not in group "
                      f"{group.name}; nothing is done", stacklevel=3)
        return None
    return group


def group_rank(group: Group, rank: Any, name: str, what: str) -> int:
    """The place in `group` of the global rank `rank` (a src/dst argument)."""
    if not isinstance(rank, int) or isinstance(rank, bool) or rank not in group.ranks:
        raise ValueError(f"{what}: {name}={rank!r} is not a global rank of the group "
                         f"(ranks {group.ranks})")
    return group.ranks.index(rank)
