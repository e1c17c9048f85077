"""paddle.distributed: data-parallel training over several processes, process groups, collectives
and point-to-point transfers (JAX's distributed runtime carries them; a job of one process needs
only numpy). docs/distributed.md."""
from ..runtime.lazy import lazy_getattr
from .collective import (ReduceOp, all_gather, all_reduce, barrier, broadcast, gather, reduce,
                         scatter)
from .env import ParallelEnv
from .exchange import alltoall, alltoall_single, reduce_scatter
from .gloo import gloo_barrier, gloo_init_parallel_env, gloo_release
from .group import (Group, Task, destroy_process_group, get_backend, get_group, get_rank,
                    get_world_size, init_parallel_env, is_available, is_initialized, new_group,
                    restart_process_group, shutdown_process_group)
from .objects import all_gather_object, broadcast_object_list, scatter_object_list
from .p2p import irecv, isend, recv, recv_object_list, send, send_object_list, wait

__all__ = ["DataParallel", "Group", "ParallelEnv", "ReduceOp", "Task", "all_gather",
           "all_gather_object", "all_reduce", "alltoall", "alltoall_single", "barrier",
           "broadcast", "broadcast_object_list", "destroy_process_group", "gather",
           "get_backend", "get_group", "get_rank", "get_world_size", "gloo_barrier",
           "gloo_init_parallel_env", "gloo_release", "init_parallel_env", "irecv",
           "is_available", "is_initialized", "isend", "new_group", "recv", "recv_object_list",
           "reduce", "reduce_scatter", "restart_process_group", "scatter",
           "scatter_object_list", "send", "send_object_list", "shutdown_process_group", "spawn",
           "sync_params_buffers", "wait"]

# DataParallel loads paddle.nn: on first use, so the launcher (python -m ...launch) starts fast
__getattr__ = lazy_getattr(__name__, {"DataParallel": "parallel:DataParallel",
                                      "sync_params_buffers": "parallel:sync_params_buffers",
                                      "launch": "launch", "spawn": "multiprocess:spawn"},
                            globals())
