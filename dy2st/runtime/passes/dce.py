"""Dead-code elimination: ops whose outputs are never used (and that have no effect) go away,
then persistable values no op reads any more."""
from __future__ import annotations

from typing import Optional, Set

from ..program import Block, Program
from .effects import CONTROL, KEEP_ALWAYS, NONDETERMINISTIC
from .facts import Facts

# Ops kept even when nothing reads their outputs: they print, check or mutate in place, or
# draw from the global generator (dropping a draw would shift every later one).
SIDE_EFFECTS = KEEP_ALWAYS | NONDETERMINISTIC


def _has_effect(program: Program, op) -> bool:
    if op.type in SIDE_EFFECTS:
        return True
    if op.type not in CONTROL:      # the only ops with sub-blocks
        return False
    for idx in op.sub_blocks():
        if any(_has_effect(program, inner) for inner in program.blocks[idx].ops):
            return True
    return False


def _sweep(program: Program, block: Block, live: Set[str]) -> None:
    live = set(live)
    kept = []
    for op in reversed(block.ops):
        if not live.isdisjoint(op.outputs) or _has_effect(program, op):
            kept.append(op)
            live.update(op.inputs)
            if op.type in CONTROL:
                for idx in op.sub_blocks():
                    sub = program.blocks[idx]
                    _sweep(program, sub, set(sub.results))
    block.ops = list(reversed(kept))


def sweep_block(program: Program, block: Block) -> None:
    """Drop the ops of a sub-block (and of the sub-blocks it keeps) that neither lead to its
    results nor have an effect; safe at any time, whatever the program fetches."""
    _sweep(program, block, set(block.results))


def eliminate_dead_code(program: Program, facts: Optional[Facts] = None) -> None:
    g = program.global_block()
    _sweep(program, g, set(program.fetch_names))
    used = {n for op in g.ops for n in op.inputs} | set(program.fetch_names)
    for name in [n for n in program.persistables if n not in used]:
        del program.persistables[name]
        g.vars.pop(name, None)
        program._captured = {k: v for k, v in program._captured.items() if v != name}
        if facts is not None:
            facts.forget(name)
    program.version += 1
