"""Program passes run before compilation; each keeps the program's results unchanged."""
from __future__ import annotations

from ..program import Program
from .cse import eliminate_common_subexpressions
from .dce import eliminate_dead_code
from .facts import Facts
from .fold import fold_constants
from .inplace import reuse_buffers
from .noop import remove_noops
from .roll import roll_loops


def optimize(program: Program) -> Program:
    # 0. unrolled Python loops whose iterations repeat become while loops: the passes below and
    #    code generation then see one iteration instead of N.
    roll_loops(program)
    # variables and their dtypes are looked up once for all passes (no pass adds variables;
    # DCE tells the tables which ones it removes)
    facts = Facts(program)
    # 1. no-op casts/reshapes/copies first: later passes then see the values they forward.
    remove_noops(program, facts)
    # 2. fold constants, then 3. merge equal ops (folded constants become equal `full` ops).
    fold_constants(program, facts)
    eliminate_common_subexpressions(program, facts)
    # 4. DCE drops what folding and merging left unread.
    eliminate_dead_code(program, facts)
    # 5. buffer reuse last: it needs the final ops and last uses, and no pass may move an op
    #    across the in-place writes it plans.
    reuse_buffers(program, facts)
    return program
