"""A tensor loop's flags without loop variables (path_flag_ops.py): when every turn gives the loop
variables the flags the first turn gives (an RNN: its state depends on the weights and inputs from
the first turn on), they are known after the loop from whether a turn ran at all."""
from __future__ import annotations

from typing import Dict, FrozenSet, List, Optional

import numpy as np

from ..autograd.rules import RULES
from ..autograd.static_backward import is_differentiable_value
from ..runtime.passes.effects import UNTOUCHABLE
from ..runtime.program import Block, Operator, Program, Variable
from ..runtime.registry import OPS

Symbols = FrozenSet[int]       # positions among a while op's inputs


def gradient_inputs(op: Operator) -> List[str]:
    """The inputs whose gradient flows to op's outputs."""
    # an in-place change under no_grad passes its gradient to the value from before it only
    return [op.inputs[1]] if op.type == "no_grad_update" else op.inputs


class _Differs(Exception):
    """The flags depend on more than the loop's inputs' flags (a path or a turn count)."""


def turn_summary(program: Program, op: Operator) -> Optional[List[Symbols]]:
    """Per loop variable of while op `op`: the positions of the op's inputs whose flags, or'ed,
    are its flags after one turn or more; None when a later turn may give others (an `if` in the
    body whose branches read different tensors, a variable that takes another's value of the
    turn before, a nested loop whose turns change its flags)."""
    blocks = program.blocks
    body = blocks[op.attrs["body_block"]]
    n = op.attrs["n_loop_vars"]
    try:
        first = _results(program, body, [frozenset((k,)) for k in range(len(body.params))])
    except _Differs:
        return None
    first = first[:n]
    # a second turn reads the first one's results in place of the loop variables
    second = [frozenset().union(*(first[k] if k < n else {k} for k in s)) for s in first]
    return first if second == first else None


def _results(program: Program, block: Block, params: List[Symbols]) -> List[Symbols]:
    """The symbols of a closed block's results, given those of its params."""
    env: Dict[str, Symbols] = dict(zip(block.params, params))
    empty: Symbols = frozenset()
    for op in block.ops:
        if op.type == "cond":
            blocks = program.blocks
            ins = [env.get(n, empty) for n in op.inputs[1:]]
            taken = _results(program, blocks[op.attrs["true_block"]], ins)
            other = _results(program, blocks[op.attrs["false_block"]], ins)
            if taken != other:
                raise _Differs
            outs = taken
        elif op.type == "while":
            ins = [env.get(n, empty) for n in op.inputs]
            inner = turn_summary(program, op)
            n = op.attrs["n_loop_vars"]
            # the same flags after no turn and after any: then the trip count does not matter
            if inner is None or any(frozenset().union(*(ins[k] for k in s)) != ins[j]
                                    for j, s in enumerate(inner)):
                raise _Differs
            outs = ins[:n]
        elif op.type in RULES:
            read = frozenset().union(*(env.get(n, empty) for n in gradient_inputs(op)))
            outs = [read] * len(op.outputs)
        else:
            outs = [empty] * len(op.outputs)
        for o, s in zip(op.outputs, outs):
            var = program.find_var(o)
            env[o] = s if var is not None and is_differentiable_value(var) else empty
    return [env.get(r, empty) for r in block.results]


def first_turn_runs(block: Block, op: Operator) -> Optional[Variable]:
    """The condition of while op `op` evaluated in `block` on the loop's initial values: whether
    its first turn runs (a 0-d bool). None when the condition block cannot run twice unchanged
    (a random draw, an effect, a list it reads or changes, a nested control flow op)."""
    program = block.program
    cond = program.blocks[op.attrs["cond_block"]]
    if any(o.type in UNTOUCHABLE or any(cond.vars[out].kind != "dense" for out in o.outputs)
           for o in cond.ops):
        return None
    names = dict(zip(cond.params, op.inputs))
    for o in cond.ops:
        metas = [(v._shape, v.dtype, v.kind, v.elem) for v in map(cond.vars.get, o.outputs)]
        ins = [program.find_var(names.get(i, i)) for i in o.inputs]
        outs = block.append_op_with_outputs(o.type, ins, metas, dict(o.attrs), o.origin)
        names.update((a, b.name) for a, b in zip(o.outputs, outs))
    pred = program.find_var(names.get(cond.results[0], cond.results[0]))
    if len(pred._shape):
        pred = block.append_op_with_outputs(
            "reshape", [pred], [((), pred.dtype, "dense", None)], {"shape": []}, None)[0]
    return pred


def surely_runs(program: Program, op: Operator, consts: Dict[str, Operator]) -> bool:
    """Whether while op `op` runs a first turn whatever the call's inputs: its condition, on the
    initial values that `full` ops in `consts` (by output name) give, is true (a rolled `for`
    over a constant range)."""
    cond = program.blocks[op.attrs["cond_block"]]
    known = {p: OPS["full"].kernel(**consts[s].attrs)
             for p, s in zip(cond.params, op.inputs) if s in consts}
    for o in cond.ops:
        if o.type in UNTOUCHABLE or not all(i in known for i in o.inputs):
            continue
        opdef = OPS[o.type]
        try:
            out = opdef.kernel(*[known[i] for i in o.inputs], **o.attrs)
        except Exception:  # noqa: BLE001 - not evaluable here: not known to run
            return False
        known.update(zip(o.outputs, out if opdef.n_outputs > 1 else [out]))
    found = known.get(cond.results[0])
    return found is not None and bool(np.all(found))
