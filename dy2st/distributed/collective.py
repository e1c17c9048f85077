"""paddle.distributed's tensor collectives: `all_reduce`, `broadcast`, `all_gather`, `reduce`,
`gather`, `scatter`, `barrier`.

A job of one process needs nothing more than numpy; a job of several runs them on JAX's distributed
runtime, through the communicator the xla backend gives. On a traced tensor, the world group's
all_reduce / broadcast / all_gather are ops of the program; the others run eagerly only (a graph
break)."""
from __future__ import annotations

import warnings
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from ..runtime import ops, state
from ..runtime.collective import communicator
from ..runtime.dtype import dtype_name
from ..runtime.errors import ConversionError
from ..runtime.inplace import assign_in_place
from ..runtime.program import Variable
from ..runtime.registry import apply
from ..runtime.tensor import Tensor
from .group import Group, Task, get_rank, group_rank, resolve


class ReduceOp:
    """The reductions of `all_reduce`, `reduce` and `reduce_scatter` (Paddle's values)."""
    SUM = 0
    MAX = 1
    MIN = 2
    PROD = 3
    AVG = 4


_REDUCTION_NAMES = {ReduceOp.SUM: "sum", ReduceOp.MAX: "max", ReduceOp.MIN: "min",
                    ReduceOp.PROD: "prod", ReduceOp.AVG: "avg"}


def reduction(op: Any, what: str) -> str:
    name = _REDUCTION_NAMES.get(op) if isinstance(op, int) else None
    if name is None:
        raise ValueError(f"{what}: op must be a paddle.distributed.ReduceOp (SUM, MAX, MIN, "
                         f"PROD, AVG), got {op!r}")
    return name


def check_tensor(tensor: Any, what: str, name: str = "tensor") -> None:
    if not isinstance(tensor, (Tensor, Variable)):
        raise TypeError(f"{what} expects a paddle Tensor as {name}, got {type(tensor).__name__}")


def traced(*values: Any) -> bool:
    return any(isinstance(v, Variable) for v in values)


def eager_only(what: str, *values: Any) -> None:
    """Refuse to run `what` while a program is traced: it cannot be an op of the program (the
    default mode breaks the graph there; full_graph=True names the line)."""
    if state.current_program() is not None or traced(*values):
        raise ConversionError(
            f"paddle.distributed.{what} runs eagerly only: it cannot be part of a compiled "
            "program (all_reduce, broadcast, all_gather, reduce_scatter and alltoall of the "
            "world group can)")


def eager_rooted(tensor: Any, group: Optional[Group], rank: Any, rank_name: str,
                 what: str) -> Optional[Tuple[Group, int]]:
    """The checks an eager-only transfer with a root or peer (gather, scatter, send, recv) opens
    with: `(group, place of rank in it)`, or None when this process is not in the group."""
    check_tensor(tensor, what)
    eager_only(what, tensor)
    g = resolve(group, what)
    if g is None:
        return None
    return g, group_rank(g, rank, rank_name, what)


def in_program(group: Group, what: str) -> None:
    """A traced collective must span every process (the compiled step's process axis)."""
    if group.members() is not None:
        raise ConversionError(
            f"paddle.distributed.{what} over {group} inside a compiled program: only the world "
            "group's collectives can be ops of a program; call it outside to_static")


def value(tensor: Tensor) -> np.ndarray:
    return np.asarray(tensor._value)


def write(tensor: Tensor, array: np.ndarray) -> None:
    """Give the eager `tensor` the collective's result, in its dtype and shape."""
    tensor._value = np.asarray(array, dtype=value(tensor).dtype).reshape(value(tensor).shape)


def all_reduce(tensor: Any, op: int = ReduceOp.SUM, group: Optional[Group] = None,
               sync_op: bool = True) -> Optional[Task]:
    """Reduce `tensor` over the processes of `group`, in place (SUM, MAX, MIN, PROD or AVG)."""
    check_tensor(tensor, "all_reduce")
    name = reduction(op, "all_reduce")
    g = resolve(group, "all_reduce")
    if g is None:
        return None
    if isinstance(tensor, Variable):
        in_program(g, "all_reduce")
        assign_in_place(tensor, apply("c_allreduce", [tensor], {"op": name}))
    else:
        write(tensor, communicator().all_reduce(value(tensor), name, g.members()))
    return Task()


def broadcast(tensor: Any, src: int, group: Optional[Group] = None,
              sync_op: bool = True) -> Optional[Task]:
    """Give every process of `group` the value `tensor` has on rank `src` (a global rank), in
    place."""
    check_tensor(tensor, "broadcast")
    g = resolve(group, "broadcast")
    if g is None:
        return None
    root = group_rank(g, src, "src", "broadcast")
    if isinstance(tensor, Variable):
        in_program(g, "broadcast")
        assign_in_place(tensor, apply("c_broadcast", [tensor], {"src": root}))
    else:
        write(tensor, communicator().broadcast(value(tensor), root, g.members()))
    return Task()


def all_gather(tensor_list: List[Any], tensor: Any, group: Optional[Group] = None,
               sync_op: bool = True) -> Optional[Task]:
    """Fill `tensor_list` with every process's `tensor`, in rank order (the same shape and
    dtype on every process)."""
    check_tensor(tensor, "all_gather")
    if not isinstance(tensor_list, list):
        raise TypeError(f"all_gather: tensor_list must be a list, got {type(tensor_list).__name__}")
    g = resolve(group, "all_gather")
    if g is None:
        return None
    n = g.nranks
    if isinstance(tensor, Variable):
        in_program(g, "all_gather")
        gathered = apply("c_allgather", [tensor], {"world_size": n})
        if len(tensor.shape) == 0:
            parts = [gathered[r] for r in range(n)]
        else:
            parts = ops.split(gathered, n, axis=0) if n > 1 else [gathered]
    else:
        parts = [Tensor(p) for p in communicator().all_gather(value(tensor), g.members())]
    tensor_list.clear()
    tensor_list.extend(parts)
    return Task()


def reduce(tensor: Any, dst: int, op: int = ReduceOp.SUM, group: Optional[Group] = None,
           sync_op: bool = True) -> Optional[Task]:
    """Reduce `tensor` over the processes of `group` into rank `dst`'s tensor (a global rank);
    the others keep theirs."""
    check_tensor(tensor, "reduce")
    name = reduction(op, "reduce")
    eager_only("reduce", tensor)
    g = resolve(group, "reduce")
    if g is None:
        return None
    group_rank(g, dst, "dst", "reduce")
    total = communicator().all_reduce(value(tensor), name, g.members())
    if get_rank() == dst:
        write(tensor, total)
    return Task()


def gather(tensor: Any, gather_list: Optional[List[Any]] = None, dst: int = 0,
           group: Optional[Group] = None, sync_op: bool = True) -> Optional[Task]:
    """Every process's `tensor`, in rank order, into `gather_list` on rank `dst` (empty: filled
    with new tensors; else one tensor per process, written in place)."""
    opened = eager_rooted(tensor, group, dst, "dst", "gather")
    if opened is None:
        return None
    g = opened[0]
    # gather_list is checked after the exchange: the other processes are not left waiting
    parts = communicator().all_gather(value(tensor), g.members())
    if get_rank() != dst:
        if gather_list is not None:
            warnings.warn("gather: gather_list is meaningless on a rank that is not dst",
                          stacklevel=2)
        return Task()
    if not isinstance(gather_list, list):
        raise ValueError(f"gather: gather_list must be a list on the dst rank {dst}, got "
                         f"{type(gather_list).__name__}")
    if gather_list and len(gather_list) != g.nranks:
        raise ValueError(f"gather: gather_list has {len(gather_list)} tensors; the group has "
                         f"{g.nranks} processes (pass an empty list to get new tensors)")
    fill(gather_list, parts)
    return Task()


def fill(tensors: List[Any], parts: Sequence[np.ndarray]) -> None:
    """An empty list takes new tensors; a full one takes the values in place."""
    if not tensors:
        tensors.extend(Tensor(np.array(p)) for p in parts)
        return
    for t, p in zip(tensors, parts):
        check_tensor(t, "the output list")
        write(t, p)


def stacked(tensors: Any, like: Any, n: int, what: str, name: str) -> np.ndarray:
    """The per-process inputs as one (n, *like.shape) array: a list of n tensors shaped as
    `like`, or one tensor holding them all along its first axis."""
    shape, dtype = value(like).shape, value(like).dtype
    if isinstance(tensors, Tensor):
        whole = value(tensors)
        if whole.size != n * int(np.prod(shape, dtype=np.int64)) or whole.dtype != dtype:
            raise ValueError(f"{what}: {name} {whole.dtype}{list(whole.shape)} does not hold "
                             f"{n} chunks of the output's {dtype_name(dtype)}{list(shape)}")
        return whole.reshape((n,) + shape)
    if not isinstance(tensors, (list, tuple)) or len(tensors) != n:
        got = len(tensors) if isinstance(tensors, (list, tuple)) else type(tensors).__name__
        raise ValueError(f"{what}: {name} must be a list of {n} tensors (one per process of "
                         f"the group), got {got}")
    arrays = []
    for i, t in enumerate(tensors):
        check_tensor(t, what, f"{name}[{i}]")
        a = value(t)
        if a.shape != shape or a.dtype != dtype:
            raise ValueError(f"{what}: {name}[{i}] is {a.dtype}{list(a.shape)}; every tensor "
                             f"must be {dtype_name(dtype)}{list(shape)}, as the output")
        arrays.append(a)
    return np.stack(arrays)


def scatter(tensor: Any, tensor_list: Optional[Sequence[Any]] = None, src: int = 0,
            group: Optional[Group] = None, sync_op: bool = True) -> Optional[Task]:
    """Give each process of `group` its tensor of rank `src`'s `tensor_list` (one per process,
    in rank order; or one tensor split along its first axis), in place."""
    opened = eager_rooted(tensor, group, src, "src", "scatter")
    if opened is None:
        return None
    g, root = opened
    n, comm, members = g.nranks, communicator(), g.members()
    whole = np.zeros((n,) + value(tensor).shape, value(tensor).dtype)
    problem: Optional[Exception] = None
    if get_rank() == src:
        try:
            whole = stacked(tensor_list, tensor, n, "scatter", "tensor_list")
        except (TypeError, ValueError) as e:
            problem = e
    elif tensor_list is not None:
        warnings.warn("scatter: tensor_list is meaningless on a rank that is not src",
                      stacklevel=2)
    # only src can check its list: it tells the others first, so all raise rather than wait
    status = comm.broadcast(np.array([problem is not None], np.int64), root, members)
    if problem is not None:
        raise problem
    if status[0]:
        raise RuntimeError(f"scatter: rank {src}'s tensor_list is not valid (it raised there)")
    write(tensor, comm.scatter(whole, root, members))
    return Task()


def barrier(group: Optional[Group] = None) -> None:
    """Wait until every process of `group` reaches this call."""
    eager_only("barrier")
    g = resolve(group, "barrier")
    if g is not None:
        communicator().barrier(g.members())
