"""Tensor arrays and tapes inside compiled loops: a fixed-capacity buffer [capacity, *item] and a
length. A loop whose trip count depends on the data appends into one; a run that needs more room
reports it (the overflow flag), and the program is compiled again with twice the capacity."""
from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

from .loader import jax_modules

# the first capacity of a buffer (grown by recompiling when a run overflows it)
INITIAL_CAPACITY = 32


# the ops that take a buffer (any other op reading one needs its data-dependent length)
BUFFER_OPS = frozenset(("tape_push", "tape_read", "array_read", "array_write", "array_length",
                        "cond", "while", "assign"))


class Buffer:
    """A tensor array of `length` items stored in the first rows of `data`."""

    def __init__(self, data: Any, length: Any) -> None:
        self.data = data
        self.length = length

    @property
    def capacity(self) -> int:
        return int(self.data.shape[0])


def _flatten(b: Buffer):
    return (b.data, b.length), None


def _unflatten(aux: Any, children: Any) -> Buffer:
    return Buffer(*children)


_registered = False


def register() -> None:
    """Make Buffer a jax pytree (so lax.while_loop / cond / jit carry it)."""
    global _registered
    if not _registered:
        jax_modules().jax.tree_util.register_pytree_node(Buffer, _flatten, _unflatten)
        _registered = True


def capacity_for(n: int, minimum: int) -> int:
    """The smallest power of two >= max(n, minimum)."""
    cap = max(1, minimum)
    while cap < n:
        cap *= 2
    return cap


def from_items(items: List[Any], capacity: int, like: Optional[Any] = None) -> Buffer:
    """A buffer holding `items` (all of one shape and dtype; `like` gives them when empty)."""
    jnp = jax_modules().jnp
    first = items[0] if items else like
    cap = capacity_for(len(items), capacity)
    data = jnp.zeros((cap,) + tuple(np.shape(first)), dtype=first.dtype)
    if items:
        data = data.at[:len(items)].set(jnp.stack([jnp.asarray(i) for i in items]))
    return Buffer(data, jnp.asarray(len(items), dtype=jnp.int32))


def stackable(items: List[Any]) -> bool:
    """Whether items are arrays of one shape and dtype (not tensor arrays or missing items)."""
    if not items or any(i is None or isinstance(i, (list, Buffer)) for i in items):
        return False
    return len({(tuple(np.shape(i)), str(i.dtype)) for i in items}) == 1


def to_list(data: Any, length: Any) -> List[np.ndarray]:
    """A fetched buffer as the Python list of arrays the numpy executor gives."""
    data = np.asarray(data)
    return [data[k] for k in range(int(length))]
