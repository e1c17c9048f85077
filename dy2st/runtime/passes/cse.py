"""Common-subexpression elimination: a pure op with the same type, inputs and attrs as an earlier
op in the same block reuses the earlier outputs.

    t_2 = exp(x)                                  t_2 = exp(x)
    t_3 = exp(x)                           ->     t_4 = add(t_2, t_2)
    t_4 = add(t_2, t_3)

Random, effectful and array-reading ops (effects.py) are never merged; ops whose outputs leave
the block (results, fetches) are kept so no two outputs share one array."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from ..program import Block, Operator, Program
from .effects import Renames, is_pure, is_ssa, keep_names, per_block
from .facts import Facts, facts_for


class _Unkeyable(Exception):
    pass


# Exact built-in types whose key is (type name, value), as the general rules below give it.
_PLAIN = {type(None): "NoneType", bool: "bool", str: "str", int: "int"}


def attr_key(v: Any) -> Any:
    """A hashable key equal only for attrs that are surely equal (floats by repr: -0.0 != 0.0)."""
    t = type(v)
    # exact built-in types first (the usual attrs; plain items of containers without a call)
    name = _PLAIN.get(t)
    if name is not None:
        return (name, v)
    if t is float:
        return ("float", repr(v))
    plain = _PLAIN
    if t is list or t is tuple:
        return (t.__name__, tuple([(plain[type(x)], x) if type(x) in plain else attr_key(x)
                                   for x in v]))
    if t is dict:
        return ("dict", tuple(sorted([(str(k), (plain[type(x)], x) if type(x) in plain else attr_key(x))
                                      for k, x in v.items()])))
    # subclasses (e.g. DType is a str)
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


_EXACT_TYPES = (str, int, bool, type(None))


def same_attr_value(a: Any, b: Any) -> bool:
    """Whether two attribute values are surely the same, compared pair by pair (attr_key builds a
    key for lookups, several times slower). == alone would take 0.0 for -0.0 and 1 for 1.0 or
    True, which ops may treat differently: types must match and floats compare by repr. Other
    objects (arrays, dtypes) must be the same object."""
    t = type(a)
    if t is not type(b):
        return False
    if t is dict:
        if a.keys() != b.keys():
            return False
        for k, x in a.items():
            y = b[k]
            if x is not y and not same_attr_value(x, y):
                return False
        return True
    if t is list or t is tuple:
        if len(a) != len(b):
            return False
        for x, y in zip(a, b):
            if x is not y and not same_attr_value(x, y):
                return False
        return True
    if t is float:
        return repr(a) == repr(b)
    if t in _EXACT_TYPES:
        return a == b
    return a is b


def _op_key(op) -> Tuple:
    return (op.type, tuple(op.inputs), attr_key(op.attrs))


def _cse_block(program: Program, block: Block, facts: Facts) -> int:
    ops = block.ops
    # ops merge only with an earlier op of the same type and inputs: with no such pair nothing
    # merges (and then no input is renamed, so no pair can appear)
    if len({(op.type, tuple(op.inputs)) for op in ops}) == len(ops) or not is_ssa(block):
        return 0
    keep = keep_names(program, block)
    # (type, inputs) -> the first pure op with them, or {attrs key: outputs} of the first pure
    # op per key once a second one came: attrs keys are made only for ops that could merge
    seen: Dict[Tuple, Any] = {}
    kept: List[Operator] = []
    renames = Renames()
    merged = 0
    for op in ops:
        renames.apply(op)
        if is_pure(program, op, facts):
            sig = (op.type, tuple(op.inputs))
            earlier = seen.get(sig)
            if earlier is None:
                seen[sig] = op
            else:
                if type(earlier) is not dict:
                    first, earlier = earlier, {}
                    key = _attrs_key(first)
                    if key is not None:
                        earlier[key] = first.outputs
                    seen[sig] = earlier
                key = _attrs_key(op)
                if key is not None:
                    outputs = earlier.get(key)
                    if outputs is None:
                        earlier[key] = op.outputs
                    elif not any(o in keep for o in op.outputs):
                        renames.add(dict(zip(op.outputs, outputs)))
                        merged += 1
                        continue
        kept.append(op)
    renames.finish(block)
    if merged:
        block.ops = kept
    return merged


def _attrs_key(op: Operator) -> Any:
    """attr_key of the op's attrs, None when they have none."""
    try:
        return attr_key(op.attrs)
    except _Unkeyable:
        return None


def eliminate_common_subexpressions(program: Program, facts: Optional[Facts] = None) -> int:
    return per_block(program, _cse_block, facts_for(program, facts))
