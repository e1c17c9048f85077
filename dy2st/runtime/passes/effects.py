"""Which ops a pass may touch: the one place that lists random, effectful and state-reading ops,
and the ops whose result is a freshly allocated array."""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Optional, Set

import numpy as np

from ..collective import COLLECTIVE_OPS
from ..leaf_notes import new_leaves
from ..ops.math import UNARY_FLOAT
from ..program import Block, Operator, Program
from ..registry import INTO, OPS

if TYPE_CHECKING:
    from .facts import Facts

# Draw from the global generator when run: never folded, merged or hoisted.
NONDETERMINISTIC = frozenset({"dropout", "uniform_random", "gaussian_random", "randint"})
# Run for their effect (output, a check, a fresh or mutated list): never folded or merged.
EFFECTS = frozenset({"print", "assert", "raise", "check_defined", "array_write", "array_pop", "create_array",
                     "array_join", "array_slice", "tape_create", "tape_push"}) | COLLECTIVE_OPS
# DCE keeps these even when nothing reads their outputs.
# (a collective too: every process must run the same collectives, in the same order)
KEEP_ALWAYS = frozenset({"print", "assert", "raise", "check_defined", "array_write",
                         "array_pop"}) | COLLECTIVE_OPS
# Read a tensor array, a Python list that array_write mutates in place: the same inputs may give
# a different value later, so never folded or merged.
READS_STATE = frozenset({"array_read", "array_length", "array_stack", "array_concat", "tape_read"})
CONTROL = frozenset({"cond", "while"})
UNTOUCHABLE = NONDETERMINISTIC | EFFECTS | READS_STATE | CONTROL


def is_pure(program: Program, op: Operator, facts: "Facts") -> bool:
    """Deterministic, effect-free, no sub-blocks, dense values only: safe to fold or merge."""
    dense = facts.dense
    return facts.pure_types[op.type] and bool(op.outputs) and \
        dense.issuperset(op.inputs) and dense.issuperset(op.outputs)


def is_ssa(block: Block) -> bool:
    """Every name is written by at most one op and never by one that also reads a param."""
    seen: Set[str] = set(block.params)
    for op in block.ops:
        for o in op.outputs:
            if o in seen:
                return False
            seen.add(o)
    return True


def keep_names(program: Program, block: Block) -> Set[str]:
    """Names that leave the block: its results (or the program's fetches) and feeds; and the
    new leaves made in it, which a gradient built later starts from by name."""
    leaves = {n for n, (idx, _) in new_leaves(program).items() if idx == block.idx}
    if block.idx == 0:
        return set(program.fetch_names) | set(program.feed_names) | leaves
    return set(block.results) | set(block.params) | leaves


class Renames(dict):
    """Renames of read names collected during one walk over a block and applied to each op when
    the walk reaches it: the same result as renaming the reads of all later ops at each removal,
    without a walk over the rest of the block per removal."""

    def __init__(self) -> None:
        super().__init__()
        # target -> the names renamed to it: a later rename of a target moves only those, so
        # adding costs what it changes, not a walk over every rename so far (quadratic)
        self._sources: Dict[str, List[str]] = {}

    def add(self, mapping: Dict[str, str]) -> None:
        """Rename as if `mapping` were applied after the renames collected so far."""
        sources = self._sources
        moved = {k: sources.pop(k) for k in mapping if k in sources}
        for k, v in moved.items():
            target = mapping[k]
            still = [s for s in v if self.get(s) == k]     # not renamed again since
            for s in still:
                self[s] = target
            sources.setdefault(target, []).extend(still)
        for k, v in mapping.items():
            self[k] = v
            sources.setdefault(v, []).append(k)

    def apply(self, op: Operator) -> None:
        if self:
            inputs = op.inputs
            for n in inputs:
                if n in self:
                    op.inputs = [self.get(m, m) for m in inputs]
                    return

    def finish(self, block: Block) -> None:
        """Rename the captures of the block's sub-blocks (their reads are their captures)."""
        if self:
            rename_captures(block, self)


def drop_forwarding(program: Program, block: Block, drops: Callable[[Operator], bool]) -> int:
    """Remove from an SSA block the one-input ops `drops` picks, renaming later reads of each
    one's output to its input; an op whose output leaves the block (a result, a fetch) is kept,
    so a returned tensor never shares its array with an input. Returns how many went."""
    keep = keep_names(program, block)
    kept, removed = [], 0
    renames = Renames()
    for op in block.ops:
        renames.apply(op)
        if op.outputs and op.outputs[0] not in keep and drops(op):
            renames.add({op.outputs[0]: op.inputs[0]})
            removed += 1
            continue
        kept.append(op)
    renames.finish(block)
    if removed:
        block.ops = kept
    return removed


def rename_captures(block: Block, mapping: Dict[str, str]) -> None:
    for sub_idx in _sub_blocks_of(block):
        sub = block.program.blocks[sub_idx]
        sub.captures = {mapping.get(k, k): v for k, v in sub.captures.items()}


def _sub_blocks_of(block: Block) -> List[int]:
    # only cond / while own blocks: skip the method call for every other op
    return [i for op in block.ops if op.type in CONTROL for i in op.sub_blocks()]


def blocks_inner_first(program: Program) -> Iterable[Block]:
    """Every block reachable from the global one."""
    order: List[Block] = []

    def visit(block: Block) -> None:
        order.append(block)
        for idx in _sub_blocks_of(block):
            visit(program.blocks[idx])
    visit(program.global_block())
    return order


# ----------------------------------------------------------------------------- fresh results
def elementwise_ufunc(op: Operator, in_dtype: np.dtype) -> Optional[np.ufunc]:
    """The numpy ufunc computing exactly this op's kernel for inputs of in_dtype, if there is one
    (so `ufunc(*inputs, out=buffer)` gives the same values as the kernel)."""
    if op.attrs:
        return None
    kernel = OPS[op.type].kernel if op.type in OPS else None
    if isinstance(kernel, np.ufunc) and kernel.signature is None and kernel.nout == 1 \
            and kernel.nin == len(op.inputs):
        return kernel
    if in_dtype.kind == "f" and len(op.inputs) == 1:
        f = UNARY_FLOAT.get(op.type)
        if isinstance(f, np.ufunc) and f.nin == 1:
            return f
    return None


def into_kernel(op: Operator, in_dtype: np.dtype) -> Optional[Callable]:
    """For float inputs, op's registered writing-into kernel with the op's attrs bound
    (`f(*inputs, out=buffer)`), if it has one."""
    into = INTO.get(op.type)
    if into is None or in_dtype.kind != "f":
        return None
    return functools.partial(into, **op.attrs) if op.attrs else into


# Kernels that always return a new array owned by nobody else (for dense float outputs of
# rank >= 1), besides the elementwise ufunc ops above.
FRESH_KERNELS = frozenset({"matmul", "relu", "softmax", "divide", "linear", "layer_norm",
                           "conv2d", "conv_nd", "conv_transpose_nd"})


def returns_fresh(op: Operator, in_dtype: Optional[np.dtype], facts: "Facts") -> bool:
    if op.type in FRESH_KERNELS:
        return True
    return in_dtype is not None and facts.ufunc(op, in_dtype) is not None


def per_block(program: Program, rewrite, *args: Any) -> int:
    """rewrite(program, block, *args) over every block, inner ones first; a change bumps the
    version (so compiled code is rebuilt). Returns how many rewrites were made."""
    n = sum(rewrite(program, b, *args) for b in blocks_inner_first(program))
    if n:
        program.version += 1
    return n
