"""The environment a process of a data-parallel job reads: Paddle's variable names, which
`python -m dy2st.distributed.launch` (and Paddle's own launcher) set for every process."""
from __future__ import annotations

import os
from typing import List

# Paddle's names (the launcher sets all of them; the API reads the first of each pair it finds)
TRAINER_ID = "PADDLE_TRAINER_ID"            # the global rank
TRAINERS_NUM = "PADDLE_TRAINERS_NUM"        # the world size
GLOBAL_RANK = "PADDLE_GLOBAL_RANK"
GLOBAL_SIZE = "PADDLE_GLOBAL_SIZE"
LOCAL_RANK = "PADDLE_LOCAL_RANK"            # the rank among the processes of one machine
LOCAL_SIZE = "PADDLE_LOCAL_SIZE"
RANK_IN_NODE = "PADDLE_RANK_IN_NODE"
NNODES = "PADDLE_NNODES"
MASTER = "PADDLE_MASTER"                    # host:port of the coordinator (global rank 0)
TRAINER_ENDPOINTS = "PADDLE_TRAINER_ENDPOINTS"
CURRENT_ENDPOINT = "PADDLE_CURRENT_ENDPOINT"
SELECTED_GPUS = "FLAGS_selected_gpus"
PG_TIMEOUT = "PADDLE_PG_TIMEOUT"            # milliseconds, as in Paddle


def _int(name: str, default: int) -> int:
    text = os.environ.get(name, "")
    if not text.strip():
        return default
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"the environment variable {name}={text!r} is not an integer") from None


def env_rank() -> int:
    return _int(TRAINER_ID, _int(GLOBAL_RANK, 0))


def env_world_size() -> int:
    return _int(TRAINERS_NUM, _int(GLOBAL_SIZE, 1))


def env_local_rank() -> int:
    return _int(LOCAL_RANK, _int(RANK_IN_NODE, 0))


def env_endpoints() -> List[str]:
    text = os.environ.get(TRAINER_ENDPOINTS, "")
    return [e for e in text.split(",") if e]


def env_master() -> str:
    """host:port where the processes meet: PADDLE_MASTER, else the first trainer endpoint."""
    master = os.environ.get(MASTER, "")
    if master:
        return master
    endpoints = env_endpoints()
    return endpoints[0] if endpoints else ""


def env_timeout_seconds() -> int:
    """How long init_parallel_env waits for every process (PADDLE_PG_TIMEOUT, ms; 300 s)."""
    return max(1, _int(PG_TIMEOUT, 300_000) // 1000)


class ParallelEnv:
    """What this process knows of the job from its environment (paddle.distributed.ParallelEnv):
    `rank`, `world_size`, `device_id`, `current_endpoint`, `trainer_endpoints`, and Paddle's older
    names `local_rank` (the global rank, as in Paddle), `nranks`, `dev_id`."""

    def __init__(self) -> None:
        self._rank = env_rank()
        self._world_size = env_world_size()
        gpus = os.environ.get(SELECTED_GPUS, "")
        self._device_id = int(gpus.split(",")[0]) if gpus.strip() else env_local_rank()
        self._trainer_endpoints = env_endpoints()
        self._current_endpoint = os.environ.get(CURRENT_ENDPOINT, "")

    @property
    def rank(self) -> int:
        return self._rank

    @property
    def world_size(self) -> int:
        return self._world_size

    @property
    def device_id(self) -> int:
        return self._device_id

    @property
    def current_endpoint(self) -> str:
        return self._current_endpoint

    @property
    def trainer_endpoints(self) -> List[str]:
        return list(self._trainer_endpoints)

    # Paddle's older names
    local_rank = rank
    nranks = world_size
    dev_id = device_id

    def __repr__(self) -> str:
        return f"ParallelEnv(rank={self.rank}, world_size={self.world_size})"
