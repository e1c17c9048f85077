"""Buffer reuse: an elementwise op whose input dies at that op writes its result into the input's
array (numpy `out=`) instead of allocating a new one.

    t_6 = add(t_4, t_5)                          t_6 = add(t_4, t_5)       [out=t_4]
    t_7 = tanh(t_6)                       ->     t_7 = tanh(t_6)           [out=t_6]

The choice is recorded in `program.buffer_reuse` (fetch names and {id(op): (op, input index, ufunc)}) and
applied by the executor; the Program's ops are unchanged. An input is reused only when it is
proved unshared and dead:
- it is a dense float array of rank >= 1 with a fully known shape and the op's output shape and
  dtype, and every input of the op has that dtype (so numpy computes in the same type);
- it was made in this block by an op that returns a fresh array (effects.returns_fresh), or by a
  reused op whose buffer was itself fresh: never a feed, parameter, hoisted constant, sub-block
  param or a view (getitem, reshape, transpose, ... results may alias their input);
- no value that may alias it (any output of a non-fresh op reading it: views, cond/while
  results, tensor arrays holding it) is read later or leaves the block."""
from __future__ import annotations

from typing import Dict, FrozenSet, Optional, Set, Tuple

import numpy as np

from ..program import Block, Program
from .effects import blocks_inner_first, elementwise_ufunc, find_var, is_ssa, keep_names, returns_fresh


# The root of values not made fresh in this block: feeds, parameters, sub-block params, outputs
# of ops that may return (views of) their inputs. Never reused.
FOREIGN = "<foreign>"
_FOREIGN = frozenset({FOREIGN})


def _dense_float(var) -> Optional[np.dtype]:
    if var is None or var.kind != "dense":
        return None
    dt = np.dtype(var.dtype.np)
    return dt if dt.kind == "f" else None


def _reuse_block(program: Program, block: Block, table: Dict) -> int:
    if not is_ssa(block):
        return 0
    keep = keep_names(program, block)
    # roots[v]: the fresh buffers value v may share memory with (names of their first owners)
    roots: Dict[str, FrozenSet[str]] = {}
    last_read: Dict[str, int] = {}
    for i, op in enumerate(block.ops):
        for n in op.inputs:
            last_read[n] = i
    # last index at which any value aliasing a root is read (or inf if one leaves the block)
    root_end: Dict[str, float] = {}

    def touch(root: str, until: float) -> None:
        root_end[root] = max(root_end.get(root, -1), until)

    plan: Dict[int, int] = {}
    for i, op in enumerate(block.ops):
        in_vars = [find_var(program, n) for n in op.inputs]
        out_vars = [find_var(program, n) for n in op.outputs]
        in_dt = _dense_float(in_vars[0]) if in_vars else None
        same_dt = in_dt is not None and all(_dense_float(v) == in_dt for v in in_vars)
        fresh = (same_dt and len(op.outputs) == 1 and _dense_float(out_vars[0]) == in_dt
                 and returns_fresh(op, in_dt))
        if fresh:
            roots[op.outputs[0]] = frozenset({op.outputs[0]})
        else:
            # may alias any input, and anything a sub-block returns: never a reuse candidate
            shared: Set[str] = {FOREIGN}
            for n in op.inputs:
                shared |= roots.get(n, _FOREIGN)
            for o in op.outputs:
                roots[o] = frozenset(shared)
        for o in op.outputs:
            end = float("inf") if o in keep else last_read.get(o, i)
            for r in roots[o]:
                touch(r, end)
        if not fresh or elementwise_ufunc(op, in_dt) is None:
            continue
        out = out_vars[0]
        if len(out._shape) == 0 or any(d < 0 for d in out._shape):
            continue
        plan[i] = -1
        for k, (name, var) in enumerate(zip(op.inputs, in_vars)):
            r = roots.get(name, _FOREIGN)
            if len(r) != 1 or FOREIGN in r or var._shape != out._shape:
                continue
            (root,) = r
            if root_end.get(root, -1) <= i:
                plan[i] = k
                break
        if plan[i] < 0:
            del plan[i]
            continue
        # the output now lives in the reused buffer
        root = next(iter(roots[op.inputs[plan[i]]]))
        roots[op.outputs[0]] = frozenset({root})
        touch(root, float("inf") if op.outputs[0] in keep else last_read.get(op.outputs[0], i))
    for i, k in plan.items():
        op = block.ops[i]
        dt = _dense_float(find_var(program, op.inputs[0]))
        table[id(op)] = (op, k, elementwise_ufunc(op, dt))
    return len(plan)


def reuse_buffers(program: Program) -> int:
    """Plan buffer reuse for every block; returns the number of ops that write in place."""
    table: Dict[int, Tuple] = {}
    n = sum(_reuse_block(program, b, table) for b in blocks_inner_first(program))
    program.buffer_reuse = {"fetch": tuple(program.fetch_names), "ops": table}
    program.version += 1
    return n
