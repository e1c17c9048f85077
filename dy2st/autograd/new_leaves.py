"""`y.stop_gradient = False` in a to_static function on a value that needs no gradient on this
call (a `detach()`, a value computed under `no_grad`, one computed from tensors that need none):
eager autograd makes `y` a new leaf, which its outputs then depend on and which gets a `.grad`."""
from __future__ import annotations

from typing import List, Optional

from ..runtime.leaf_notes import new_leaves
from ..runtime.program import Program, defining_origin
from .engine import GradientError
from .static_backward import requires_grad


def made_leaves(program: Program, wrt: List[Optional[str]]) -> List[str]:
    """The values of `program` (a training trace) that `stop_gradient = False` made new leaves
    on a call whose tensors needing a gradient are `wrt` (None: not this one), in trace order; a
    value that needs a gradient already stays as it is, as in eager code. Refused inside a tensor
    `if` or loop body, where the leaf would exist on some paths only."""
    noted = new_leaves(program)
    if not noted:
        return []
    start = [n for n in wrt if n]
    found: List[str] = []
    req = requires_grad(program, program.global_block(), start)
    for name, (block_idx, origin) in noted.items():
        if name in req or name in program.feed_names:
            continue
        if block_idx:
            # (a loaded model's file keeps no line of its own: the value's op gives one)
            origin = origin or defining_origin(program.blocks[block_idx].vars[name])
            where = f'File "{origin.file}", line {origin.line}: ' if origin is not None else ""
            raise GradientError(
                f"{where}`stop_gradient = False` inside a tensor `if` or loop body makes a new "
                "leaf tensor (it needs no gradient on this call) on some paths only, which one "
                "graph cannot hold; set it before the `if` or loop")
        found.append(name)
        req = requires_grad(program, program.global_block(), start + found)
    return found
