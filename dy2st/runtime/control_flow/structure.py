"""What a `cond` or `while` op carries, read one way by every consumer that lowers or runs it
(the numpy executor, the ONNX exporter, the XLA backend): its closed sub-blocks, the values it
passes into them and the outputs it gives."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Sequence, Tuple, TypeVar

from ..program import Block, Operator, Program

T = TypeVar("T")

# the attributes naming an op's sub-blocks (indices into Program.blocks), per op type
BLOCK_ATTRS: Dict[str, Tuple[str, ...]] = {
    "cond": ("true_block", "false_block"),
    "while": ("cond_block", "body_block"),
}


def is_control_flow(op: Operator) -> bool:
    """Whether op owns sub-blocks (a cond or a while)."""
    return op.type in BLOCK_ATTRS


@dataclass(frozen=True)
class CondParts:
    """A `cond` op: inputs are the predicate then the operands, which bind each branch's params
    in order; each branch's results are the op's outputs, in order."""
    op: Operator
    pred: str
    operands: Tuple[str, ...]
    true_block: Block
    false_block: Block

    @property
    def branches(self) -> Tuple[Block, Block]:
        return self.true_block, self.false_block

    @property
    def outputs(self) -> Tuple[str, ...]:
        return tuple(self.op.outputs)


@dataclass(frozen=True)
class WhileParts:
    """A `while` op: inputs are the initial values of the n carried values, then the invariant
    values every turn reads. Both blocks take (carried..., invariant...) as params; the cond
    block's result 0 says whether to run another turn, the body block's results are the new
    carried values. The op's outputs are the carried values after the last turn."""
    op: Operator
    n_carried: int
    inits: Tuple[str, ...]
    invariants: Tuple[str, ...]
    cond_block: Block
    body_block: Block

    @property
    def outputs(self) -> Tuple[str, ...]:
        return tuple(self.op.outputs)

    def split(self, values: Sequence[T]) -> Tuple[List[T], List[T]]:
        """values laid out as the op's inputs (or a block's params): (carried, invariant)."""
        return list(values[:self.n_carried]), list(values[self.n_carried:])


def cond_parts(program: Program, op: Operator) -> CondParts:
    """The parts of a `cond` op of `program`."""
    if op.type != "cond":
        raise ValueError(f"cond_parts: {op.type!r} is not a cond op")
    return CondParts(op, op.inputs[0], tuple(op.inputs[1:]),
                     program.blocks[op.attrs["true_block"]],
                     program.blocks[op.attrs["false_block"]])


def while_parts(program: Program, op: Operator) -> WhileParts:
    """The parts of a `while` op of `program`."""
    if op.type != "while":
        raise ValueError(f"while_parts: {op.type!r} is not a while op")
    n = int(op.attrs["n_loop_vars"])
    return WhileParts(op, n, tuple(op.inputs[:n]), tuple(op.inputs[n:]),
                      program.blocks[op.attrs["cond_block"]],
                      program.blocks[op.attrs["body_block"]])


def sub_blocks(program: Program, op: Operator) -> List[Block]:
    """The sub-blocks op owns, in attribute order (none for an op without control flow)."""
    return [program.blocks[op.attrs[key]] for key in BLOCK_ATTRS.get(op.type, ())]
