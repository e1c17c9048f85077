"""Removal of ops that do nothing: a cast to the dtype the value already has, a reshape to the
shape it already has (fully known), and an assign (copy) of a non-persistable dense value.

    t_1 = cast(x) {dtype='float32'}     # x: float32          t_2 = exp(x)
    t_2 = exp(t_1)                                      ->

The removed op's output is renamed to its input in later ops. An op whose output leaves the block
(result, fetch) is kept, so a returned tensor never shares its array with an input; values are
never written in place except by buffer reuse, which only writes arrays it proves unshared."""
from __future__ import annotations

from typing import Optional

from ..dtype import convert_dtype
from ..program import Block, Program
from .effects import drop_forwarding, is_ssa, per_block
from .facts import Facts, facts_for

# The only op types this pass removes.
CANDIDATES = frozenset({"cast", "reshape", "assign"})


def _is_noop(program: Program, op, facts: Facts) -> bool:
    if len(op.inputs) != 1 or len(op.outputs) != 1:
        return False
    src, dst = facts.vars.get(op.inputs[0]), facts.vars.get(op.outputs[0])
    if src is None or dst is None or src.kind != "dense" or dst.kind != "dense":
        return False
    if src.dtype != dst.dtype or src._shape != dst._shape:
        return False
    if op.type == "cast":
        try:
            return convert_dtype(op.attrs.get("dtype")) == src.dtype
        except Exception:  # noqa: BLE001
            return False
    if op.type == "reshape":
        return all(d >= 0 for d in src._shape) and \
            [int(d) for d in op.attrs.get("shape", ())] == list(src._shape)
    if op.type == "assign":
        # 0-d values are left alone: some kernels return numpy scalars for them, and dropping
        # the op would change which kind of object flows on (and how a kernel bug shows).
        return len(src._shape) > 0 and not src.persistable and \
            op.inputs[0] not in program.persistables
    return False


def _remove_block(program: Program, block: Block, facts: Facts) -> int:
    if not any(op.type in CANDIDATES for op in block.ops) or not is_ssa(block):
        return 0
    return drop_forwarding(program, block,
                           lambda op: op.type in CANDIDATES and _is_noop(program, op, facts))


def remove_noops(program: Program, facts: Optional[Facts] = None) -> int:
    return per_block(program, _remove_block, facts_for(program, facts))
