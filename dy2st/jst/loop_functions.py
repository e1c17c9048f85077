"""A function made in a tensor loop's body and kept in a loop variable (`f = lambda t: t + r`):
after the loop it is the last turn's function, which reads its free variables (carried by the
loop) when called; a loop that ran no turn leaves the value from before, chosen at run time."""
from __future__ import annotations

import types
from typing import Any, Callable, Dict, Optional, Sequence, Set

from ..runtime import ops
from ..runtime.control_flow.cond import cond, is_undefined
from ..runtime.control_flow.values import as_pred
from ..runtime.origin import source_maps
from ..runtime.program import Variable
from ..runtime.pytree import flatten
from ..runtime.side_effects import IS_NONE, check_defined


def made_in_turn(after: Any, before: Any) -> bool:
    """Whether a turn set a Python loop variable to a new function where it held None, nothing
    yet, or another function before the loop."""
    return type(after) is types.FunctionType and after is not before and (
        before is None or is_undefined(before) or type(before) is types.FunctionType or
        type(before) is LoopFunction)


def made_at(fn: types.FunctionType) -> str:
    """` (File "...", line N: `source`)`: where the user's code makes fn."""
    code = fn.__code__
    origin = source_maps.lookup(code.co_filename, code.co_firstlineno)
    return f' (File "{origin.file}", line {origin.line}: `{origin.source.strip()}`)' \
        if origin else ""


def take_functions(out: list, before: Sequence[Any], names: Sequence[str], carried_cells: Set[int],
                   loop_blocks: int, made: Dict[int, types.FunctionType]) -> None:
    """Note in `made` the functions a turn left in loop variables (index -> function) and give
    the loop the variables' values from before in their place: the loop carries only what
    the functions read. Refuses a function that reads a value of the turn the loop does not
    carry out (a default argument, a variable of another scope): after the loop it would
    read a value of the loop's body."""
    for k, (value, old) in enumerate(zip(out, before)):
        if made_in_turn(value, old):
            what = _stale(value, loop_blocks, carried_cells, set())
            if what is not None:
                raise TypeError(
                    f"loop variable {names[k]!r} is a function made in a tensor loop"
                    f"{made_at(value)} whose "
                    f"{what} holds a value of the loop's turn, which the loop does not carry out; "
                    "compute the value with tensors in the loop and make the function after it")
            made[k] = value
            out[k] = old


def _stale(fn: types.FunctionType, loop_blocks: int, cells: Set[int], seen: Set[int]
           ) -> Optional[str]:
    """What of fn (or of a function it reads) holds a tensor made in the loop that is not in
    one of the loop's carried variables (`cells`, whose values the loop replaces)."""
    if id(fn) in seen:
        return None
    seen.add(id(fn))
    parts = [("default argument", d, False) for d in fn.__defaults__ or ()]
    parts += [("default argument", d, False) for d in (fn.__kwdefaults__ or {}).values()]
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        try:
            parts.append((f"free variable {name!r}", cell.cell_contents, id(cell) in cells))
        except ValueError:          # an empty cell: nothing assigned to it yet
            continue
    for what, value, carried in parts:
        for leaf in flatten(value)[0]:
            if type(leaf) is types.FunctionType:
                inner = _stale(leaf, loop_blocks, cells, seen)
                if inner is not None:
                    return inner
            elif isinstance(leaf, Variable) and leaf.block.idx >= loop_blocks and not carried:
                return what
    return None


def closure_cells(fn: Callable) -> Set[int]:
    """The cells a generated `set_args` helper assigns: the loop's carried variables."""
    return {id(c) for c in getattr(fn, "__closure__", None) or ()}


def first_turn_runs(cond_fn: Callable) -> Any:
    """Whether the loop's first turn runs (cond_fn on the values from before the loop)."""
    c = cond_fn()
    return as_pred(c) if isinstance(c, Variable) else ops.full([], bool(c), "bool")


class LoopFunction:
    """The function a tensor loop's last turn made (`fn`), or the loop variable's value from
    before the loop (`before`: None, nothing yet, a function) when it ran no turn (`ran`)."""

    def __init__(self, fn: types.FunctionType, ran: Variable, before: Any, name: str) -> None:
        self.fn, self.ran, self.before, self.name = fn, ran, before, name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.before is None:
            check_defined(self.ran, IS_NONE, "'NoneType' object is not callable")
        elif is_undefined(self.before):
            check_defined(self.ran, self.name, "")
        else:
            return cond(self.ran, lambda: self.fn(*args, **kwargs),
                        lambda: self.before(*args, **kwargs))
        return self.fn(*args, **kwargs)

    def none_flag(self) -> Optional[Variable]:
        """`f is not None` when that is a run-time question (did the loop run a turn?)."""
        return self.ran if self.before is None else None

    def made_at(self) -> str:
        return made_at(self.fn)

    def __getattr__(self, attr: str) -> Any:
        fn = self.__dict__.get("fn")       # (absent while copy or pickle builds one)
        if fn is None:
            raise AttributeError(attr)
        return getattr(fn, attr)

    def __repr__(self) -> str:
        return f"<function made in a tensor loop: {self.fn!r}>"
