"""A gradient program cut down to some of its seeds: the ops that carry only the gradients of
outputs given none (a symbolic zero) are dropped, inside `cond` and `while` gradients too, as
eager's engine never visits the ops of an output no gradient reached (`0 * inf` stays out)."""
from __future__ import annotations

from typing import Dict, Iterable, List, Set

from ..runtime import ops
from ..runtime.program import Block, Operator, Program, block_guard

# ops that sum gradients: an absent operand is a zero term left out
_SUMS = ("add", "array_grad_add")


class Unsupported(Exception):
    """The program mixes an absent gradient where no zero of a known shape can stand for it."""


def prune_absent(program: Program, seeds: Iterable[str], absent_seeds: Iterable[str]
                 ) -> List[bool]:
    """Drop from `program` (a gradient program: its global block holds gradient ops only) the
    ops computing only from `absent_seeds`; a value mixing an absent gradient with a present
    one (the gradient of a multi-output op, a branch that gives none) gets zeros, as eager
    fills a missing gradient with zeros. Fetches that end up absent are left out of
    `program.fetch_names`. Raises Unsupported (the program is then left half-edited)."""
    block = program.global_block()
    cot = set(seeds)
    _mark_cotangents(program, block, cot)
    absent = set(absent_seeds)
    _find_absent(program, block, absent, cot)
    alias: Dict[str, str] = {}
    _cut(program, block, absent, cot, alias)
    kept = [n not in absent for n in program.fetch_names]
    program.fetch_names = [alias.get(n, n) for n in program.fetch_names if n not in absent]
    return kept


def _inexact(program: Program, name: str) -> bool:
    v = program.find_var(name)
    return v is not None and v.dtype.is_inexact


def _zero_ready(program: Program, name: str) -> bool:
    v = program.find_var(name)
    return v is not None and v.kind == "dense" and all(d >= 0 for d in v._shape)


def _blocks(program: Program, op: Operator, *keys: str) -> List[Block]:
    return [program.blocks[op.attrs[k]] for k in keys]


# ----------------------------------------------------------------------------- cotangents
def _mark_cotangents(program: Program, block: Block, cot: Set[str]) -> None:
    """Add to `cot` every value computed from a seed (a gradient, not a forward value); loop
    variables of a gradient `while` count as gradients (they sum them)."""
    for op in block.ops:
        if op.type == "cond":
            tb, fb = _blocks(program, op, "true_block", "false_block")
            for b in (tb, fb):
                cot.update(p for p, s in zip(b.params, op.inputs[1:]) if s in cot)
                _mark_cotangents(program, b, cot)
            cot.update(o for i, o in enumerate(op.outputs)
                       if tb.results[i] in cot or fb.results[i] in cot)
        elif op.type == "while":
            n = op.attrs["n_loop_vars"]
            for b in _blocks(program, op, "cond_block", "body_block"):
                cot.update(p for j, (p, s) in enumerate(zip(b.params, op.inputs))
                           if s in cot or (j < n and _inexact(program, p)))
                _mark_cotangents(program, b, cot)
            cot.update(o for o in op.outputs if _inexact(program, o))
        elif any(n in cot for n in op.inputs):
            cot.update(o for o in op.outputs if _inexact(program, o))


# ----------------------------------------------------------------------------- analysis
def _find_absent(program: Program, block: Block, absent: Set[str], cot: Set[str]) -> None:
    """Add to `absent` the values of `block` that only absent gradients reach."""
    for op in block.ops:
        if op.type == "cond":
            _cond_absent(program, op, absent, cot)
        elif op.type == "while":
            _while_absent(program, op, absent, cot)
        elif any(n in absent for n in op.inputs):
            present = [n for n in op.inputs if n not in absent and n in cot]
            if not present:
                if not all(_inexact(program, o) for o in op.outputs):
                    raise Unsupported(f"{op.type} reads an absent gradient for a non-float value")
                absent.update(op.outputs)
            elif op.type not in _SUMS and not all(
                    _zero_ready(program, n) for n in op.inputs if n in absent):
                raise Unsupported(f"{op.type} mixes an absent gradient of unknown shape")
            elif op.type in _SUMS and not _same_meta(program, present[0], op.outputs[0]):
                raise Unsupported(f"{op.type} broadcasts a gradient")


def _same_meta(program: Program, a: str, b: str) -> bool:
    va, vb = program.find_var(a), program.find_var(b)
    return (va._shape, va.dtype, va.kind) == (vb._shape, vb.dtype, vb.kind)


def _cond_absent(program: Program, op: Operator, absent: Set[str], cot: Set[str]) -> None:
    tb, fb = _blocks(program, op, "true_block", "false_block")
    for b in (tb, fb):
        absent.update(p for p, s in zip(b.params, op.inputs[1:]) if s in absent)
        _find_absent(program, b, absent, cot)
    for i, o in enumerate(op.outputs):
        gone = (tb.results[i] in absent, fb.results[i] in absent)
        # a result no seed reaches (zeros for a value the branch does not read) is a zero too
        if all(r in absent or r not in cot for r in (tb.results[i], fb.results[i])):
            absent.add(o)
        elif any(gone) and not _zero_ready(program, o):
            raise Unsupported("a branch gives no gradient of unknown shape")


def _while_absent(program: Program, op: Operator, absent: Set[str], cot: Set[str]) -> None:
    """A loop variable stays absent if it starts absent and each turn keeps it absent (the
    smallest such set, found by shrinking the set of those that start absent)."""
    n = op.attrs["n_loop_vars"]
    cb, bb = _blocks(program, op, "cond_block", "body_block")
    still = {j for j in range(n) if op.inputs[j] in absent}
    while True:
        trial = set(absent)
        for b in (cb, bb):
            trial.update(p for j, (p, s) in enumerate(zip(b.params, op.inputs))
                         if (j in still if j < n else s in absent))
        _find_absent(program, cb, trial, cot)
        _find_absent(program, bb, trial, cot)
        kept = {j for j in still if bb.results[j] in trial}
        if kept == still:
            break
        still = kept
    absent |= trial
    absent.update(op.outputs[j] for j in still)
    for j in range(n):
        if j not in still and op.inputs[j] in absent and not _zero_ready(program, op.inputs[j]):
            raise Unsupported("a loop gradient starts absent with an unknown shape")


# ----------------------------------------------------------------------------- edit
def _zeros(block: Block, like: str) -> str:
    """Append to block a zero of `like`'s (static) shape; returns its name."""
    v = block.program.find_var(like)
    with block_guard(block):
        return ops.full(list(v._shape), 0, v.dtype).name


def _cut(program: Program, block: Block, absent: Set[str], cot: Set[str],
         alias: Dict[str, str]) -> None:
    kept: List[Operator] = []
    for op in list(block.ops):
        op.inputs = [alias.get(n, n) for n in op.inputs]
        if op.type in ("cond", "while"):
            (_cut_cond if op.type == "cond" else _cut_while)(program, block, op, absent, cot,
                                                              alias, kept)
            if op.outputs:
                kept.append(op)
            continue
        gone = [n for n in op.inputs if n in absent]
        if not gone:
            kept.append(op)
        elif all(o in absent for o in op.outputs):
            continue
        elif op.type in _SUMS:
            alias[op.outputs[0]] = next(n for n in op.inputs if n not in absent)
        else:   # a present gradient beside an absent one: zeros, as eager fills them
            zeros = {}
            for n in gone:
                if n not in zeros:
                    zeros[n] = _zeros(block, n)
                    kept.append(block.ops.pop())
            op.inputs = [zeros.get(n, n) for n in op.inputs]
            kept.append(op)
    block.ops = kept
    block.results = [alias.get(n, n) for n in block.results]


def _drop_params(blocks: List[Block], op: Operator, drop: List[int], offset: int) -> None:
    """Remove op input `offset + i` for each i in drop, and the param i of each block."""
    for b in blocks:
        gone = {b.params[i] for i in drop}
        b.params = [p for i, p in enumerate(b.params) if i not in drop]
        b.captures = {s: p for s, p in b.captures.items() if p not in gone}
    op.inputs = op.inputs[:offset] + [s for i, s in enumerate(op.inputs[offset:])
                                      if i not in drop]


def _cut_cond(program: Program, block: Block, op: Operator, absent: Set[str], cot: Set[str],
              alias: Dict[str, str], kept: List[Operator]) -> None:
    tb, fb = _blocks(program, op, "true_block", "false_block")
    for b in (tb, fb):
        _cut(program, b, absent, cot, alias)
    keep = []
    for i, o in enumerate(op.outputs):
        if o in absent:
            continue
        for b in (tb, fb):
            if b.results[i] in absent:
                b.results[i] = _zeros(b, o)
        keep.append(i)
    op.outputs = [op.outputs[i] for i in keep]
    for b in (tb, fb):
        b.results = [b.results[i] for i in keep]
    _drop_params([tb, fb], op, [i for i, s in enumerate(op.inputs[1:]) if s in absent], 1)


def _cut_while(program: Program, block: Block, op: Operator, absent: Set[str], cot: Set[str],
               alias: Dict[str, str], kept: List[Operator]) -> None:
    n = op.attrs["n_loop_vars"]
    cb, bb = _blocks(program, op, "cond_block", "body_block")
    for b in (cb, bb):
        _cut(program, b, absent, cot, alias)
    for j in range(n):
        if op.outputs[j] not in absent and op.inputs[j] in absent:
            op.inputs[j] = _zeros(block, op.inputs[j])      # a gradient a later turn gives
            kept.append(block.ops.pop())
    gone = [j for j in range(n) if op.outputs[j] in absent]
    bb.results = [r for j, r in enumerate(bb.results) if j not in gone]
    op.outputs = [o for j, o in enumerate(op.outputs) if j not in gone]
    op.attrs["n_loop_vars"] = n - len(gone)
    drop = gone + [j for j in range(n, len(op.inputs)) if op.inputs[j] in absent]
    _drop_params([cb, bb], op, drop, 0)
