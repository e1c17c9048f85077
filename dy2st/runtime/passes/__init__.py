"""Program passes run before compilation; each keeps the program's results unchanged."""
from __future__ import annotations

from ..program import Program
from .dce import eliminate_dead_code


def optimize(program: Program) -> Program:
    eliminate_dead_code(program)
    return program
