"""Cross-checks of a built Program: names defined before use, control flow fitting its sub-blocks,
and attrs fitting each kernel's signature (so a loaded model fails here, not mid-run)."""
from __future__ import annotations

import inspect
from typing import Any, Dict

from ...runtime.program import Block, Operator, Program
from .errors import _fail

CONTROL_FLOW_ATTRS = {"cond": ("true_block", "false_block"), "while": ("cond_block", "body_block")}


def _check_block(program: Program, block: Block, owner: Dict[int, int], where: str) -> None:
    """Every name is declared, defined before use, and control flow fits its sub-blocks."""
    from ...runtime.registry import OPS
    defined = set(block.params)
    if block.idx == 0:
        defined |= set(program.feed_names) | set(program.persistables)
    for name in list(block.params) + list(block.results) + sorted(defined):
        if name not in block.vars:
            raise _fail(where, f"{name!r} is used but not declared in block {block.idx}")
    for i, op in enumerate(block.ops):
        ow = f"{where}.ops[{i}] ({op.type})"
        for n in op.inputs:
            if n not in block.vars:
                raise _fail(ow, f"input {n!r} is not a variable of block {block.idx}")
            if n not in defined:
                raise _fail(ow, f"input {n!r} is used before it is defined")
        for n in op.outputs:
            if n not in block.vars:
                raise _fail(ow, f"output {n!r} is not a variable of block {block.idx}")
        _check_op_shape(program, block, op, owner, ow)
        if op.type not in CONTROL_FLOW_ATTRS:
            _check_signature(OPS[op.type].kernel, op, ow)
        defined.update(op.outputs)
    for n in block.results:
        if n not in defined:
            raise _fail(where, f"result {n!r} is never defined")


def _check_op_shape(program: Program, block: Block, op: Operator, owner: Dict[int, int],
                    where: str) -> None:
    keys = CONTROL_FLOW_ATTRS.get(op.type, ())
    stray = [k for k in op.attrs if k.endswith("_block") and k not in keys]
    if stray or any(k not in op.attrs for k in keys):
        raise _fail(where, f"sub-block attrs {sorted(k for k in op.attrs if k.endswith('_block'))} "
                           f"do not fit a {op.type!r} op (expected {list(keys)})")
    subs = []
    for k in keys:
        idx = op.attrs[k]
        if type(idx) is not int or not 0 < idx < len(program.blocks):
            raise _fail(where, f"{k}={idx!r} is not a sub-block index")
        sub = program.blocks[idx]
        if sub.parent_idx != block.idx or idx in owner:
            raise _fail(where, f"{k}={idx} is not a child block of block {block.idx} owned by this op")
        owner[idx] = block.idx
        subs.append(sub)
    if op.type == "cond":
        ok = len(op.inputs) >= 1 and all(len(s.params) == len(op.inputs) - 1 and
                                         len(s.results) == len(op.outputs) for s in subs)
    elif op.type == "while":
        n = op.attrs.get("n_loop_vars")
        c, b = subs
        ok = (type(n) is int and 0 <= n <= len(op.inputs) and len(op.outputs) == n and
              len(c.params) == len(b.params) == len(op.inputs) and len(c.results) == 1 and
              len(b.results) == n)
    else:
        return
    if not ok:
        raise _fail(where, f"the {op.type} op's inputs/outputs do not match its sub-blocks' "
                           "params/results")


def _check_signature(kernel: Any, op: Operator, where: str) -> None:
    try:
        sig = inspect.signature(kernel)
    except (TypeError, ValueError):
        return                          # numpy ufuncs have no signature; they take no attrs
    try:
        sig.bind(*([None] * len(op.inputs)), **op.attrs)
    except TypeError as e:
        raise _fail(where, f"the inputs/attrs {sorted(op.attrs)} do not fit the {op.type} kernel "
                           f"({e})") from None
