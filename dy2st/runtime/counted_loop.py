"""While ops that count an int scalar from its start to a fixed bound by a fixed step (`while i <
n: ...; i = i + 1`, and every rolled Python loop): the executor runs them as a Python
`for i in range(...)` instead of testing and adding 0-d arrays each turn."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from .program import Block, Operator, Program, Variable

# comparison op -> (the step's sign it needs, whether the bound itself is reached)
_COMPARE = {"less_than": (1, False), "less_equal": (1, True),
            "greater_than": (-1, False), "greater_equal": (-1, True)}


class CountedLoop:
    """Loop variable k counts by step while `k < stop` (or <=, >, >=). stop is an int or
    ("input", j): int() of the while op's input j. body: the body block without the
    increment, its result k being the param itself."""

    def __init__(self, k: int, stop: Any, step: int, inclusive: bool, body: Block,
                 dtype: np.dtype) -> None:
        self.k, self.stop, self.step, self.inclusive = k, stop, step, inclusive
        self.body, self.dtype = body, dtype


def _int_constant(op: Operator, dtype: np.dtype) -> Optional[int]:
    """The value of a `full` op making a 0-d int of dtype that the value fits (one that does
    not fit fails when built: the loop then keeps its ops)."""
    attrs = op.attrs
    value = attrs.get("value")
    if op.type != "full" or op.inputs or attrs.get("shape") != [] or type(value) is not int or \
            np.dtype(str(attrs.get("dtype"))) != dtype:
        return None
    info = np.iinfo(dtype)
    return value if info.min <= value <= info.max else None


def _int_dtype(vars: Dict[str, Variable], name: str) -> Optional[np.dtype]:
    """The dtype of a 0-d signed int value (an unsigned one would wrap below 0)."""
    v = vars.get(name)
    if v is None or v.kind != "dense" or v._shape != ():
        return None
    dt = np.dtype(v.dtype.np)
    return dt if dt.kind == "i" else None


def _never_wraps(stop: Any, step: int, inclusive: bool, dtype: np.dtype) -> bool:
    """Whether the counter, stepping while it has not passed stop, stays in its dtype's range
    (the general loop, like eager code, would wrap around and go on; a range would not). A
    bound known only when the program runs is safe with a step of 1 towards it."""
    if type(stop) is not int:
        return abs(step) == 1 and not inclusive
    info = np.iinfo(dtype)
    last = stop + step - (0 if inclusive else (1 if step > 0 else -1))   # the furthest value
    return info.min <= last <= info.max


def counted_loop(program: Program, vars: Dict[str, Variable], op: Operator,
                 index_ok: Any) -> Optional[CountedLoop]:
    """The counting of while op `op`, or None. index_ok(op, param): whether the body op `op`
    reads param only as an index the generated code turns into a Python int."""
    n = op.attrs["n_loop_vars"]
    cond = program.blocks[op.attrs["cond_block"]]
    body = program.blocks[op.attrs["body_block"]]
    tests = [o for o in cond.ops if o.type != "full"]
    if len(tests) != 1 or tests[0].type not in _COMPARE or tests[0].outputs != cond.results or \
            len(tests[0].inputs) != 2:
        return None
    counter, bound = tests[0].inputs
    dtype = _int_dtype(vars, counter)
    if counter not in cond.params[:n] or dtype is None:
        return None
    constants = {o.outputs[0]: c for o in cond.ops if (c := _int_constant(o, dtype)) is not None}
    if len(constants) != len(cond.ops) - 1:
        return None                       # a constant of another kind: built as it is
    k = cond.params.index(counter)
    if bound in constants:
        stop: Any = constants[bound]
    elif bound in cond.params[n:] and _int_dtype(vars, bound) == dtype:
        stop = ("input", cond.params.index(bound))      # captured: the same every turn
    else:
        return None
    sign, inclusive = _COMPARE[tests[0].type]
    step = _step(body, k, sign, dtype, index_ok)
    if step is None:
        return None
    increment, value = step
    if not _never_wraps(stop, value, inclusive, dtype):
        return None
    view = Block(program, body.idx, body.parent_idx)
    view.vars, view.params, view.captures = body.vars, body.params, body.captures
    view.ops = [o for o in body.ops if o is not increment]
    view.results = list(body.results)
    view.results[k] = body.params[k]
    return CountedLoop(k, stop, value, inclusive, view, dtype)


def _step(body: Block, k: int, sign: int, dtype: np.dtype,
          index_ok: Any) -> Optional[Tuple[Operator, int]]:
    """(the op adding a constant step to param k, the step) when that is all the body does
    with it besides indexing, and the step goes the way the test needs."""
    param, result = body.params[k], body.results[k]
    if body.results.count(result) != 1 or result in body.params or param in body.results:
        return None
    steps = {o.outputs[0]: c for o in body.ops if (c := _int_constant(o, dtype)) is not None}
    increment = None
    for o in body.ops:
        if param in o.outputs or (result in o.inputs):
            return None                    # written in the body, or its next value read
        if param not in o.inputs:
            continue
        if o.type == "add" and o.outputs == [result] and len(o.inputs) == 2 and \
                o.inputs[0] == param and o.inputs[1] in steps and increment is None:
            increment = o
        elif not index_ok(o, param):
            return None
    if increment is None:
        return None
    value = steps[increment.inputs[1]]
    if value == 0 or (value > 0) != (sign > 0):
        return None
    return increment, value


def counter_end(counted: range, dtype: np.dtype) -> np.ndarray:
    """The counter's value after the loop ran over `counted`: its start plus a step per turn."""
    return np.array(counted.start + len(counted) * counted.step, dtype=dtype)
