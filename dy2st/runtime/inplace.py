"""In-place updates of traced tensors (`x[i] = v`, `x.add_(y)`) seen through every alias: the
Variable object itself takes the new value; while a branch or loop body is traced, updates of
objects from outside it are journaled, undone afterwards and carried out as the op's outputs."""
from __future__ import annotations

import contextlib
from typing import Any, Dict, Iterator, List, Tuple

from . import state

_FIELDS = ("name", "_shape", "dtype", "block", "persistable", "kind", "elem", "stop_gradient")


def fields(var: Any) -> Tuple[Any, ...]:
    return tuple(getattr(var, f) for f in _FIELDS)


def point(var: Any, values: Tuple[Any, ...]) -> None:
    """Make the Python object `var` stand for the variable described by `values`."""
    for f, v in zip(_FIELDS, values):
        setattr(var, f, v)
    var._shape_cache = None


class Journal:
    """Objects created before block `first` that were rebound while it was traced."""

    def __init__(self, first_block: int) -> None:
        self.first_block = first_block
        self.before: Dict[int, Tuple[Any, Tuple[Any, ...]]] = {}

    def finish(self) -> Dict[int, Tuple[Any, Any]]:
        """{id(obj): (obj, its value now)}; every object gets back its value from before."""
        from .program import Variable
        out: Dict[int, Tuple[Any, Any]] = {}
        for key, (obj, old) in self.before.items():
            now = Variable.__new__(Variable)
            point(now, fields(obj))
            now.block.vars[now.name] = now
            point(obj, old)
            obj.block.vars[obj.name] = obj
            out[key] = (obj, now)
        self.before.clear()
        _forget_aliases(self.first_block)
        return out


def _forget_aliases(first_block: int) -> None:
    """Drop path aliases whose condition was computed inside the branch or body just traced."""
    block = state.current_block()
    if block is None:
        return
    table = block.program.cond_aliases
    for key in list(table):
        kept = [e for e in table[key] if e[1].block.idx < first_block]
        if kept:
            table[key] = kept
        else:
            del table[key]


def add_path_alias(merged: Any, obj: Any, pred: Any, on_true: bool) -> None:
    """After a tensor `if` on pred, `merged` is the object `obj` on the path where pred is
    on_true: a later in-place change of either must reach the other on that path."""
    table = merged.block.program.cond_aliases
    table.setdefault(id(merged), []).append((obj, pred, on_true))
    table.setdefault(id(obj), []).append((merged, pred, on_true))


def assign_in_place(handle: Any, new: Any) -> Any:
    """`handle` (a traced tensor object) takes the value `new` of an in-place op; objects that
    are `handle` on some paths only take it on those paths."""
    from .program import rebind
    program = handle.block.program
    for other, pred, on_true in program.cond_aliases.get(id(handle), ()):
        if other is handle:
            continue
        if other._shape != new._shape or other.dtype != new.dtype:
            raise ValueError(
                f"an in-place change makes {handle.name} {new.dtype}{list(new._shape)}, but on "
                f"some paths it is the same object as a {other.dtype}{list(other._shape)} "
                "tensor; assign the result to a new name instead of changing it in place")
        from . import ops
        value = ops.where(pred, new, other) if on_true else ops.where(pred, other, new)
        rebind(other, value)
    return rebind(handle, new)


def record(handle: Any) -> None:
    """Called before `handle` is rebound: remember its value if it is from outside the branch or
    loop body being traced."""
    journals = state._state.journals
    if not journals:
        return
    j = journals[-1]
    if handle.block.idx < j.first_block and handle.block.program is _program(j):
        j.before.setdefault(id(handle), (handle, fields(handle)))


def _program(j: Journal) -> Any:
    block = state.current_block()
    return block.program if block is not None else None


@contextlib.contextmanager
def journal(first_block: int) -> Iterator[Journal]:
    j = Journal(first_block)
    state._state.journals.append(j)
    try:
        yield j
    finally:
        state._state.journals.pop()


def replace_objects(value: Any, mapping: Dict[int, Any]) -> Any:
    """value with every leaf that is one of mapping's objects (by identity) replaced."""
    if not mapping:
        return value
    from .pytree import flatten, unflatten
    leaves, tree = flatten(value)
    return unflatten(tree, [mapping.get(id(v), v) for v in leaves])


def changed_values(changed: Dict[int, Tuple[Any, Any]]) -> Dict[int, Any]:
    return {k: now for k, (_, now) in changed.items()}


def union(*changes: Dict[int, Tuple[Any, Any]]) -> List[Any]:
    """The objects changed in any of `changes`, in first-seen order."""
    seen: Dict[int, Any] = {}
    for c in changes:
        for k, (obj, _) in c.items():
            seen.setdefault(k, obj)
    return list(seen.values())
