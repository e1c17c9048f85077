"""Common-subexpression elimination: a pure op with the same type, inputs and attrs as an earlier
op in the same block reuses the earlier outputs.

    t_2 = exp(x)                                  t_2 = exp(x)
    t_3 = exp(x)                           ->     t_4 = add(t_2, t_2)
    t_4 = add(t_2, t_3)

Random, effectful and array-reading ops (effects.py) are never merged; ops whose outputs leave
the block (results, fetches) are kept so no two outputs share one array."""
from __future__ import annotations

from typing import Any, Dict, List, Tuple

from ..program import Block, Program
from .effects import per_block, is_pure, is_ssa, keep_names, rename_inputs


class _Unkeyable(Exception):
    pass


def attr_key(v: Any) -> Any:
    """A hashable key equal only for attrs that are surely equal (floats by repr: -0.0 != 0.0)."""
    if v is None or isinstance(v, (bool, str)):
        return (type(v).__name__, v)
    if isinstance(v, int):
        return ("int", v)
    if isinstance(v, float):
        return ("float", repr(v))
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, tuple(attr_key(x) for x in v))
    if isinstance(v, dict):
        return ("dict", tuple(sorted((str(k), attr_key(x)) for k, x in v.items())))
    raise _Unkeyable


def _op_key(op) -> Tuple:
    return (op.type, tuple(op.inputs), attr_key(op.attrs))


def _cse_block(program: Program, block: Block) -> int:
    if not is_ssa(block):
        return 0
    keep = keep_names(program, block)
    seen: Dict[Tuple, List[str]] = {}
    kept = []
    merged = 0
    for i, op in enumerate(block.ops):
        if is_pure(program, op):
            try:
                key = _op_key(op)
            except _Unkeyable:
                key = None
            if key is not None:
                earlier = seen.get(key)
                if earlier is not None and not any(o in keep for o in op.outputs):
                    rename_inputs(block, i + 1, dict(zip(op.outputs, earlier)))
                    merged += 1
                    continue
                seen.setdefault(key, op.outputs)
        kept.append(op)
    block.ops = kept
    return merged


def eliminate_common_subexpressions(program: Program) -> int:
    return per_block(program, _cse_block)
