"""Minimal loop tapes: after the gradient ops of a program's `while` loops are appended, each
forward loop keeps on its tapes (the per-turn values it pushes for its gradient loop) only what
that gradient reads, in the form it reads it.

A gradient rule is handed every input and output of its op, and each one reached from a loop's
gradient was pushed by the forward loop whether the rule read it or not. This pass then
- drops the gradient ops nobody reads inside sub-blocks, the values a `cond` or `while` captures
  that none of its blocks reads, and the tapes whose reads all went: a value the backward does
  not need is not pushed;
- turns the reads of a tape that are used only for their shape and dtype (`reduce_as` of a
  broadcast add, the zeros of a missing gradient, a dynamic dim) into zeros of the static shape
  in the gradient loop (nothing is pushed), or, for a shape with a dim known only at run time,
  pushes a `shape_holder` of the value: an array of its shape and dtype that holds one element.

    forward body:   t_8 = add(t_6, t_7)            t_8 = add(t_6, t_7)
                    tape = tape_push(tape, t_8) -> (pushed only if a gradient reads t_8's
    gradient body:  r = tape_read(tape, k)          values; for its shape alone: a holder)
                    g = reduce_as(g_8, r)

The transformation keeps every gradient the same: a read used only for its shape sees the same
shape and dtype, and what is dropped is read by nothing."""
from __future__ import annotations

from collections import Counter
from itertools import chain
from typing import Dict, FrozenSet, Iterator, List, Optional, Set, Tuple

from ..dtype import dtype_name
from ..program import Block, Operator, Program, Variable
from .dce import sweep_block

# The operands that ops read for their shape and dtype alone: the gradient rules' `reduce_as`
# target, `zeros_like`'s operand, the `shape` op a dynamic dim reads, a mean's element count,
# and the input whose zeros the gradient ops of indexing, slicing, padding and gathering fill.
SHAPE_ONLY: Dict[str, FrozenSet[int]] = {
    "reduce_as": frozenset({1}),
    "full_like": frozenset({0}),
    "shape": frozenset({0}),
    "numel": frozenset({0}),
    **{name: frozenset({0}) for name in (
        "getitem_grad", "split_grad", "unbind_grad", "strided_slice_grad", "pad_grad",
        "tile_grad", "diag_grad", "gather_grad", "gather_nd_grad")},
    "embedding_grad": frozenset({1}),
}


def minimize_tapes(program: Program, first_gradient_block: int) -> Set[str]:
    """Shrink the tapes of every forward `while` of `program` to what their gradient loops read;
    returns the names of the tapes (outputs of forward `while` ops) dropped or made to hold
    shapes only, which a later gradient of the program must not read values from. The blocks
    from `first_gradient_block` on are the gradient's sub-blocks, the only ones whose ops and
    captures this may drop; elsewhere only tapes change, so this may run on a program whose
    fetch list is not final, or while a train step is still being traced."""
    if not any(op.type == "tape_push" for b in program.blocks for op in b.ops):
        return set()
    changed_tapes: Set[str] = set()
    while True:
        changed = _sweep_sub_blocks(program, first_gradient_block)
        changed |= _drop_unread_captures(program, first_gradient_block)
        held = _shape_only_tapes(program, _Reads(program))
        gone = _drop_unread_tapes(program, _Reads(program))
        changed_tapes |= held | gone
        if not (changed or held or gone):
            return changed_tapes


class _Reads:
    """Who reads what, for one step of the pass: counts over the program (op inputs, block
    results, fetches) and, per block, the (op, operand) reads of each name."""

    def __init__(self, program: Program) -> None:
        self.program = program
        self.counts: Counter = Counter(chain(
            program.fetch_names, *(b.results for b in program.blocks),
            *(op.inputs for b in program.blocks for op in b.ops)))
        self._by_block: Dict[int, Dict[str, List[Tuple[Operator, int]]]] = {}

    def __getitem__(self, name: str) -> int:
        return self.counts[name]

    def in_block(self, block: Block, name: str) -> List[Tuple[Operator, int]]:
        table = self._by_block.get(block.idx)
        if table is None:
            table = self._by_block[block.idx] = {}
            for op in block.ops:
                for k, n in enumerate(op.inputs):
                    table.setdefault(n, []).append((op, k))
        return table.get(name, [])


def _control_ops(program: Program) -> Iterator[Tuple[Block, Operator]]:
    for b in program.blocks:
        for op in b.ops:
            if op.type in ("cond", "while"):
                yield b, op


def _gradient_ops(program: Program, first: int) -> Iterator[Operator]:
    """The cond and while ops of the gradient: their blocks are numbered from `first` on."""
    for _, op in _control_ops(program):
        if min(op.sub_blocks()) >= first:
            yield op


def _sweep_sub_blocks(program: Program, first: int) -> bool:
    changed = False
    for op in _gradient_ops(program, first):
        for idx in op.sub_blocks():
            block = program.blocks[idx]
            before = len(block.ops)
            sweep_block(program, block)
            changed |= len(block.ops) != before
    return changed


def _read_names(block: Block) -> Set[str]:
    return set(block.results).union(*(op.inputs for op in block.ops))


def _drop_param(block: Block, pos: int) -> None:
    name = block.params.pop(pos)
    for outer, local in list(block.captures.items()):
        if local == name:
            del block.captures[outer]


def _drop_unread_captures(program: Program, first: int) -> bool:
    """Captured values (a while's invariants, a cond's operands) that no block of a gradient op
    reads."""
    changed = False
    for op in _gradient_ops(program, first):
        blocks = [program.blocks[i] for i in op.sub_blocks()]
        # a cond's operand i is its blocks' param i - 1; a while's invariants follow its n
        # carried values, which stay
        shift, first = (1, 1) if op.type == "cond" else (0, op.attrs["n_loop_vars"])
        if any(len(b.params) != len(op.inputs) - shift for b in blocks):
            continue
        read = [_read_names(b) for b in blocks]
        for i in range(len(op.inputs) - 1, first - 1, -1):
            if any(b.params[i - shift] in names for b, names in zip(blocks, read)):
                continue
            for b in blocks:
                _drop_param(b, i - shift)
            del op.inputs[i]
            changed = True
    return changed


def _loop_tapes(program: Program) -> Iterator[Tuple[Block, Operator, int, Operator]]:
    """(block, while op, loop var index, the body's tape_push) of every tape loop variable."""
    for block, op in _control_ops(program):
        if op.type != "while":
            continue
        body = program.blocks[op.attrs["body_block"]]
        made = {o: p for p in body.ops for o in p.outputs}
        for j in range(op.attrs["n_loop_vars"]):
            push = made.get(body.results[j])
            if push is not None and push.type == "tape_push" and push.inputs[0] == body.params[j]:
                yield block, op, j, push


def _drop_unread_tapes(program: Program, reads: _Reads) -> Set[str]:
    gone: Set[str] = set()
    for block, op, j, push in reversed(list(_loop_tapes(program))):
        cb, bb = program.blocks[op.attrs["cond_block"]], program.blocks[op.attrs["body_block"]]
        out = op.outputs[j]
        if reads[out] or reads[bb.params[j]] != 1 or reads[push.outputs[0]] != 1 or \
                reads[cb.params[j]]:
            continue
        bb.ops.remove(push)
        for b in (cb, bb):
            _drop_param(b, j)
        del bb.results[j]
        init = op.inputs.pop(j)
        del op.outputs[j]
        op.attrs["n_loop_vars"] -= 1
        _drop_tape_start(block, init, reads)
        gone.add(out)
    return gone


def _drop_tape_start(block: Block, name: str, reads: _Reads) -> None:
    """The ops before the loop that made its tape (empty, or holding the value before the
    loop) when nothing else reads them."""
    made = {o: p for p in block.ops for o in p.outputs}
    dead = []
    while reads[name] == 1 and name in made and made[name].type in ("tape_create", "tape_push"):
        maker = made[name]
        dead.append(id(maker))
        if maker.type == "tape_create":
            break
        name = maker.inputs[0]
    block.ops = [o for o in block.ops if id(o) not in dead]


# ----------------------------------------------------------------------------- shape-only reads
def _uses(block: Block, name: str, reads: _Reads) -> Optional[List[Tuple[Block, Operator, int]]]:
    """The (block, op, operand) reads of `name` in `block`, following captures into sub-blocks
    (a captured value's reads are its param's); None when it leaves the block."""
    if name in block.results:
        return None
    program = reads.program
    found: List[Tuple[Block, Operator, int]] = []
    for op, k in reads.in_block(block, name):
        if op.type not in ("cond", "while"):
            found.append((block, op, k))
            continue
        first = 1 if op.type == "cond" else op.attrs["n_loop_vars"]
        if k < first:
            return None         # a predicate or a carried value
        for idx in op.sub_blocks():
            sub = program.blocks[idx]
            inner = _uses(sub, sub.params[k - (1 if op.type == "cond" else 0)], reads)
            if inner is None:
                return None
            found += inner
    return found


def _shape_only_reads(reads: _Reads, block: Block, tape: str,
                      owners: Dict[int, Tuple[Block, Operator]]) -> Optional[List[Operator]]:
    """The tape_read ops reading the items of `tape` (a value of `block`), when every item read
    is used only for its shape and dtype; None otherwise. A tape an outer loop pushes (a loop
    inside a loop) is followed through the outer tape to its reads."""
    program = reads.program
    uses = _uses(block, tape, reads)
    if not uses:
        return None
    found: List[Operator] = []
    for b, op, k in uses:
        if op.type == "tape_read" and k == 0:
            item = program.find_var(op.outputs[0])
            if item.kind == "array":            # a tape of tapes: its items are tapes
                inner = _shape_only_reads(reads, b, item.name, owners)
                if inner is None:
                    return None
                found += inner
                continue
            value_uses = _uses(b, item.name, reads)
            if value_uses is None or any(k2 not in SHAPE_ONLY.get(o.type, ())
                                         for _, o, k2 in value_uses):
                return None
            found.append(op)
        elif op.type == "tape_push" and k == 1 and b.idx in owners:
            outer_block, loop = owners[b.idx]
            j = _tape_var(program, loop, op)
            if j is None:
                return None
            outer = _shape_only_reads(reads, outer_block, loop.outputs[j], owners)
            if outer is None:
                return None
            found += outer
        else:
            return None
    return found


def _tape_var(program: Program, loop: Operator, push: Operator) -> Optional[int]:
    """The loop variable of `loop` that `push` (an op of its body) makes, if it is a tape's."""
    body = program.blocks[loop.attrs["body_block"]]
    for j in range(loop.attrs["n_loop_vars"]):
        if body.results[j] == push.outputs[0] and body.params[j] == push.inputs[0]:
            return j
    return None


def _loop_owners(program: Program) -> Dict[int, Tuple[Block, Operator]]:
    """Body block index -> (the block holding the while op, the op)."""
    return {op.attrs["body_block"]: (b, op) for b, op in _control_ops(program) if op.type == "while"}


def _shape_only_tapes(program: Program, reads: _Reads) -> Set[str]:
    changed: Set[str] = set()
    owners = _loop_owners(program)
    holders = {op.outputs[0] for b in program.blocks for op in b.ops if op.type == "shape_holder"}
    for block, op, j, push in list(_loop_tapes(program)):
        value = program.find_var(push.inputs[1])
        if reads[op.outputs[j]] == 0 or value.kind != "dense" or value.name in holders:
            continue
        tape_reads = _shape_only_reads(reads, block, op.outputs[j], owners)
        if tape_reads is None:
            continue
        if all(d >= 0 for d in value._shape):
            # zeros of the known shape in the gradient loop; the tape is then unread
            for r in tape_reads:
                r.type, r.inputs = "full", []
                r.attrs = {"shape": list(value._shape), "value": _zero(value),
                           "dtype": dtype_name(value.dtype)}
        else:
            push.inputs[1] = _holder_before(program.blocks[op.attrs["body_block"]], push, value)
        changed.add(op.outputs[j])
    return changed


def _zero(v: Variable) -> object:
    return False if v.dtype.name == "bool" else 0.0 if v.dtype.is_inexact else 0


def _holder_before(block: Block, anchor: Operator, value: Variable) -> str:
    """A shape_holder of `value` made just before `anchor`; returns its name."""
    out = block.create_var(value._shape, value.dtype)
    block.ops.insert(block.ops.index(anchor),
                     Operator("shape_holder", [value.name], [out.name], {}, anchor.origin))
    return out.name
