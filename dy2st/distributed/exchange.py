"""paddle.distributed's exchanges: `reduce_scatter` (each process gets its chunk of the reduction)
and `alltoall` / `alltoall_single` (chunk j of each process goes to process j).

Over the world group, on traced tensors, they are ops of the program (`c_reducescatter`,
`c_alltoall`: lax collectives on the xla backend)."""
from __future__ import annotations

from typing import Any, List, Optional, Sequence

import numpy as np

from ..runtime import ops
from ..runtime.collective import communicator
from ..runtime.inplace import assign_in_place
from ..runtime.program import Variable
from ..runtime.registry import apply
from ..runtime.tensor import Tensor
from .collective import (
    ReduceOp,
    check_tensor,
    eager_only,
    fill,
    in_program,
    reduction,
    stacked,
    traced,
    value,
    write,
)
from .group import Group, Task, resolve


def _traced_stack(tensors: Any, n: int, what: str) -> Any:
    if not isinstance(tensors, (list, tuple)) or len(tensors) != n:
        raise ValueError(f"{what}: expected a list of {n} tensors (one per process)")
    return ops.stack(list(tensors))


def reduce_scatter(tensor: Any, tensor_list: Any, op: int = ReduceOp.SUM,
                   group: Optional[Group] = None, sync_op: bool = True) -> Optional[Task]:
    """`tensor` becomes the reduction over the processes of their `tensor_list[rank]` (a list
    of one tensor per process shaped as `tensor`, or one tensor holding them along its first
    axis)."""
    check_tensor(tensor, "reduce_scatter")
    name = reduction(op, "reduce_scatter")
    g = resolve(group, "reduce_scatter")
    if g is None:
        return None
    n = g.nranks
    inputs = tensor_list if isinstance(tensor_list, (list, tuple)) else [tensor_list]
    if traced(tensor, *inputs):
        in_program(g, "reduce_scatter")
        if isinstance(tensor_list, (list, tuple)):
            whole = _traced_stack(tensor_list, n, "reduce_scatter")
        else:
            whole = ops.reshape(tensor_list, [n] + list(tensor.shape))
        out = apply("c_reducescatter", [whole], {"op": name, "nranks": n})
        assign_in_place(tensor, ops.reshape(out, list(tensor.shape)))
        return Task()
    whole = stacked(tensor_list, tensor, n, "reduce_scatter", "tensor_list")
    write(tensor, communicator().reduce_scatter(whole, name, g.members()))
    return Task()


def alltoall(out_tensor_list: Any, in_tensor_list: Any, group: Optional[Group] = None,
             sync_op: bool = True) -> Optional[Task]:
    """Send `in_tensor_list[j]` to process j; `out_tensor_list[i]` receives what process i
    sent here (an empty list gets new tensors). Two tensors instead of lists: their first axes
    hold the chunks."""
    g = resolve(group, "alltoall")
    if g is None:
        return None
    n = g.nranks
    tensors = [isinstance(t, (Tensor, Variable)) for t in (out_tensor_list, in_tensor_list)]
    if all(tensors):
        return alltoall_single(out_tensor_list, in_tensor_list, group=group, sync_op=sync_op)
    if any(tensors):
        raise TypeError("alltoall: the output and the input must both be tensors or both be "
                        "lists of tensors")
    if not isinstance(out_tensor_list, list):
        raise TypeError(f"alltoall: out_tensor_list must be a list, got "
                        f"{type(out_tensor_list).__name__}")
    if not isinstance(in_tensor_list, (list, tuple)) or len(in_tensor_list) != n:
        got = len(in_tensor_list) if isinstance(in_tensor_list, (list, tuple)) else \
            type(in_tensor_list).__name__
        raise ValueError(f"alltoall: in_tensor_list must hold {n} tensors (one per process of "
                         f"the group), got {got}")
    if out_tensor_list and len(out_tensor_list) != n:
        raise ValueError(f"alltoall: out_tensor_list holds {len(out_tensor_list)} tensors; pass "
                         f"an empty list or one of {n}")
    for i, t in enumerate(in_tensor_list):
        check_tensor(t, "alltoall", f"in_tensor_list[{i}]")
    if traced(*in_tensor_list, *out_tensor_list):
        in_program(g, "alltoall")
        moved = apply("c_alltoall", [_traced_stack(in_tensor_list, n, "alltoall")],
                      {"nranks": n})
        parts = ops.unstack(moved, 0)
        if not out_tensor_list:
            out_tensor_list.extend(parts)
        else:
            for t, p in zip(out_tensor_list, parts):
                assign_in_place(t, p)
        return Task()
    whole = stacked(in_tensor_list, in_tensor_list[0], n, "alltoall", "in_tensor_list")
    fill(out_tensor_list, list(communicator().all_to_all(whole, g.members())))
    return Task()


def _sizes(sizes: Optional[Sequence[int]], length: int, n: int, what: str,
           name: str) -> List[int]:
    if sizes is None:
        if length % n:
            raise ValueError(f"alltoall_single: the first axis of {what} ({length}) does not "
                             f"split into {n} equal chunks; give {name}")
        return [length // n] * n
    sizes = [int(s) for s in sizes]
    if len(sizes) != n or any(s < 0 for s in sizes) or sum(sizes) != length:
        raise ValueError(f"alltoall_single: {name}={sizes} must hold {n} sizes (one per "
                         f"process) adding up to the first axis of {what} ({length})")
    return sizes


def alltoall_single(out_tensor: Any, in_tensor: Any,
                    in_split_sizes: Optional[List[int]] = None,
                    out_split_sizes: Optional[List[int]] = None,
                    group: Optional[Group] = None, sync_op: bool = True) -> Optional[Task]:
    """Split `in_tensor` along its first axis (`in_split_sizes`, or equal chunks) and send chunk
    j to process j; `out_tensor` receives, in rank order, the chunks sent here
    (`out_split_sizes`, or equal chunks)."""
    check_tensor(out_tensor, "alltoall_single", "out_tensor")
    check_tensor(in_tensor, "alltoall_single", "in_tensor")
    g = resolve(group, "alltoall_single")
    if g is None:
        return None
    n = g.nranks
    if len(in_tensor.shape) == 0 or len(out_tensor.shape) == 0:
        raise ValueError("alltoall_single: in_tensor and out_tensor need a first axis to split")
    if list(in_tensor.shape[1:]) != list(out_tensor.shape[1:]):
        raise ValueError(f"alltoall_single: in_tensor {list(in_tensor.shape)} and out_tensor "
                         f"{list(out_tensor.shape)} differ past the first axis")
    equal = in_split_sizes is None and out_split_sizes is None
    if traced(out_tensor, in_tensor):
        if not equal:
            eager_only("alltoall_single with split sizes", in_tensor)
        in_program(g, "alltoall_single")
        if list(in_tensor.shape) != list(out_tensor.shape):
            raise ValueError("alltoall_single: in equal chunks, out_tensor has in_tensor's shape")
        assign_in_place(out_tensor, apply("c_alltoall", [in_tensor], {"nranks": n}))
        return Task()
    array = value(in_tensor)
    sends = _sizes(in_split_sizes, array.shape[0], n, "in_tensor", "in_split_sizes")
    expected = _sizes(out_split_sizes, value(out_tensor).shape[0], n, "out_tensor",
                      "out_split_sizes")
    comm = communicator()
    if equal:
        write(out_tensor, comm.all_to_all(array, g.members()))
        return Task()
    # unequal chunks: every process learns every one's sizes (what each sends, what each
    # expects), so a mismatch anywhere raises everywhere; each chunk is padded to the largest,
    # exchanged, then what came in is trimmed
    table = np.stack(comm.all_gather(np.array(sends + expected, np.int64), g.members()))
    sent, wanted = table[:, :n], table[:, n:]
    for i in range(n):
        if list(sent[:, i]) != list(wanted[i]):
            raise ValueError(f"alltoall_single: the processes send {sent[:, i].tolist()} rows "
                             f"to process {i} of the group, but its out_split_sizes is "
                             f"{wanted[i].tolist()}")
    received = expected
    width = max(int(sent.max()), 1)
    padded = np.zeros((n * width,) + array.shape[1:], array.dtype)
    starts = np.concatenate([[0], np.cumsum(sends)])
    for j in range(n):
        padded[j * width:j * width + sends[j]] = array[starts[j]:starts[j + 1]]
    moved = comm.all_to_all(padded, g.members())
    write(out_tensor, np.concatenate([moved[i * width:i * width + received[i]]
                                      for i in range(n)]))
    return Task()
