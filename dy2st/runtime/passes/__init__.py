"""Program passes run before compilation; each keeps the program's results unchanged."""
from __future__ import annotations

from ..program import Program
from .cse import eliminate_common_subexpressions
from .dce import eliminate_dead_code
from .fold import fold_constants
from .inplace import reuse_buffers
from .noop import remove_noops


def optimize(program: Program) -> Program:
    # 1. no-op casts/reshapes/copies first: later passes then see the values they forward.
    remove_noops(program)
    # 2. fold constants, then 3. merge equal ops (folded constants become equal `full` ops).
    fold_constants(program)
    eliminate_common_subexpressions(program)
    # 4. DCE drops what folding and merging left unread.
    eliminate_dead_code(program)
    # 5. buffer reuse last: it needs the final ops and last uses, and no pass may move an op
    #    across the in-place writes it plans.
    reuse_buffers(program)
    return program
