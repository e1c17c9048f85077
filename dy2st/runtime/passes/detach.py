"""Dropping `detach` from a program that runs without gradients: a detach (a user's
`no_grad`, `stop_gradient` or `.detach()`) only stops gradients, yet when run it copies its
input. A program run for inference alone (a loaded model's forward without gradients, `dy2st
run`) has its detach outputs renamed to their inputs in later ops:

    t_2 = detach(t_1)                        t_3 = exp(t_1)
    t_3 = exp(t_2)                  ->

Only a copy of such a program may be changed: the program a gradient is later built from (a
saved model fine-tuned, a training step) keeps its detach ops. A detach whose output leaves its
block (a result, a fetch) is kept, so a returned tensor never shares its array with an input,
as the no-op pass keeps an `assign` there."""
from __future__ import annotations

from typing import Optional

from ..program import Block, Program
from .effects import drop_forwarding, is_ssa, per_block
from .facts import Facts, facts_for


def _drop_block(program: Program, block: Block, facts: Facts) -> int:
    if not any(op.type == "detach" for op in block.ops) or not is_ssa(block):
        return 0
    return drop_forwarding(program, block, lambda op: op.type == "detach" and
                           op.inputs[0] in facts.dense and op.outputs[0] in facts.dense)


def drop_detach(program: Program, facts: Optional[Facts] = None) -> int:
    """Remove the detach ops of `program` (run without gradients from now on); returns how many
    went."""
    return per_block(program, _drop_block, facts_for(program, facts))
