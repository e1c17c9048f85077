"""paddle.distributed: data-parallel training over several processes (JAX's distributed runtime
carries the collectives; a job of one process needs only numpy). docs/distributed.md."""
from .collective import (Group, ReduceOp, Task, all_gather, all_gather_object, all_reduce,
                         barrier, broadcast, destroy_process_group, get_group, get_rank,
                         get_world_size, init_parallel_env, is_available, is_initialized,
                         new_group)
from .env import ParallelEnv
from .parallel import DataParallel, sync_params_buffers

__all__ = ["DataParallel", "Group", "ParallelEnv", "ReduceOp", "Task", "all_gather",
           "all_gather_object", "all_reduce", "barrier", "broadcast", "destroy_process_group",
           "get_group", "get_rank", "get_world_size", "init_parallel_env", "is_available",
           "is_initialized", "new_group", "sync_params_buffers"]
