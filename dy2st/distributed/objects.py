"""paddle.distributed's collectives of picklable Python objects: `all_gather_object`,
`broadcast_object_list`, `scatter_object_list`. The objects travel pickled, as uint8 tensors
(as in Paddle); a source that cannot pickle its objects makes every process raise, not wait."""
from __future__ import annotations

import pickle
from typing import Any, List, Optional

import numpy as np

from ..runtime.collective import communicator
from .collective import eager_only
from .group import Group, get_rank, group_rank, resolve


def _pickled(objects: List[Any]) -> Optional[List[bytes]]:
    try:
        return [pickle.dumps(o) for o in objects]
    except Exception:  # noqa: BLE001 - any pickling failure: re-raised after the others learn it
        return None


def _pickle_again(objects: List[Any]) -> None:
    """Raise the pickling error itself (on the source, once the others know it failed)."""
    for o in objects:
        pickle.dumps(o)


def bucket(size: int) -> int:
    """`size` rounded up to a power of two (at least 64): the padded lengths objects travel in,
    so objects of changing sizes reuse a few compiled collectives."""
    return 1 << max(6, (int(size) - 1).bit_length())


def _failed(what: str, src: int) -> RuntimeError:
    return RuntimeError(f"{what}: rank {src} could not pickle its objects (it raised there)")


def _list_and_group(objects: Any, name: str, group: Optional[Group], what: str) -> Optional[Group]:
    """The checks every object collective opens with: eager, `objects` a list to fill; the group
    it runs over (None: this process is not in it)."""
    eager_only(what)
    if not isinstance(objects, list):
        raise TypeError(f"{what}: {name} must be a list, got {type(objects).__name__}")
    return resolve(group, what)


def all_gather_object(object_list: List[Any], obj: Any, group: Optional[Group] = None) -> None:
    """Fill `object_list` with every process's picklable `obj`, in rank order."""
    g = _list_and_group(object_list, "object_list", group, "all_gather_object")
    if g is None:
        return
    comm = communicator()
    data = np.frombuffer(pickle.dumps(obj), np.uint8)
    sizes = comm.all_gather(np.array(data.size, np.int64), g.members())
    padded = np.zeros(bucket(max(sizes)), np.uint8)
    padded[:data.size] = data
    parts = comm.all_gather(padded, g.members())
    object_list.clear()
    object_list.extend(pickle.loads(p[:int(n)].tobytes()) for p, n in zip(parts, sizes))


def broadcast_object_list(object_list: List[Any], src: int,
                          group: Optional[Group] = None) -> None:
    """Replace the objects of `object_list` by rank `src`'s (every process passes a list of
    the same length)."""
    g = _list_and_group(object_list, "object_list", group, "broadcast_object_list")
    if g is None:
        return
    root = group_rank(g, src, "src", "broadcast_object_list")
    comm, members = communicator(), g.members()
    # two broadcasts of shapes every process knows: [bytes, count] (-1: src failed), then the
    # sizes and the pickles in one buffer
    payload = b""
    header = np.zeros(2, np.int64)
    if get_rank() == src:
        pickles = _pickled(object_list)
        if pickles is None:
            header[:] = (0, -1)
        else:
            payload = np.array([len(p) for p in pickles], np.int64).tobytes() + b"".join(pickles)
            header[:] = (len(payload), len(object_list))
    header = comm.broadcast(header, root, members)
    if header[1] < 0:
        if get_rank() == src:
            _pickle_again(object_list)
        raise _failed("broadcast_object_list", src)
    buffer = np.zeros(bucket(header[0]), np.uint8)
    if get_rank() == src:
        buffer[:len(payload)] = np.frombuffer(payload, np.uint8)
    buffer = comm.broadcast(buffer, root, members).tobytes()
    count = int(header[1])
    if count != len(object_list):
        raise ValueError(f"broadcast_object_list: rank {src} sent {count} objects, but "
                         f"object_list here holds {len(object_list)}")
    sizes = np.frombuffer(buffer[:8 * count], np.int64)
    offset = 8 * count
    for i, size in enumerate(sizes):
        object_list[i] = pickle.loads(buffer[offset:offset + int(size)])
        offset += int(size)


def scatter_object_list(out_object_list: List[Any], in_object_list: Optional[List[Any]] = None,
                        src: int = 0, group: Optional[Group] = None) -> None:
    """`out_object_list` becomes [the object of rank `src`'s `in_object_list` (one per process,
    in rank order) for this process]."""
    g = _list_and_group(out_object_list, "out_object_list", group, "scatter_object_list")
    if g is None:
        return
    root = group_rank(g, src, "src", "scatter_object_list")
    n, comm, members = g.nranks, communicator(), g.members()
    # [widest pickle (or what src got instead of a list of n), status: 0 ok, -1 unpicklable,
    # -2 not one object per process]
    header = np.zeros(2, np.int64)
    pickles: List[bytes] = []
    if get_rank() == src:
        if not isinstance(in_object_list, (list, tuple)) or len(in_object_list) != n:
            header[:] = (len(in_object_list) if isinstance(in_object_list, (list, tuple))
                         else -1, -2)
        else:
            pickles = _pickled(list(in_object_list)) or []
            header[:] = (max(len(p) for p in pickles), 0) if pickles else (0, -1)
    header = comm.broadcast(header, root, members)
    if header[1] == -2:
        got = str(header[0]) if header[0] >= 0 else "no list"
        raise ValueError(f"scatter_object_list: rank {src}'s in_object_list must hold {n} "
                         f"objects (one per process of the group), got {got}")
    if header[1] == -1:
        if get_rank() == src:
            _pickle_again(list(in_object_list))
        raise _failed("scatter_object_list", src)
    # one row per process: the pickle's length (8 bytes), then the pickle, padded
    rows = np.zeros((n, bucket(8 + header[0])), np.uint8)
    for j, p in enumerate(pickles):
        rows[j, :8] = np.frombuffer(np.int64(len(p)).tobytes(), np.uint8)
        rows[j, 8:8 + len(p)] = np.frombuffer(p, np.uint8)
    mine = comm.scatter(rows, root, members)[0].tobytes()
    size = int(np.frombuffer(mine[:8], np.int64)[0])
    out_object_list.clear()
    out_object_list.append(pickle.loads(mine[8:8 + size]))
