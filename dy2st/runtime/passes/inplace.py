"""Buffer reuse: an elementwise op whose input dies at that op writes its result into the input's
array (numpy `out=`) instead of allocating a new one.

    t_6 = add(t_4, t_5)                          t_6 = add(t_4, t_5)       [out=t_4]
    t_7 = tanh(t_6)                       ->     t_7 = tanh(t_6)           [out=t_6]

The choice is recorded in `program.buffer_reuse` (fetch names and {id(op): (op, input index, ufunc)}) and
applied by the executor; the Program's ops are unchanged. An input is reused only when it is
proved unshared and dead:
- it is a dense float array of rank >= 1 with a fully known shape and the op's output shape and
  dtype, and every input of the op has that dtype (so numpy computes in the same type, and a
  comparison's bool result is never written into a float buffer);
- it was made in this block by an op that returns a fresh array (effects.returns_fresh), or by a
  reused op whose buffer was itself fresh: never a feed, parameter, hoisted constant, sub-block
  param or a view (getitem, reshape, transpose, ... results may alias their input);
- no value that may alias it (any output of a non-fresh op reading it: views, cond/while
  results, tensor arrays holding it) is read later or leaves the block."""
from __future__ import annotations

from typing import Dict, FrozenSet, Optional, Set, Tuple

import numpy as np

from ..program import Block, Program
from .effects import blocks_inner_first, is_ssa, keep_names, returns_fresh
from .facts import Facts, facts_for

# The root of values not made fresh in this block: feeds, parameters, sub-block params, outputs
# of ops that may return (views of) their inputs. Never reused.
FOREIGN = "<foreign>"
_FOREIGN = frozenset({FOREIGN})
_INF = float("inf")


def _fresh_dtype(op, facts: Facts) -> Optional[np.dtype]:
    """The float dtype of an op returning a fresh array from inputs and output all of that dtype,
    else None. (Compared with `is not None` first: numpy holds `None == float64` true.)"""
    inputs = op.inputs
    if not inputs or len(op.outputs) != 1:
        return None
    float_dtypes = facts.float_dtypes
    dt = float_dtypes.get(inputs[0])
    if dt is None:
        return None
    for n in inputs:
        other = float_dtypes.get(n)
        if other is None or other != dt:
            return None
    out = float_dtypes.get(op.outputs[0])
    if out is None or out != dt or not returns_fresh(op, dt, facts):
        return None
    return dt


def _reuse_block(program: Program, block: Block, table: Dict, facts: Facts) -> int:
    if not is_ssa(block):
        return 0
    ops = block.ops
    keep = keep_names(program, block)
    # roots[v]: the fresh buffers value v may share memory with (names of their first owners)
    roots: Dict[str, FrozenSet[str]] = {}
    last_read: Dict[str, int] = {}
    for i, op in enumerate(ops):
        for n in op.inputs:
            last_read[n] = i
    # last index at which any value aliasing a root is read (or inf if one leaves the block)
    root_end: Dict[str, float] = {}
    planned = 0
    for i, op in enumerate(ops):
        in_dt = _fresh_dtype(op, facts)
        if in_dt is not None:
            out_name = op.outputs[0]
            roots[out_name] = frozenset((out_name,))
            end = _INF if out_name in keep else last_read.get(out_name, i)
            if root_end.get(out_name, -1) < end:
                root_end[out_name] = end
        else:
            # may alias any input, and anything a sub-block returns: never a reuse candidate
            shared: Set[str] = {FOREIGN}
            for n in op.inputs:
                shared |= roots.get(n, _FOREIGN)
            frozen = frozenset(shared)
            for o in op.outputs:
                roots[o] = frozen
                end = _INF if o in keep else last_read.get(o, i)
                for r in frozen:
                    if root_end.get(r, -1) < end:
                        root_end[r] = end
            continue
        ufunc = facts.ufunc(op, in_dt)
        if ufunc is None:
            continue
        shape = facts.vars[out_name]._shape
        if not shape or min(shape) < 0:
            continue
        k = _dying_fresh_input(op, i, shape, roots, root_end, facts)
        if k < 0:
            continue
        table[id(op)] = (op, k, ufunc)
        planned += 1
        # the output now lives in the reused buffer
        (root,) = roots[op.inputs[k]]
        roots[out_name] = frozenset((root,))
        end = _INF if out_name in keep else last_read.get(out_name, i)
        if root_end.get(root, -1) < end:
            root_end[root] = end
    return planned


def _dying_fresh_input(op, i: int, shape, roots, root_end, facts: Facts) -> int:
    """Index of the first input whose buffer is fresh, unshared, of the output's shape and read
    by nothing after op i; -1 if there is none."""
    for k, name in enumerate(op.inputs):
        r = roots.get(name, _FOREIGN)
        if len(r) != 1 or FOREIGN in r or facts.vars[name]._shape != shape:
            continue
        (root,) = r
        if root_end.get(root, -1) <= i:
            return k
    return -1


def reuse_buffers(program: Program, facts: Optional[Facts] = None) -> int:
    """Plan buffer reuse for every block; returns the number of ops that write in place."""
    facts = facts_for(program, facts)
    table: Dict[int, Tuple] = {}
    n = sum(_reuse_block(program, b, table, facts) for b in blocks_inner_first(program))
    program.buffer_reuse = {"fetch": tuple(program.fetch_names), "ops": table}
    program.version += 1
    return n
