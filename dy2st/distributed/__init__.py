"""paddle.distributed: data-parallel training over several processes (JAX's distributed runtime
carries the collectives; a job of one process needs only numpy). docs/distributed.md."""
from ..runtime.lazy import lazy_getattr
from .collective import (Group, ReduceOp, Task, all_gather, all_gather_object, all_reduce,
                         barrier, broadcast, destroy_process_group, get_group, get_rank,
                         get_world_size, init_parallel_env, is_available, is_initialized,
                         new_group)
from .env import ParallelEnv

__all__ = ["DataParallel", "Group", "ParallelEnv", "ReduceOp", "Task", "all_gather",
           "all_gather_object", "all_reduce", "barrier", "broadcast", "destroy_process_group",
           "get_group", "get_rank", "get_world_size", "init_parallel_env", "is_available",
           "is_initialized", "new_group", "spawn", "sync_params_buffers"]

# DataParallel loads paddle.nn: on first use, so the launcher (python -m ...launch) starts fast
__getattr__ = lazy_getattr(__name__, {"DataParallel": "parallel:DataParallel",
                                      "sync_params_buffers": "parallel:sync_params_buffers",
                                      "launch": "launch", "spawn": "multiprocess:spawn"},
                            globals())
