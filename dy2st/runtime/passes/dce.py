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


def _reads(block: Block, name: str) -> bool:
    return name in block.results or any(name in op.inputs for op in block.ops)


def _drop_dead_loop_vars(program: Program, op, live: Set[str]) -> None:
    """Drop the loop variables of a `while` that nothing reads: unused after the loop and
    unread by the condition and the body but for their own update (a "did the body run?" flag
    kept for in-place changes that never came)."""
    if set(op.attrs) != {"cond_block", "body_block", "n_loop_vars"}:
        return      # (other while ops number their loop variables in other attrs too)
    cb, bb = program.blocks[op.attrs["cond_block"]], program.blocks[op.attrs["body_block"]]
    n = op.attrs["n_loop_vars"]
    dead = []
    for j in range(n):
        cp, bp, res = cb.params[j], bb.params[j], bb.results[j]
        if op.outputs[j] in live or _reads(cb, cp) or _reads(bb, bp) or res in bb.params \
                or bb.results.count(res) > 1:
            continue
        dead.append(j)
    if not dead:
        return
    keep = [j for j in range(len(op.inputs)) if j not in dead]
    op.inputs = [op.inputs[j] for j in keep]
    op.outputs = [o for j, o in enumerate(op.outputs) if j not in dead]
    for b in (cb, bb):
        gone = {b.params[j] for j in dead}
        b.params = [b.params[j] for j in keep]
        b.captures = {k: v for k, v in b.captures.items() if v not in gone}
    bb.results = [r for j, r in enumerate(bb.results) if j not in dead]
    op.attrs["n_loop_vars"] = n - len(dead)


def _sweep(program: Program, block: Block, live: Set[str]) -> None:
    live = set(live)
    kept = []
    for op in reversed(block.ops):
        if op.type == "while":
            _drop_dead_loop_vars(program, op, live)
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
