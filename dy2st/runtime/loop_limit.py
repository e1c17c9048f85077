"""A bound on the turns of each `while` op of a program (untrusted models): the generated loop
counts its turns and raises LoopLimitError past the bound; unset, loops are unbounded."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, NoReturn, Optional, Tuple

if TYPE_CHECKING:
    from .program import Operator, Program


class LoopLimitError(RuntimeError):
    """A while loop of a program ran more turns than the program's max_loop_iterations."""


def loop_limit(program: "Program") -> Optional[int]:
    """The program's bound on the turns of each while loop (None: unbounded)."""
    return getattr(program, "max_loop_iterations", None)


def set_loop_limit(program: "Program", limit: Optional[int]) -> None:
    """Bound every while loop of `program` to `limit` turns per run (None: unbounded)."""
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
        raise ValueError(f"max_loop_iterations must be an int >= 0 or None, got {limit!r}")
    program.max_loop_iterations = limit
    program._compiled = {}          # code generated without (or with another) bound


def loop_limit_exceeded(limit: int) -> NoReturn:
    """Called by the generated code of a while loop on its turn limit + 1."""
    raise LoopLimitError(f"the while loop ran more than {limit} iterations "
                         f"(max_loop_iterations={limit}); the model may loop forever")


# The executor's code generation for a bounded while (`gen` is its _Codegen: emit, const,
# new_local, program); `tag` ties each emitted line to the while op, so a LoopLimitError raised
# there names the op and the user's line.
def start_turn_count(gen: Any, ind: str, tag: Tuple[int, "Operator"]) -> Optional[str]:
    """The local counting a while loop's turns when the program bounds them, set to 0."""
    if loop_limit(gen.program) is None:
        return None
    turns = gen.new_local()
    gen.emit(f"{ind}{turns} = 0", tag)
    return turns


def count_turn(gen: Any, turns: Optional[str], ind: str, tag: Tuple[int, "Operator"]) -> None:
    """One more turn of the loop: past the program's bound, LoopLimitError."""
    if turns is None:
        return
    limit = loop_limit(gen.program)
    gen.emit(f"{ind}{turns} += 1", tag)
    gen.emit(f"{ind}if {turns} > {limit}: {gen.const('L', loop_limit_exceeded)}({limit})", tag)


def check_trip_count(gen: Any, turns: str, ind: str, tag: Tuple[int, "Operator"]) -> None:
    """A counted loop (`turns` holds its range) longer than the bound fails before turn one."""
    limit = loop_limit(gen.program)
    if limit is not None:
        gen.emit(f"{ind}if len({turns}) > {limit}: {gen.const('L', loop_limit_exceeded)}({limit})",
                 tag)
