"""What a `while` gradient knows of a value of the forward loop's body without a tape: the same
value every turn (an invariant, a loop variable carried unchanged), a value computed from such
values alone (computed again in the gradient loop), or one of the two ends of a loop variable's
turn (a turn's input is the previous turn's output: both share one tape). A `cond` gradient
likewise makes a branch's constants again rather than exporting them as outputs (which a loop
around the `cond` would push every turn)."""
from __future__ import annotations

from typing import Dict, Optional, Tuple

from ..runtime.passes.effects import UNTOUCHABLE
from ..runtime.program import Block, Operator, Variable
from ..runtime.registry import OPS

# ops that call the user's Python (a PyLayer, static.py_func): never run a second time
CALLS_PYTHON = frozenset({"py_func", "py_layer", "py_layer_multi"})


def unchanged_source(op: Operator, body: Block, name: str) -> Optional[str]:
    """The name outside the loop whose value `name` (a body param) has on every turn: an
    invariant's source, or the initial value of a loop variable each turn passes on as it is."""
    if name not in body.params:
        return None
    i = body.params.index(name)
    if i >= op.attrs["n_loop_vars"] or body.results[i] == name:
        return op.inputs[i]
    return None


def invariant_op(op: Operator, body: Block, name: str,
                 made: Optional[Dict[str, Operator]] = None) -> Optional[Operator]:
    """The body op computing `name` when it is deterministic, effect-free and reads only values
    that are the same every turn (recursively): the gradient loop computes it again instead of
    reading a tape. `made` maps the body's names to their ops (built when not given)."""
    if made is None:
        made = {o: p for p in body.ops for o in p.outputs}
    return _invariant(op, body, name, made, {})


def _invariant(op: Operator, body: Block, name: str, made: Dict[str, Operator],
               seen: Dict[str, bool]) -> Optional[Operator]:
    p = made.get(name)
    if p is None or p.type in UNTOUCHABLE or p.type in CALLS_PYTHON or p.type not in OPS:
        return None
    known = seen.get(name)
    if known is None:
        seen[name] = False          # a cycle (never in SSA form) is not invariant
        program = body.program
        known = all(program.find_var(n).kind == "dense" for n in (*p.inputs, *p.outputs)) and \
            all(unchanged_source(op, body, n) is not None or
                _invariant(op, body, n, made, seen) is not None for n in p.inputs)
        seen[name] = known
    return p if known else None


def carried_position(op: Operator, body: Block, v: Variable) -> Optional[Tuple[int, int]]:
    """(j, 0) when v is loop variable j as a turn starts, (j, 1) when it is j's value after the
    turn, for a dense loop variable whose value keeps its shape and dtype; else None. Turn k
    reads item k + offset of the tape [before the loop, after turn 0, after turn 1, ...]."""
    if v.kind != "dense":
        return None
    n = op.attrs["n_loop_vars"]
    if v.name in body.params[:n]:
        j, offset = body.params.index(v.name), 0
    elif v.name in body.results[:n]:
        j, offset = body.results.index(v.name), 1
    else:
        return None
    program = body.program
    init, result = program.find_var(op.inputs[j]), program.find_var(body.results[j])
    for other in (init, result):
        if other.kind != "dense" or other.dtype != v.dtype or tuple(other._shape) != tuple(v._shape):
            return None
    return j, offset


def constant_op(block: Block, name: str) -> Optional[Operator]:
    """The op of `block` computing `name` from constants alone (a `full`, ops of such values):
    deterministic, effect-free and reading no param, so a gradient can make it again."""
    made = {o: p for p in block.ops for o in p.outputs}
    seen: Dict[str, bool] = {}

    def constant(n: str) -> bool:
        if n not in seen:
            p = made.get(n)
            seen[n] = p is not None and p.type not in UNTOUCHABLE and \
                p.type not in CALLS_PYTHON and p.type in OPS and \
                block.program.find_var(n).kind == "dense" and all(constant(i) for i in p.inputs)
        return seen[n]
    return made[name] if constant(name) else None
