"""`Program.clone(for_test)`: a copy of a Program sharing its parameter tensors; the test clone
runs dropout as the identity, batch_norm on its running statistics, and writes nothing back."""
from __future__ import annotations

import copy
from typing import Dict, Set

from .program import Block, Operator, Program


def clone_program(program: Program, for_test: bool = False) -> Program:
    # parameters, optimizer state and running statistics are shared, as Paddle's clone shares
    # them through its scope; trace-time tables and compiled code are not carried over
    memo: Dict[int, object] = {id(t): t for t in program.persistables.values()}
    memo.update({id(t): t for t in program.write_targets.values()})
    memo.update({id(t): t for t in program.test_substitutes.values()})
    memo[id(program._compiled)] = {}
    memo[id(program.cond_aliases)] = {}
    memo[id(program.unrolled_loops)] = []
    new = copy.deepcopy(program, memo)
    if for_test:
        _to_test(new)
    return new


def _to_test(program: Program) -> None:
    program.persistable_writes = {}
    program.write_targets = {}
    # the persistable's own variable (capture_tensor would give the value a write put after it)
    by_tensor = {id(t): name for name, t in program.persistables.items()}
    substitutes = {name: by_tensor[id(t)] for name, t in program.test_substitutes.items()
                   if id(t) in by_tensor}
    for block in program.blocks:
        # SyncBatchNorm's statistics (a collective) go with the batch statistics they give
        block.ops = [_test_op(block, op, substitutes) for op in block.ops
                     if not (op.type == "sync_batch_norm_stats" and op.outputs[0] in substitutes)]
    _drop_unfed(program.global_block())
    program.version += 1


def _test_op(block: Block, op: Operator, substitutes: Dict[str, str]) -> Operator:
    if op.type == "dropout":
        out = op.outputs[:1]
        if op.attrs.get("upscale", True):
            return Operator("assign", op.inputs[:1], out, {}, op.origin)
        p = float(op.attrs["p"])
        return Operator("scale", op.inputs[:1], out,
                        {"scale": 1.0 - p, "bias": 0.0, "bias_after_scale": True}, op.origin)
    if op.type == "batch_norm" and block.idx == 0:
        inputs = [substitutes.get(n, n) for n in op.inputs]
        if inputs != op.inputs:
            return Operator(op.type, inputs, list(op.outputs), dict(op.attrs), op.origin)
    return op


def _drop_unfed(block: Block) -> None:
    """Drop the ops that read a value no op writes any more (the dropout masks' readers: the
    gradient ops), and theirs in turn."""
    defined: Set[str] = set(block.program.feed_names) | set(block.program.persistables)
    defined |= {n for n, v in block.vars.items() if v.persistable}
    kept = []
    for op in block.ops:
        if all(n in defined for n in op.inputs):
            kept.append(op)
            defined.update(op.outputs)
    block.ops = kept
