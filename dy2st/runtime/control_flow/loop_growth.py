"""What a converted tensor loop may change in its loop variables from one turn to the next: a
dtype that widens (carried widened), None that becomes a tensor, dict keys added or deleted
(each carried with a "does it hold a value?" flag, like a name assigned on some paths only)."""
from __future__ import annotations

import contextlib
from typing import Any, Iterator, List, Optional, Tuple

from .. import ops, state
from ..dtype import dtype_name
from ..ops.infer import FLOATING
from ..ops.operands import promote, scalar_dtype
from ..program import Block, Variable, block_guard
from ..pytree import flatten, unflatten
from ..registry import Meta
from ..side_effects import IS_NONE, MISSING_KEY
from ..tensor import TensorLike
from ..widened import WIDENED, note_before
from .cond import is_undefined
from .loop_aliases import undefined_entry
from .values import as_constant, is_number, placeholder_like


def widens(before: Meta, after: Any) -> bool:
    """Whether a dense loop variable of spec `before` that a turn makes `after` changes to a
    dtype that holds every value of the old one's kind (int64 -> float32, float32 -> float64),
    as eager type promotion does (`s = s + x.sum()` with an int64 s and a float32 x)."""
    if before.kind != "dense" or after.kind != "dense" or before.dtype == after.dtype:
        return False
    if before.dtype in FLOATING and after.dtype not in FLOATING:
        return False
    return promote(before.dtype, after.dtype) == after.dtype


def widen(value: Any, dtype: Any, name: str = "", origin: Any = None) -> Any:
    """The loop's initial value in the carried dtype (a placeholder stays one: it is never read
    where it holds no value). The widened value is flagged (runtime/widened.py): its flag, false
    before the loop, says whether eager code has the new dtype too (a turn ran)."""
    entry = undefined_entry(value)
    if entry is not None and entry[1] != WIDENED:
        out = ops.full([d if d >= 0 else 1 for d in value._shape], 0, dtype)
        out.block.program.maybe_undefined[out.name] = entry
        return out
    return _flagged(ops.cast(value, dtype), value, name, dtype_name(value.dtype), origin)


def widen_number(value: Any, like: Any, name: str = "", origin: Any = None) -> Any:
    """The initial value of a loop variable that is a Python number before the loop and a
    tensor after a turn (`s = 0; ... s = s + x[0]`): the number as such a tensor, flagged as
    `widen` flags (eager code keeps the number if no turn runs). A 0-d tensor in the number's
    own tensor dtype (`acc = 0.0` summing float32 values) holds the same value: only what a
    returned value is (a number or a tensor) needs the flag, no read is checked."""
    shape = [d if d >= 0 else 1 for d in like._shape]
    out = ops.full(shape, value, like.dtype) if like._shape else as_constant(value, like)
    same = not like._shape and scalar_dtype(value) == like.dtype
    return _flagged(out, value, name, f"the Python number {value!r}", origin, like, same)


def _flagged(out: Any, before: Any, name: str, what: str, origin: Any, like: Any = None,
             same: bool = False) -> Any:
    at = f" (line {origin.line}: {origin.source})" if origin is not None else ""
    like = out if like is None else like
    after = f"{dtype_name(like.dtype)}{list(like._shape)}"
    where = (f"'{name}' is {what} before the tensor loop{at} and {after} after a turn of it; "
             f"when the loop runs no turn, eager code keeps it {what}, which one graph holding "
             f"{after} cannot give here: make '{name}' a {dtype_name(like.dtype)} tensor before the loop "
             "(or convert with full_graph=False, where this line then runs as Python)")
    program = out.block.program
    program.maybe_undefined[out.name] = (ops.full([], False, "bool"), WIDENED, where, origin)
    note_before(program, where, before, out._shape, same)
    return out


def flagged_placeholder(value: Any, name: str, where: str) -> Any:
    """Zeros like `value` (any structure) whose every tensor shares one false "does it hold a
    value?" flag, with the check's marker `name` (a user name, IS_NONE, MISSING_KEY)."""
    out = as_constant(value) if is_number(value) else placeholder_like(value)
    flag = None
    for v in flatten(out)[0]:
        if isinstance(v, Variable):
            if flag is None:
                flag = ops.full([], False, "bool")
            v.block.program.maybe_undefined[v.name] = (flag, name, where, None)
    return out


def none_placeholder(value: Any, name: str, where: str = "") -> Any:
    """The variable `name`, None before a tensor loop and `value` (a tensor) after a turn (or
    None `where` a tensor `if` does not assign it): zeros whose reads fail with TypeError on
    the paths where it is None (eager code would compute with, or return, None: a static graph
    can give neither)."""
    why = where or ("before the tensor loop that makes it a tensor, and the loop ran no turn")
    message = (f"'{name}' is None here: it is None {why}; a static graph cannot compute with "
               f"or return None, so test `{name} is None` (or `is not None`) before using it")
    return flagged_placeholder(value, IS_NONE, message)


def none_or_tensor(t: Any, f: Any, name: str, tb: Block, fb: Block) -> Tuple[Any, Any]:
    """The two paths' values of `name` at the end of a tensor `if`; where one is None and the
    other a tensor (`y = None` before an `if` that assigns it), the None becomes a placeholder
    in its block whose "is it None?" flag `y is None` tests and reads check."""
    if (t is None) == (f is None):
        return t, f
    value, block = (f, tb) if t is None else (t, fb)
    returned = name.startswith("return_value_")     # the converter's: `return None` on one path
    if not (isinstance(value, TensorLike) and value.kind == "dense") and not (
            returned and _NONE_STRUCTURES[0] and _dense_structure(value)):
        return t, f
    with block_guard(block):
        if returned:
            placeholder = flagged_placeholder(value, IS_NONE, (
                "the function returns None here (a `return None`, or its end, on this path of "
                "a tensor `if` whose other path returns a tensor); a static graph cannot "
                "compute with or return None, so test `is None` before using it"))
        else:
            placeholder = none_placeholder(value, name, "on the path of a tensor `if`")
    return (placeholder, f) if t is None else (t, placeholder)


_NONE_STRUCTURES = [0]


@contextlib.contextmanager
def none_structures() -> Iterator[None]:
    """Inside: a function returning a tuple / list of tensors on one path of a tensor `if` and
    None on the other gives that structure with every tensor flagged as None there (the caller
    tests the flag: a forward pre-hook's None keeps the inputs). Elsewhere such a function
    stays refused, as its None cannot be a program output."""
    _NONE_STRUCTURES[0] += 1
    try:
        yield
    finally:
        _NONE_STRUCTURES[0] -= 1


def _dense_structure(value: Any) -> bool:
    leaves, _ = flatten(value)
    return type(value) in (tuple, list) and bool(leaves) and all(
        isinstance(v, TensorLike) and v.kind == "dense" for v in leaves)


def or_none(value: Any, flag: Variable, what: str) -> Any:
    """A copy of `value` that stands for None where `flag` is false (`d.get(k)` of a key a
    tensor loop may add): reads fail there as none_placeholder's do; `is None` tests the flag."""
    leaves, tree = flatten(value)
    out = [_unchecked_copy(v) if isinstance(v, Variable) and v.kind == "dense" else v
           for v in leaves]
    message = (f"{what} is None here: the tensor loop that sets the key ran no turn; a static "
               f"graph cannot compute with or return None, so test `is None` before using it")
    for v in out:
        if isinstance(v, Variable):
            v.block.program.maybe_undefined[v.name] = (flag, IS_NONE, message, None)
    return unflatten(tree, out)


def _unchecked_copy(v: Variable) -> Variable:
    """A copy of v that does not check v's own "does it hold a value?" flag: the copy takes the
    flag over (its reads check it)."""
    block = state.current_block()
    fresh = v.name not in block.checked_defined
    block.checked_defined.add(v.name)
    try:
        return ops.assign(v)
    finally:
        if fresh:
            block.checked_defined.discard(v.name)


def grown(before: Any, after: Any) -> Optional[Any]:
    """`before` (a loop variable's value entering the loop) with the dict keys one turn added
    (`after` has them) as placeholders flagged unassigned, or None when the turn changed its
    structure otherwise. Keys the turn deleted are kept by `keep_deleted` instead."""
    if type(before) is dict and type(after) is dict:
        if any(k not in after for k in before):
            return None
        out = {}
        for k, v in before.items():
            inner = grown(v, after[k])
            if inner is None:
                return None
            out[k] = inner
        for k, v in after.items():
            if k not in before:
                if not _tensors_only(v):
                    return None
                out[k] = flagged_placeholder(v, MISSING_KEY, repr(k))
        return out
    if type(before) in (list, tuple) and type(after) is type(before) and len(before) == len(after):
        parts = [grown(a, b) for a, b in zip(before, after)]
        return None if any(p is None for p in parts) else type(before)(parts)
    same = flatten(before)[1] == flatten(after)[1]
    return before if same else None


def kept(before: Any, after: Any) -> Optional[Any]:
    """`before` with each dict entry a turn deleted (`after` lacks its key; nested dicts too)
    copied and flagged as holding a value, or None when the turn deleted no key."""
    if type(before) is dict and type(after) is dict:
        out, found = {}, False
        for k, v in before.items():
            if k not in after:
                if not all(isinstance(x, TensorLike) and x.kind == "dense"
                           for x in flatten(v)[0]):
                    return None
                out[k], found = _flag_kept(v, k), True
                continue
            inner = kept(v, after[k])
            found = found or inner is not None
            out[k] = v if inner is None else inner
        return out if found else None
    if type(before) in (list, tuple) and type(after) is type(before) and \
            len(before) == len(after):
        parts = [kept(a, b) for a, b in zip(before, after)]
        if all(p is None for p in parts):
            return None
        return type(before)(a if p is None else p for a, p in zip(before, parts))
    return None


def _flag_kept(value: Any, key: Any) -> Any:
    """A copy of a dict entry that a tensor loop may delete, flagged as holding a value."""
    leaves, tree = flatten(value)
    flag = ops.full([], True, "bool")
    out = [ops.assign(v) if isinstance(v, TensorLike) and v.kind == "dense" else v
           for v in leaves]
    for v in out:
        if isinstance(v, Variable):
            v.block.program.maybe_undefined[v.name] = (flag, MISSING_KEY, repr(key), None)
    return unflatten(tree, out)


def keep_deleted(params: Any, out: Any) -> Any:
    """The body's loop variables with each flagged dict key of the params that the turn
    deleted put back as a placeholder flagged unassigned (so every turn has one structure)."""
    if type(params) is dict and type(out) is dict:
        res = {k: keep_deleted(params[k], v) if k in params else v for k, v in out.items()}
        for k, v in params.items():
            if k not in out and _flagged_key(v):
                res[k] = flagged_placeholder(v, MISSING_KEY, repr(k))
        return res
    if type(params) in (list, tuple) and type(out) in (list, tuple) and len(params) == len(out):
        return type(out)(keep_deleted(p, o) for p, o in zip(params, out))
    return out


def presence_flag(value: Any, marker: str) -> Optional[Variable]:
    """The flag saying whether `value` (a loop's None-or-tensor variable, a dict entry the loop
    may add or delete) holds a value, if it is one of those; else None."""
    for v in flatten(value)[0]:
        entry = undefined_entry(v)
        if entry is not None and entry[1] == marker:
            return entry[0]
        return None
    return None


def flagged_keys(d: Any) -> List[Any]:
    """The keys of dict d whose entries a tensor loop may have added or deleted."""
    if type(d) is not dict:
        return []
    return [k for k, v in d.items() if presence_flag(v, MISSING_KEY) is not None]


def refuse_listing(d: Any, what: str) -> None:
    """`what` would list d's keys, which depend on how many turns a tensor loop ran."""
    keys = flagged_keys(d)
    if keys:
        raise TypeError(
            f"{what} of a dict whose keys depend on a tensor loop: the loop adds or deletes "
            f"{', '.join(repr(k) for k in keys)} on some turns, known only when the program "
            "runs; test each key with `k in d` (or read it with `d.get(k, default)`) instead")


def dict_length(d: dict) -> Any:
    """len(d) counting each flagged entry when its flag holds (an int64 tensor then)."""
    keys = flagged_keys(d)
    if not keys:
        return len(d)
    n: Any = len(d) - len(keys)
    for k in keys:
        n = ops.add(ops.cast(presence_flag(d[k], MISSING_KEY), "int64"), n)
    return n


def _flagged_key(value: Any) -> bool:
    return presence_flag(value, MISSING_KEY) is not None


def _tensors_only(value: Any) -> bool:
    leaves = flatten(value)[0]
    return bool(leaves) and all((isinstance(v, TensorLike) or is_number(v)) and
                                not is_undefined(v) for v in leaves)
