"""The ops that compute, in a training forward, the flags path_grads.py found to depend on the
path taken: int64 bit masks (one bit per tensor needing a gradient), or'ed by each op, carried out
of `cond` ops as extra outputs and through `while` ops as extra loop variables."""
from __future__ import annotations

from typing import Callable, Dict, List, Set, Tuple

from ..autograd.rules import RULES
from ..runtime.dtype import int64 as INT64
from ..runtime.program import Block, Operator, Program, Variable
from ..runtime.registry import Meta
from .loop_flags import first_turn_runs, gradient_inputs, turn_summary

BITS = 62      # bits of a flag word (an int64 scalar, kept positive)
_WORD = Meta((), INT64)


class FlagWriter:
    """Adds the flag ops of the values in `need` to a program's blocks (each block rebuilt in
    order, a flag's ops right after the op computing its value)."""

    def __init__(self, program: Program, state: Callable[[str], Tuple[int, int]],
                 need: Set[str], n_bits: int) -> None:
        self.program, self.state, self.need = program, state, need
        self.n_words = (n_bits + BITS - 1) // BITS
        self.flags: Dict[str, List[Variable]] = {}

    def block(self, block: Block) -> None:
        ops, block.ops = block.ops, []
        for op in ops:
            if op.type == "cond":
                self._cond(block, op)
            elif op.type == "while":
                self._while(block, op)
            else:
                block.ops.append(op)
                if op.type in RULES:
                    for o in op.outputs:
                        if o in self.need:
                            self.flags[o] = self._or(block, gradient_inputs(op))

    def words(self, block: Block, name: str) -> List[Variable]:
        """The flag words of `name` in `block`: computed ones, or constants where every path
        gives the same."""
        found = self.flags.get(name)
        return found if found is not None else self._const(block, self.state(name)[0])

    def _const(self, block: Block, mask: int) -> List[Variable]:
        return [self.constant(block, mask >> (BITS * w) & ((1 << BITS) - 1))
                for w in range(self.n_words)]

    def constant(self, block: Block, value: int) -> Variable:
        """An int64 scalar of `block`."""
        return block.append_op_with_outputs(
            "full", [], [_WORD], {"shape": [], "value": value, "dtype": "int64"}, None)[0]

    def _or(self, block: Block, names: List[str]) -> List[Variable]:
        fixed, dynamic = 0, []
        for n in names:
            if n in self.flags:
                dynamic.append(self.flags[n])
            else:
                fixed |= self.state(n)[0]
        if not dynamic:
            return self._const(block, fixed)
        words = dynamic[0]
        for other in dynamic[1:] + ([self._const(block, fixed)] if fixed else []):
            words = [block.append_op_with_outputs("bitwise_or", [a, b], [_WORD], {}, None)[0]
                     for a, b in zip(words, other)]
        return words

    def _params(self, blocks: Tuple[Block, ...], positions: List[int], n: int) -> None:
        """New params of `blocks` (sharing their params' layout) for the flags of the params at
        `positions`, inserted at n (None: appended)."""
        for b in blocks:
            new = []
            for j in positions:
                words = [b.create_var((), INT64, prefix="flag") for _ in range(self.n_words)]
                self.flags[b.params[j]] = words
                new += [v.name for v in words]
            at = len(b.params) if n is None else n
            b.params[at:at] = new

    def _cond(self, block: Block, op: Operator) -> None:
        blocks = self.program.blocks
        tb, fb = blocks[op.attrs["true_block"]], blocks[op.attrs["false_block"]]
        taken = [i for i in range(len(op.inputs) - 1)
                 if tb.params[i] in self.need or fb.params[i] in self.need]
        sources = [v.name for i in taken for v in self.words(block, op.inputs[1 + i])]
        self._params((tb, fb), taken, None)
        self.block(tb)
        self.block(fb)
        for i, o in enumerate(list(op.outputs)):
            if o in self.need:
                tb.results += [v.name for v in self.words(tb, tb.results[i])]
                fb.results += [v.name for v in self.words(fb, fb.results[i])]
                outs = [block.create_var((), INT64, prefix="flag") for _ in range(self.n_words)]
                op.outputs += [v.name for v in outs]
                self.flags[o] = outs
        op.inputs += sources
        block.ops.append(op)

    def _while(self, block: Block, op: Operator) -> None:
        if not self._summarized(block, op):
            self._carried(block, op)
        block.ops.append(op)

    def _summarized(self, block: Block, op: Operator) -> bool:
        """The flags of the loop's outputs from those of its inputs, before the loop: whether
        every turn gives the flags of the first (loop_flags.py); the loop stays unchanged."""
        summary = turn_summary(self.program, op)
        if summary is None:
            return False
        wanted = [j for j, o in enumerate(op.outputs[:len(summary)]) if o in self.need]
        ran = None
        if any(summary[j] != {j} for j in wanted):
            ran = first_turn_runs(block, op)
            if ran is None:
                return False
        for j in wanted:
            before = self.words(block, op.inputs[j])
            if summary[j] != {j}:
                after = self._or(block, [op.inputs[k] for k in sorted(summary[j])])
                before = [block.append_op_with_outputs("where", [ran, a, b], [_WORD], {}, None)[0]
                          for a, b in zip(after, before)]
            self.flags[op.outputs[j]] = before
        return True

    def _carried(self, block: Block, op: Operator) -> None:
        """The flags carried through the loop as extra loop variables, computed each turn."""
        blocks = self.program.blocks
        cb, bb = blocks[op.attrs["cond_block"]], blocks[op.attrs["body_block"]]
        n = op.attrs["n_loop_vars"]
        carried = [j for j in range(n) if bb.params[j] in self.need]
        invariant = [j for j in range(n, len(op.inputs)) if bb.params[j] in self.need]
        inits = [v.name for j in carried for v in self.words(block, op.inputs[j])]
        sources = [v.name for j in invariant for v in self.words(block, op.inputs[j])]
        # invariants first: inserting the carried flags at n moves them
        self._params((cb, bb), invariant, None)
        self._params((cb, bb), carried, n)
        self.block(bb)
        self.block(cb)
        results = [v.name for j in carried for v in self.words(bb, bb.results[j])]
        bb.results[n:n] = results
        outs = [block.create_var((), INT64, prefix="flag") for _ in results]
        for k, j in enumerate(carried):
            self.flags[op.outputs[j]] = outs[k * self.n_words:(k + 1) * self.n_words]
        op.outputs[n:n] = [v.name for v in outs]
        op.inputs[:] = op.inputs[:n] + inits + op.inputs[n:] + sources
        op.attrs["n_loop_vars"] = n + len(inits)
