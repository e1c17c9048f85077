"""The compiler's check that a generated program reads only values assigned before: a Program
that reads one nothing assigns (a bug of a pass or of a gradient builder) fails when it is
compiled, naming the op, instead of as an UnboundLocalError inside the program when it runs."""
from __future__ import annotations

from typing import NoReturn, Optional, Tuple

from .errors import InternalError
from .program import Block, Operator, Program


def owner_of(program: Program, block: Block) -> Optional[Tuple[Block, Operator]]:
    """The cond or while op whose sub-block `block` is, and its block (None: no such op)."""
    for b in program.blocks:
        for op in b.ops:
            if any(k.endswith("_block") and v == block.idx for k, v in op.attrs.items()):
                return b, op
    return None


def unassigned_read(program: Program, block: Block, name: str,
                    op: Optional[Operator] = None) -> NoReturn:
    """Raise InternalError: `op` of `block` (None: the block's results, or the program's
    fetches for the global block) reads `name`, which no op, param or feed assigned before."""
    # lazy: runtime.printer stays out of a first to_static call (this runs on a bug only)
    from .printer import op_text
    if op is not None:
        reader = f"[operator {op_text(block, op)}] of block {block.idx}"
    elif block.idx == 0:
        reader = "the program's fetches"
    else:
        owner = owner_of(program, block)
        reader = f"the results of block {block.idx}"
        if owner is not None:
            reader += f" (a sub-block of [operator {op_text(*owner)}])"
            op = owner[1]
    where = ""
    if op is not None and op.origin is not None:
        o = op.origin
        where = f'\n  File "{o.file}", line {o.line}, in {o.function}\n    {o.source}'
    raise InternalError(
        f"internal error of dy2st: {reader} reads {name!r}, which nothing assigns before it "
        "(the program would fail with UnboundLocalError when it runs); this is a bug of dy2st, "
        f"not of your code: please report it with the function{where}")
