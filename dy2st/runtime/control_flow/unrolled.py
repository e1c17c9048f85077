"""Where tracing unrolled a Python loop: the op positions at which its iterations began, kept on
the Program as hints for passes/roll.py (which checks everything it relies on itself)."""
from __future__ import annotations

from typing import Any, List, Optional

from .. import state
from ..origin import Origin, user_origin


class UnrolledLoop:
    """marks[k]: how many ops the block held when iteration k began; the last mark is the end."""

    __slots__ = ("block", "marks", "origin")

    def __init__(self, block: Any, origin: Optional[Origin]) -> None:
        self.block = block
        self.marks: List[int] = []
        self.origin = origin

    def mark(self) -> None:
        self.marks.append(len(self.block.ops))


def unrolled_loop() -> Optional[UnrolledLoop]:
    """A record for a Python loop starting now, or None when nothing is being traced."""
    block = state.current_block()
    if block is None:
        return None
    loop = UnrolledLoop(block, user_origin(2))
    block.program.unrolled_loops.append(loop)
    return loop
