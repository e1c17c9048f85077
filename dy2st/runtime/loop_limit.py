"""A bound on the turns of each `while` op of a program (untrusted models): the generated loop
counts its turns and raises LoopLimitError past the bound; unset, loops are unbounded."""
from __future__ import annotations

from typing import TYPE_CHECKING, NoReturn, Optional

if TYPE_CHECKING:
    from .program import Program


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
