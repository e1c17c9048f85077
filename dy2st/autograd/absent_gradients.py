"""Gradients absent always or on some runs only: a gradient program cut to some of its seeds,
and zeros of a path not taken masked where they meet other gradients (`0 * inf` stays out)."""
from __future__ import annotations

from typing import Callable, Dict, Iterable, List, Optional, Set

from ..runtime import ops
from ..runtime.program import Block, Operator, Program, Variable, block_guard
from .mode import enable_grad

# ops that sum gradients: an absent operand is a zero term left out
_SUMS = ("add", "array_grad_add")
# ops reading only their input's shape: zeros for a gradient a branch or turn does not give
_SHAPE_ONLY = ("full_like",)


class Unsupported(Exception):
    """The program mixes an absent gradient where no zero of a known shape can stand for it."""


def prune_absent(program: Program, seeds: Iterable[str], absent_seeds: Iterable[str]
                 ) -> List[bool]:
    """Drop from `program` (a gradient program: its global block holds gradient ops only) the
    ops computing only from `absent_seeds`; a value mixing an absent gradient with a present
    one (the gradient of a multi-output op) gets zeros, as eager fills a missing gradient with
    zeros, and one absent on some runs only is masked (see the edit below). Returns per fetch
    whether it is kept (one that ends up absent is left out of `program.fetch_names`). Raises
    Unsupported (the program is then left half-edited). The absent seeds stay fed, with zeros
    (the call feeds them so): one stands for a zero of its own shape, also an unknown one."""
    block = program.global_block()
    cot = set(seeds)
    _mark_cotangents(program, block, cot)
    absent = set(absent_seeds)
    program.__dict__["zero_fed"] = frozenset(absent)
    if absent:      # (else nothing is: a zero of both branches stays, flagged, for its fetch)
        _find_absent(program, block, absent, cot)
    alias: Dict[str, str] = {}
    flags: Dict[str, str] = {}
    cut = _Cut(program, block, absent, cot, alias, flags)
    cut.run()
    kept = [n not in absent for n in program.fetch_names]
    fetch = [alias.get(n, n) for n in program.fetch_names if n not in absent]
    cut.kept = block.ops
    program.fetch_names = [cut.mask(n) for n in fetch]
    return kept


def mask_untaken_paths(program: Program, seeds: Iterable[str], start: int,
                       grads: List[Optional[str]]) -> List[Optional[str]]:
    """In the gradient ops the global block holds from op `start` on, given every seed: a
    gradient that a branch or a turn does not give (the zeros `cond` and `while` gradients
    stand in for it) is flagged and masked where it meets others, as in prune_absent, so the
    `0 * inf` of a path not taken stays out of the sums. Returns `grads` (names), masked."""
    block = program.global_block()
    if not any(op.type in ("cond", "while") for op in block.ops[start:]):
        return grads
    cot = set(seeds)
    _mark_cotangents(program, block, cot, start)
    cut = _Cut(program, block, set(), cot, {}, {})
    cut.kept = block.ops[:start]
    cut.run(start)
    cut.kept = block.ops
    return [None if n is None else cut.mask(n) for n in grads]


def _exact_zeros(program: Program) -> Set[str]:
    """Flagged gradients that are zeros whenever their flag is false (a loop's sum from zeros
    that no turn has added to yet): masking them would change nothing, so no `where` is made."""
    return program.__dict__.setdefault("exact_zeros", set())


def _inexact(program: Program, name: str) -> bool:
    v = program.find_var(name)
    return v is not None and v.dtype.is_inexact


def _dense_grad(program: Program, name: str) -> bool:
    v = program.find_var(name)
    return v.kind == "dense" and v.dtype.is_inexact


def _zero_ready(program: Program, name: str) -> bool:
    """Whether a zero can stand for the gradient `name`: its shape is known, or it is an absent
    seed (fed zeros)."""
    if name in program.__dict__.get("zero_fed", ()):
        return True
    v = program.find_var(name)
    return v is not None and v.kind == "dense" and all(d >= 0 for d in v._shape)


def _blocks(program: Program, op: Operator, *keys: str) -> List[Block]:
    return [program.blocks[op.attrs[k]] for k in keys]


# ----------------------------------------------------------------------------- cotangents
def _mark_cotangents(program: Program, block: Block, cot: Set[str], start: int = 0) -> None:
    """Add to `cot` every value computed from a seed (a gradient, not a forward value); loop
    variables of a gradient `while` count as gradients (they sum them)."""
    for op in block.ops[start:]:
        if op.type == "cond":
            tb, fb = _blocks(program, op, "true_block", "false_block")
            for b in (tb, fb):
                cot.update(p for p, s in zip(b.params, op.inputs[1:]) if s in cot)
                _mark_cotangents(program, b, cot)
            cot.update(o for i, o in enumerate(op.outputs)
                       if tb.results[i] in cot or fb.results[i] in cot)
        elif op.type == "while":
            _mark_while(program, op, cot)
        elif op.type not in _SHAPE_ONLY and any(n in cot for n in op.inputs):
            cot.update(o for o in op.outputs if _inexact(program, o))


def _mark_while(program: Program, op: Operator, cot: Set[str]) -> None:
    """A loop variable is a gradient if it starts as one or some turn makes it one (a sum it
    accumulates); one that starts as zeros no seed reaches and that each turn passes on or
    overwrites with zeros is a zero, as the branch of a `cond` that gives none."""
    n = op.attrs["n_loop_vars"]
    cb, bb = _blocks(program, op, "cond_block", "body_block")
    carried = {j for j in range(n) if op.inputs[j] in cot}
    while True:
        for b in (cb, bb):
            cot.update(p for j, (p, s) in enumerate(zip(b.params, op.inputs))
                       if (j in carried if j < n else s in cot))
            _mark_cotangents(program, b, cot)
        more = carried | {j for j in range(n) if bb.results[j] in cot}
        if more == carried:
            break
        carried = more
    cot.update(op.outputs[j] for j in carried if _inexact(program, op.outputs[j]))


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
        if _inexact(program, o) and \
                all(r in absent or r not in cot for r in (tb.results[i], fb.results[i])):
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
# A gradient that is absent on some runs only (a branch that gives none, a loop variable before
# the turn that first gives it one) carries a flag: a bool scalar of the same block, true when
# it is present. Ops reading only gradients of one flag pass it on; where a flagged gradient
# meets others (a sum, a sub-block), it is masked to zeros when its flag is false, so its
# `0 * inf` never reaches them, as eager's engine would not have visited its ops.
class _Cut:
    """The edit of one block: the ops kept, in order, and those it adds between them."""

    def __init__(self, program: Program, block: Block, absent: Set[str], cot: Set[str],
                 alias: Dict[str, str], flags: Dict[str, str]) -> None:
        self.program, self.block, self.absent, self.cot = program, block, absent, cot
        self.alias, self.flags = alias, flags
        self.kept: List[Operator] = []

    def var(self, name: str) -> Variable:
        return self.program.find_var(name)

    def emit(self, fn: Callable[[], Variable]) -> str:
        """Run fn (it adds ops to the block) and keep its ops at this point."""
        ops_ = self.block.ops
        start = len(ops_)
        # (the backward runs under no_grad, which would add a `detach` to each new op)
        with block_guard(self.block), enable_grad():
            out = fn()
        if self.kept is not ops_:   # the block's ops are being cut: move the new ones
            self.kept.extend(ops_[start:])
            del ops_[start:]
        return out.name

    def constant(self, value: bool) -> str:
        return self.emit(lambda: ops.full([], value, "bool"))

    def zeros(self, like: str) -> str:
        if like in self.program.__dict__.get("zero_fed", ()):
            return like         # an absent seed: fed zeros of its shape
        v = self.var(like)
        return self.emit(lambda: ops.full(list(v._shape), 0, v.dtype))

    def mask(self, name: str) -> str:
        if name not in self.flags or name in _exact_zeros(self.program):
            return name
        v, f = self.var(name), self.var(self.flags[name])
        if v.kind != "dense":
            return name     # (flags start at dense values; an array made of one stays whole)
        masked = self.emit(lambda: ops.where(f, v, ops.zeros_like(v)))
        self.program.absent_masks.add(masked)
        return masked

    def run(self, start: int = 0) -> None:
        for op in self.block.ops[start:]:
            op.inputs = [self.alias.get(n, n) for n in op.inputs]
            if op.type == "cond":
                _carry_flags(self, op, _blocks(self.program, op, "true_block", "false_block"), 1)
                _cut_cond(self, op)
            elif op.type == "while":
                _cut_while(self, op)
            else:
                self.plain(op)
        self.block.ops = self.kept
        self.block.results = [self.alias.get(n, n) for n in self.block.results]

    def plain(self, op: Operator) -> None:
        absent, flags = self.absent, self.flags
        gone = [n for n in op.inputs if n in absent]
        if gone and all(o in absent for o in op.outputs):
            return
        if gone and op.type in _SUMS:
            self.alias[op.outputs[0]] = next(n for n in op.inputs if n not in absent)
            return
        if gone:    # a present gradient beside an absent one: zeros, as eager fills them
            zeros = {n: self.zeros(n) for n in dict.fromkeys(gone)}
            op.inputs = [zeros.get(n, n) for n in op.inputs]
        marks = {flags[n] for n in op.inputs if n in flags}
        if marks and op.type not in _SHAPE_ONLY:
            others = [n for n in op.inputs if n in self.cot and n not in flags]
            passes = not others and all(_inexact(self.program, o) for o in op.outputs)
            if len(marks) > 1 or not passes:
                op.inputs = [self.mask(n) for n in op.inputs]
            if passes:  # present when one of the gradients it reads is (masked if several)
                mark = self.any_of(sorted(marks))
                flags.update((o, mark) for o in op.outputs)
        self.kept.append(op)

    def any_of(self, marks: List[str]) -> str:
        mark = marks[0]
        for other in marks[1:]:
            mark = self.emit(lambda a=mark, b=other: ops.logical_or(self.var(a), self.var(b)))
        return mark


def _cut(program: Program, block: Block, absent: Set[str], cot: Set[str],
         alias: Dict[str, str], flags: Dict[str, str]) -> None:
    _Cut(program, block, absent, cot, alias, flags).run()


def _mask_results(cut: _Cut, block: Block, positions: Iterable[int]) -> None:
    """Mask, at the end of a cut sub-block, the flagged results at `positions`."""
    sub = _Cut(cut.program, block, cut.absent, cut.cot, cut.alias, cut.flags)
    sub.kept = block.ops
    for i in positions:
        block.results[i] = sub.mask(block.results[i])


def _drop_params(blocks: List[Block], op: Operator, drop: List[int], offset: int) -> None:
    """Remove op input `offset + i` for each i in drop, and the param i of each block."""
    for b in blocks:
        gone = {b.params[i] for i in drop}
        b.params = [p for i, p in enumerate(b.params) if i not in drop]
        b.captures = {s: p for s, p in b.captures.items() if p not in gone}
    op.inputs = op.inputs[:offset] + [s for i, s in enumerate(op.inputs[offset:])
                                      if i not in drop]


def _carry_flags(cut: _Cut, op: Operator, blocks: List[Block], first: int) -> None:
    """Give the sub-blocks of `op` the flags of its flagged inputs from `first` on: extra
    inputs whose params flag the block's params, so the block's ops pass them on and mask
    where they meet others. Masking at the input instead would turn the gradient into zeros
    that the block's own ops (a sqrt's gradient at 0) make `0 * inf` from."""
    passed: Dict[str, List[str]] = {}
    for i in range(first, len(op.inputs)):
        name = op.inputs[i]
        if name not in cut.flags:
            continue
        if cut.var(name).kind != "dense":
            op.inputs[i] = cut.mask(name)
            continue
        flag = cut.flags[name]
        if flag not in passed:
            dtype = cut.var(flag).dtype
            passed[flag] = [b.create_var([], dtype, prefix="live").name for b in blocks]
            for b, p in zip(blocks, passed[flag]):
                b.params.append(p)
            op.inputs.append(flag)
        for b, p in zip(blocks, passed[flag]):
            cut.flags[b.params[i - first]] = p


def _branch_flag(cut: _Cut, b: Block, r: str) -> str:
    """The flag of branch result r: its own, or a constant (no seed reaches a zero result)."""
    if r in cut.flags:
        return cut.flags[r]
    sub = _Cut(cut.program, b, cut.absent, cut.cot, cut.alias, cut.flags)
    sub.kept = b.ops
    return sub.constant(r in cut.cot)


def _cut_cond(cut: _Cut, op: Operator) -> None:
    program, absent = cut.program, cut.absent
    tb, fb = _blocks(program, op, "true_block", "false_block")
    for b in (tb, fb):
        _cut(program, b, absent, cut.cot, cut.alias, cut.flags)
    keep, flagged = [], []
    for i, o in enumerate(op.outputs):
        if o in absent:
            continue
        results = (tb.results[i], fb.results[i])
        live = [r not in absent and r in cut.cot and r not in cut.flags for r in results]
        for b, r in zip((tb, fb), results):
            if r in absent:
                b.results[i] = _zeros_in(cut, b, o)
        keep.append(i)
        if not all(live) and any(r in cut.cot for r in results) and _dense_grad(program, o):
            flagged.append(i)
    bool_outs = []
    for i in flagged:       # the branch taken says whether the gradient is present
        names = [_branch_flag(cut, b, r) for b, r in zip((tb, fb), (tb.results[i], fb.results[i]))]
        for b, name in zip((tb, fb), names):
            b.results.append(name)
        out = cut.block.create_var([], program.find_var(names[0]).dtype, prefix="live")
        cut.flags[op.outputs[i]] = out.name
        bool_outs.append(out.name)
    n_res = len(op.outputs)
    op.outputs = [op.outputs[i] for i in keep] + bool_outs
    for b in (tb, fb):
        b.results = [b.results[i] for i in keep] + b.results[n_res:]
    _drop_params([tb, fb], op, [i for i, s in enumerate(op.inputs[1:]) if s in absent], 1)
    if op.outputs:
        cut.kept.append(op)


def _zeros_in(cut: _Cut, b: Block, like: str) -> str:
    sub = _Cut(cut.program, b, cut.absent, cut.cot, cut.alias, cut.flags)
    sub.kept = b.ops
    return sub.zeros(like)


def _sub_blocks(program: Program, op: Operator) -> List[Block]:
    keys = ("true_block", "false_block", "cond_block", "body_block")
    found = [program.blocks[op.attrs[k]] for k in keys if k in op.attrs]
    return found + [s for b in found for o in b.ops for s in _sub_blocks(program, o)]


def _snapshot(cut: _Cut, op: Operator) -> Callable[[], None]:
    """What the edit of `op` changes (its blocks and ops, the flags, the ops kept so far); the
    function returned puts it back."""
    blocks = _sub_blocks(cut.program, op)
    ops_ = [op] + [o for b in blocks for o in b.ops]
    saved_ops = [(o, list(o.inputs), list(o.outputs), dict(o.attrs)) for o in ops_]
    saved_blocks = [(b, list(b.ops), list(b.params), list(b.results), dict(b.captures))
                    for b in blocks]
    flags, alias, kept = dict(cut.flags), dict(cut.alias), len(cut.kept)

    def restore() -> None:
        for o, ins, outs, attrs in saved_ops:
            o.inputs, o.outputs, o.attrs = ins, outs, attrs
        for b, bops, params, results, captures in saved_blocks:
            b.ops, b.params, b.results, b.captures = bops, params, results, captures
        cut.flags.clear()
        cut.flags.update(flags)
        cut.alias.clear()
        cut.alias.update(alias)
        del cut.kept[kept:]
    return restore


def _cut_while(cut: _Cut, op: Operator) -> None:
    """Edit a gradient `while`; a loop variable whose turn ends flagged (a branch inside gave
    it none) is flagged from the start, so each turn's ops pass the flag on: edited again."""
    restore = _snapshot(cut, op)
    late = _cut_while_once(cut, op, set())
    if late:
        restore()
        _cut_while_once(cut, op, late)


def _seedless_start(cut: _Cut, op: Operator, body: Block, j: int) -> bool:
    """Whether loop variable j starts as zeros no seed reaches (a later turn gives it a
    gradient: a value read in the loop body sums the turns' gradients from zeros) and those
    zeros would meet an op eager never runs: a turn reads it other than in a sum (a log's
    gradient dividing it, in turns eager never visits), or an op after the loop does, when no
    turn gave it a gradient (the loop ran none: the sqrt's gradient of `a = x.sqrt()` read
    only in the loop made `0 * inf`). A sum from zeros that only meets other sums and the
    program's results needs no flag: its zeros add nothing."""
    start = op.inputs[j]
    if start in cut.cot or start in cut.absent:
        return False
    param = body.params[j]
    if any(param in o.inputs and o.type not in _SUMS for o in body.ops):
        return True
    return _read_after(cut, op, op.outputs[j])


def _read_after(cut: _Cut, op: Operator, name: str) -> bool:
    """Whether an op after `op` in its block reads `name`, or a sum of it, other than in a sum
    (or for its shape alone); a sub-block's result counts as read (by the ops after its op)."""
    ops_ = cut.block.ops
    names = {name}
    for later in ops_[next(i for i, o in enumerate(ops_) if o is op) + 1:]:
        if names.isdisjoint(later.inputs) or later.type in _SHAPE_ONLY:
            continue
        if later.type not in _SUMS:
            return True
        names.update(later.outputs)
    return cut.block.idx != 0 and not names.isdisjoint(cut.block.results)


def _zero_sum(cut: _Cut, op: Operator, body: Block, j: int) -> bool:
    """Whether loop variable j starts as zeros and each turn only adds to it: unflagged (no
    turn gave it a gradient) it is exactly zeros, in the body and after the loop (the terms
    a sum takes are masked, the variable itself needs no mask: no `where` over it per turn)."""
    start = next((o for o in reversed(cut.kept) if op.inputs[j] in o.outputs), None)
    if start is None or start.type not in ("full_like", "full") or start.attrs.get("value") != 0:
        return False
    param, made = body.params[j], {o: p for p in body.ops for o in p.outputs}
    if any(param in o.inputs and o.type not in _SUMS for o in body.ops):
        return False
    name = body.results[j]
    while name != param:
        o = made.get(name)
        if o is None or o.type not in _SUMS:
            return False
        name = next((n for n in o.inputs if n == param or n in made and made[n].type in _SUMS),
                    None)
        if name is None:
            return False
    return True


def _cut_while_once(cut: _Cut, op: Operator, late: Set[int]) -> Set[int]:
    program, absent, flags = cut.program, cut.absent, cut.flags
    n = op.attrs["n_loop_vars"]
    cb, bb = _blocks(program, op, "cond_block", "body_block")
    _carry_flags(cut, op, [cb, bb], n)
    # loop variables present from some turn on: a flag each, carried by the loop
    # (and those a turn gives zeros, no seed reaching them: overwritten in the body)
    tracked = [j for j in range(n) if op.outputs[j] not in absent and _dense_grad(program, op.outputs[j])
               and (op.inputs[j] in absent or op.inputs[j] in flags or bb.results[j] not in cut.cot
                    or j in late or _seedless_start(cut, op, bb, j))]
    starts = [flags[op.inputs[j]] if op.inputs[j] in flags else
              cut.constant(op.inputs[j] not in absent and op.inputs[j] in cut.cot)
              for j in tracked]
    for j in range(n):
        if op.outputs[j] not in absent and op.inputs[j] in absent:
            op.inputs[j] = cut.zeros(op.inputs[j])      # a gradient a later turn gives
    dtype = program.find_var(starts[0]).dtype if starts else None
    c_live = [cb.create_var([], dtype, prefix="live").name for _ in tracked]
    b_live = [bb.create_var([], dtype, prefix="live").name for _ in tracked]
    flags.update((bb.params[j], f) for j, f in zip(tracked, b_live))
    _exact_zeros(program).update(n for j in tracked if _zero_sum(cut, op, bb, j)
                                 for n in (bb.params[j], op.outputs[j]))
    for b in (cb, bb):
        _cut(program, b, absent, cut.cot, cut.alias, flags)
    body = _Cut(program, bb, absent, cut.cot, cut.alias, flags)
    body.kept = bb.ops
    untracked = [j for j in range(n) if j not in tracked and bb.results[j] in flags]
    if untracked and not late:
        return set(untracked)
    new_live = [flags.get(bb.results[j]) or
                body.constant(bb.results[j] in cut.cot and bb.results[j] not in absent)
                for j in tracked]
    _mask_results(cut, bb, untracked)
    gone = [j for j in range(n) if op.outputs[j] in absent]
    for j in range(n):
        if j not in gone and bb.results[j] in absent:
            # a turn that gives this loop variable no gradient (its op was cut) passes zeros,
            # flagged absent above; the cut op no longer defines the result
            param = bb.params[j]
            bb.results[j] = body.emit(lambda p=param: ops.zeros_like(body.var(p)))
    bb.results = [r for j, r in enumerate(bb.results) if j not in gone]
    outs = [op.outputs[j] for j in range(n) if j not in gone]
    m = n - len(gone)
    drop = gone + [j for j in range(n, len(op.inputs)) if op.inputs[j] in absent]
    _drop_params([cb, bb], op, drop, 0)
    live_outs = [cut.block.create_var([], dtype, prefix="live").name for _ in tracked]
    flags.update((op.outputs[j], f) for j, f in zip(tracked, live_outs))
    op.inputs[m:m] = starts
    cb.params[m:m] = c_live
    bb.params[m:m] = b_live
    bb.results += new_live
    op.outputs = outs + live_outs
    op.attrs["n_loop_vars"] = m + len(tracked)
    cut.kept.append(op)
    return set()
