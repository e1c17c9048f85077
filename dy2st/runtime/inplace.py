"""In-place updates of traced tensors (`x[i] = v`, `x.add_(y)`) seen through every alias: the
Variable object itself takes the new value; while a branch or loop body is traced, updates of
objects from outside it are journaled, undone afterwards and carried out as the op's outputs."""
from __future__ import annotations

import contextlib
import sys
from typing import Any, Dict, Iterator, List, Sequence, Tuple

from . import ops, state
from .dtype import dtype_name
from .leaf_notes import new_leaves
from .origin import user_origin
from .program import Variable, rebind
from .pytree import flatten, unflatten
from .registry import apply, no_grad_update

_FIELDS = ("name", "_shape", "dtype", "block", "persistable", "kind", "elem", "_stop_gradient")


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


def assign_in_place(handle: Any, new: Any, value_changes: bool = True) -> Any:
    """`handle` (a traced tensor object) takes the value `new` of an in-place op; objects that
    are `handle` on some paths only (directly or through other such objects) take it there.
    value_changes: False for a stop of gradients (detach_), which leaves the value as it is."""
    if value_changes:
        handle.block.program.changed_in_place.add(id(handle))
    if not state.build_state.grad_enabled:
        new = no_grad_update(new, handle)
    for other, paths in reachable(handle).values():
        if other._shape != new._shape or other.dtype != new.dtype:
            raise ValueError(
                f"an in-place change makes {handle.name} {dtype_name(new.dtype)}{list(new._shape)}, but on "
                f"some paths it is the same object as a {dtype_name(other.dtype)}{list(other._shape)} "
                "tensor; assign the result to a new name instead of changing it in place")
        pred, on_true = condition(paths)
        _unchecked(other)
        value = ops.where(pred, new, other) if on_true else ops.where(pred, other, new)
        if not state.build_state.grad_enabled:
            value = no_grad_update(value, other)    # the alias's gradient passes unchanged too
        if value_changes:
            other.block.program.changed_in_place.add(id(other))
        rebind(other, value)
    return rebind(handle, new)


def stop_in_place(var: Variable) -> Variable:
    """`var.detach_()` / `var.stop_gradient = True` in traced code: the object (and every object
    that is it on some paths) stands for a `detach` of its value from here on, as eager autograd
    records nothing through the tensor after it; uses traced before keep their gradient."""
    block = state.current_block()
    if block is None or not block.program.grad_stops or var.block.program is not block.program \
            or var.kind != "dense" or not var.dtype.is_inexact or var.persistable:
        return var      # nothing differentiable, or a program that is never differentiated
    saved = state.build_state.grad_enabled
    # the stop is no in-place change made under no_grad (whose no_grad_update would pass the
    # gradient on to the value before it)
    state.build_state.grad_enabled = True
    try:
        return assign_in_place(var, apply("detach", [var]), value_changes=False)
    finally:
        state.build_state.grad_enabled = saved


def note_new_leaf(var: Variable) -> None:
    """`var.stop_gradient = False` in traced code: noted with the user's line and the block it
    is in, by name. A call on which the value needs no gradient makes it a new leaf there, as
    eager autograd does (jit/run_program.py); on a value that needs one it changes nothing."""
    block = state.current_block()
    if block is None or not block.program.grad_stops or var.block.program is not block.program \
            or var.kind != "dense" or not var.dtype.is_inexact or var.persistable:
        return
    new_leaves(block.program)[var.name] = (block.idx, user_origin(2))


Variable.on_stop_gradient = stop_in_place
Variable.on_needs_gradient = note_new_leaf


def _unchecked(other: Any) -> None:
    """The `where` that changes `other` on the paths where it is the handle keeps it as it is
    elsewhere: it must not check that `other` was assigned (on paths where it is the handle it
    was; elsewhere its own later reads check)."""
    state.current_block().checked_defined.add(other.name)


# A path of the alias graph: the (pred, on_true) tests of its edges, all of which must hold.
Path = Tuple[Tuple[Any, bool], ...]

_MAX_DEPTH = 3        # edges followed from an object (a branch in a loop in a loop)
_MAX_PATHS = 4        # paths kept per object reached (their conditions are or-ed)


def reachable(obj: Any) -> Dict[int, Tuple[Any, List[Path]]]:
    """{id(other): (other, paths)}: the objects that are `obj` on some paths, through chains of
    path aliases (a name merged by a tensor `if` or loop that may be another object)."""
    table = obj.block.program.cond_aliases
    found: Dict[int, Tuple[Any, List[Path]]] = {}
    # breadth first, so that when paths are dropped the short (direct) ones are kept
    frontier: List[Tuple[Any, Path, Tuple[int, ...]]] = [(obj, (), (id(obj),))]
    for _ in range(_MAX_DEPTH):
        following = []
        for o, path, seen in frontier:
            for other, pred, on_true in table.get(id(o), ()):
                if id(other) in seen:
                    continue
                step = path + ((pred, on_true),)
                entry = found.setdefault(id(other), (other, []))
                if len(entry[1]) < _MAX_PATHS:
                    entry[1].append(step)
                following.append((other, step, seen + (id(other),)))
        frontier = following
    return found


def condition(paths: List[Path]) -> Tuple[Any, bool]:
    """(bool Variable, on_true): the test under which one of `paths` holds, built in the current
    block (a single edge is its own predicate, without a new op)."""
    if len(paths) == 1 and len(paths[0]) == 1:
        return paths[0][0]
    out = None
    for path in paths:
        term = None
        for pred, on_true in path:
            test = pred if on_true else ops.logical_not(pred)
            term = test if term is None else ops.logical_and(term, test)
        out = term if out is None else ops.logical_or(out, term)
    return out, True


def alias_condition(a: Any, b: Any) -> Any:
    """When the objects a and b are one object: True, a (bool Variable, on_true) test built in
    the current block, or None (never, as far as the trace can see)."""
    if a is b:
        return True
    entry = reachable(a).get(id(b))
    return None if entry is None else condition(entry[1])


def as_flag(test: Any) -> Any:
    """alias_condition's answer as a bool Variable of the current block."""
    if test is None or test is True:
        return ops.full([], test is True, "bool")
    pred, on_true = test
    return pred if on_true else ops.logical_not(pred)


def is_dense_var(v: Any) -> bool:
    return isinstance(v, Variable) and v.kind == "dense"


def leaf_aliases(leaves: List[Any], first_block: int,
                 carried: Sequence[Any] = ()) -> Dict[Tuple, Any]:
    """Which of `leaves` (a branch's or loop body's outputs, traced in blocks from first_block
    on) may be objects from before those blocks, or one another: {key: (object, test)} with key
    ('x', k, id(object)), or ('o', k, k2) (k < k2; object None), and test an alias_condition
    answer. Call before the block's journal finishes (its path aliases are forgotten then).
    `carried`: objects from before that stand for a loop's values while its body is traced."""
    out: Dict[Tuple, Any] = {}

    def outer(o: Any) -> bool:
        return o.block.idx < first_block or any(o is c for c in carried)

    for k, v in enumerate(leaves):
        if not is_dense_var(v):
            continue
        near = reachable(v)
        if outer(v):
            out[("x", k, id(v))] = (v, True)
        for other, paths in near.values():
            if is_dense_var(other) and outer(other):
                out[("x", k, id(other))] = (other, condition(paths))
        for k2 in range(k + 1, len(leaves)):
            w = leaves[k2]
            if w is v and is_dense_var(w):
                out[("o", k, k2)] = (None, True)
            elif is_dense_var(w) and id(w) in near:
                out[("o", k, k2)] = (None, condition(near[id(w)][1]))
    return out


def record(handle: Any) -> None:
    """Called before `handle` is rebound: remember its value if it is from outside the branch or
    loop body being traced."""
    journals = state.build_state.journals
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
    state.build_state.journals.append(j)
    try:
        yield j
    finally:
        state.build_state.journals.pop()


class Attempt(Journal):
    """A trace that may be thrown away and done again (a loop that learns, after tracing, that
    it must carry more state): the objects rebound during it, whatever their block, and the
    path aliases from before it, so that `undo` can give them back."""

    def __init__(self, program: Any) -> None:
        super().__init__(first_block=sys.maxsize)
        self.program = program
        self.aliases = {k: list(v) for k, v in program.cond_aliases.items()}

    def undo(self) -> None:
        self.finish()       # (leaves each variable the object stood for in its block's table)
        self.program.cond_aliases.clear()
        self.program.cond_aliases.update(self.aliases)


@contextlib.contextmanager
def attempt(program: Any) -> Iterator[Attempt]:
    """Trace inside; `undo()` the attempt to throw it away. What it rebound and kept is passed
    on to the enclosing journal, as if that had recorded it."""
    a = Attempt(program)
    journals = state.build_state.journals
    journals.append(a)
    try:
        yield a
    finally:
        journals.pop()
    if journals:
        outer = journals[-1]
        for key, (obj, old) in a.before.items():
            if old[_FIELDS.index("block")].idx < outer.first_block:
                outer.before.setdefault(key, (obj, old))


def replace_objects(value: Any, mapping: Dict[int, Any]) -> Any:
    """value with every leaf that is one of mapping's objects (by identity) replaced."""
    if not mapping:
        return value
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
