"""A gradient that a traced backward() gives along some paths only (a loop that may run no turn, a
branch not taken): the `.grad` slot takes it only where the loss depends on the tensor along this
run's path, and an optimizer step skips the tensor where it then has no gradient, as eager code."""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional

from ..runtime import state
from ..runtime.control_flow.cond import cond
from ..runtime.program import Program, Variable
from ..runtime.registry import apply
from ..runtime.side_effects import IS_NONE, raise_when_run

# Set by jit/path_grads.py (a higher package): (program, output names, wrt names) -> per wrt name
# the outputs depend on along some paths only, the bool (added to the program) of this run's path
reached_flags: Optional[Callable[[Program, List[str], List[str]], Dict[str, Variable]]] = None


def path_reach(program: Program, outputs: List[Variable], wrt: List[str]) -> Dict[str, Variable]:
    """Per name of `wrt` that `outputs` reach along some paths only: whether this run's does."""
    if reached_flags is None:
        return {}
    return reached_flags(program, [o.name for o in outputs], wrt)


def none_where(program: Program, value: Variable, present: Variable, message: str) -> Variable:
    """A copy of `value` that stands for None where `present` is false: converted code's `is
    None` tests the flag, a returned one is None there, other reads fail with `message`."""
    out = apply("assign", [value])
    program.maybe_undefined[out.name] = (present, IS_NONE, message, None)
    return out


def raise_unless(present: Variable, exc: BaseException) -> None:
    """An op that raises `exc` when the program runs with `present` false (eager raises it only
    on such paths)."""
    cond(apply("logical_not", [present]), lambda: raise_when_run(exc))


def _present(program: Program) -> Dict[Any, Variable]:
    """key -> whether the slot holds a gradient after the backward that gave it one on some paths
    (until the trace writes it on every path again)."""
    return program.__dict__.setdefault("grad_present_flags", {})


def accumulate_where(program: Program, key: Any, slot: Any, g: Variable, reached: Variable) -> None:
    """The slot's gradient plus g where `reached`, else unchanged (None stays None)."""
    old = program.capture_tensor(slot)
    _present(program)[key] = apply("logical_or", [apply("grad_present", [old]), reached])
    cond(reached, lambda: program.record_persistable_write(
        slot, apply("grad_accumulate", [old, g])))


def forget_presence(program: Program, key: Any) -> None:
    """The slot of `key` was written on every path."""
    _present(program).pop(key, None)


def presence(program: Program, key: Any) -> Optional[Variable]:
    """Whether the slot of `key` holds a gradient on this run, when that depends on the path."""
    return _present(program).get(key)


def grad_flag(tensor: Any) -> Optional[Variable]:
    """While a train step is traced: whether `tensor` (a parameter) has a gradient on this run,
    when a backward gave it one on some paths only (an optimizer updates it only then); None
    when it is the same on every path."""
    program = state.current_program()
    return None if program is None else presence(program, id(tensor))
