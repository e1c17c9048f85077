"""paddle.distributed's point-to-point transfers: `send`/`recv`, `isend`/`irecv`,
`send_object_list`/`recv_object_list`, and `wait`.

A message goes through the key-value store of JAX's coordination service (rank 0 hosts it): the
sender stores it under the pair's next number and returns, the receiver takes it (waiting up to
PADDLE_PG_TIMEOUT) and deletes it. So sends never block, and any order of isend/irecv between two
processes meets."""
from __future__ import annotations

import json
import pickle
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from ..runtime.collective import communicator
from .collective import eager_only, eager_rooted, value, write
from .env import env_timeout_seconds
from .group import Group, Task, get_rank, group_rank, resolve

_PREFIX = "dy2st/p2p"
# irecv tasks not waited for yet, by the id of the tensor they fill (paddle.distributed.wait)
_pending: Dict[int, List[Task]] = {}
_TENSOR, _OBJECTS = b"T", b"O"


def _channel(src: int, dst: int, side: str) -> str:
    """The key of the next message from src to dst; the sending and the receiving side count
    their messages apart (a process may send to itself)."""
    pair = f"{src}-{dst}"
    return f"{_PREFIX}/{pair}/{communicator().next_number(side + pair)}"


def _dtype_name(dtype: np.dtype) -> str:
    # extension types (bfloat16) have no unambiguous .str
    return dtype.name if dtype.kind == "V" else dtype.str


def _encode(array: np.ndarray) -> bytes:
    header = json.dumps({"dtype": _dtype_name(array.dtype), "shape": list(array.shape)})
    return _TENSOR + header.encode() + b"\n" + np.ascontiguousarray(array).tobytes()


def _decode(message: bytes, what: str, src: int) -> np.ndarray:
    if message[:1] != _TENSOR:
        raise RuntimeError(f"{what}: the next message from rank {src} is a list of objects "
                           "(send_object_list), not a tensor")
    header, body = message[1:].split(b"\n", 1)
    meta = json.loads(header)
    return np.frombuffer(body, np.dtype(meta["dtype"])).reshape(meta["shape"]).copy()


def _take(key: str, what: str, src: int) -> bytes:
    comm = communicator()
    timeout = env_timeout_seconds()
    try:
        message = comm.get(key, timeout)
    except TimeoutError as e:
        raise TimeoutError(f"{what}: no message came from rank {src} ({e}; PADDLE_PG_TIMEOUT "
                           "sets the wait); is its matching send missing?") from None
    comm.delete(key)
    return message


def send(tensor: Any, dst: int = 0, group: Optional[Group] = None,
         sync_op: bool = True) -> Optional[Task]:
    """Send `tensor` to rank `dst` (a global rank); its `recv` takes it. Returns at once: the
    message waits for the receiver in the coordinator's store."""
    if eager_rooted(tensor, group, dst, "dst", "send") is None:
        return None
    communicator().put(_channel(get_rank(), dst, "send"), _encode(value(tensor)))
    return Task()


def isend(tensor: Any, dst: int, group: Optional[Group] = None) -> Optional[Task]:
    """`send` without waiting (sends never wait here)."""
    return send(tensor, dst, group, sync_op=False)


def recv(tensor: Any, src: int = 0, group: Optional[Group] = None,
         sync_op: bool = True) -> Optional[Task]:
    """Receive into `tensor`, in place, what rank `src` sent (the same shape and dtype). With
    sync_op=False the task's `wait()` (or `paddle.distributed.wait(tensor)`) receives it."""
    if eager_rooted(tensor, group, src, "src", "recv") is None:
        return None
    key = _channel(src, get_rank(), "recv")

    def finish() -> None:
        got = _decode(_take(key, "recv", src), "recv", src)
        want = value(tensor)
        if got.shape != want.shape or got.dtype != want.dtype:
            raise ValueError(f"recv: rank {src} sent a {got.dtype}{list(got.shape)} tensor into "
                             f"a {want.dtype}{list(want.shape)} one")
        write(tensor, got)
        waiting = _pending.get(id(tensor), [])
        if task in waiting:
            waiting.remove(task)

    task = Task(finish, ready=lambda: communicator().try_get(key) is not None)
    if sync_op:
        task.wait()
    else:
        _pending.setdefault(id(tensor), []).append(task)
    return task


def irecv(tensor: Any, src: Optional[int] = None, group: Optional[Group] = None) -> Optional[Task]:
    """`recv` that completes at the returned task's `wait()`."""
    if src is None:
        raise ValueError("irecv: give src, the global rank the tensor comes from")
    return recv(tensor, src, group, sync_op=False)


def wait(tensor: Any, group: Optional[Group] = None, use_calc_stream: bool = True) -> None:
    """Finish what is still under way for `tensor`: its pending `irecv`s (collectives finish
    before they return)."""
    if group is not None and not group.is_member():
        return
    for task in list(_pending.pop(id(tensor), [])):
        task.wait()


def _peer(group: Optional[Group], rank: Optional[int], in_group: Optional[int], name: str,
          what: str) -> Tuple[Optional[Group], int]:
    """(the group, the global rank of the peer) from `rank` or `in_group`; (None, 0) when this
    process is not in the group."""
    g = resolve(group, what)
    if g is None:
        return None, 0
    if in_group is not None:
        if rank is not None:
            raise ValueError(f"{what}: give {name} or {name}_in_group, not both")
        if not 0 <= in_group < g.nranks:
            raise ValueError(f"{what}: {name}_in_group={in_group} is not a rank of the group "
                             f"of {g.nranks}")
        rank = g.ranks[in_group]
    rank = 0 if rank is None else rank
    group_rank(g, rank, name, what)
    return g, rank


def send_object_list(object_list: List[Any], dst: Optional[int] = None,
                     group: Optional[Group] = None, dst_in_group: Optional[int] = None) -> None:
    """Send the picklable objects of `object_list` to rank `dst` (or the group's
    `dst_in_group`-th process; default rank 0)."""
    if not object_list:
        raise ValueError("send_object_list: object_list cannot be None or empty")
    eager_only("send_object_list")
    g, dst = _peer(group, dst, dst_in_group, "dst", "send_object_list")
    if g is None:
        return
    communicator().put(_channel(get_rank(), dst, "send"),
                       _OBJECTS + pickle.dumps(list(object_list)))


def recv_object_list(object_list: List[Any], src: Optional[int] = None,
                     group: Optional[Group] = None, src_in_group: Optional[int] = None) -> None:
    """Replace the objects of `object_list` by those rank `src` sent (as many as it holds)."""
    if not object_list:
        raise ValueError("recv_object_list: object_list cannot be None or empty")
    eager_only("recv_object_list")
    g, src = _peer(group, src, src_in_group, "src", "recv_object_list")
    if g is None:
        return
    message = _take(_channel(src, get_rank(), "recv"), "recv_object_list", src)
    if message[:1] != _OBJECTS:
        raise RuntimeError(f"recv_object_list: the next message from rank {src} is a tensor "
                           "(send), not a list of objects")
    objects = pickle.loads(message[1:])
    if len(objects) != len(object_list):
        raise ValueError(f"recv_object_list: rank {src} sent {len(objects)} objects, but "
                         f"object_list holds {len(object_list)}")
    object_list[:] = objects
