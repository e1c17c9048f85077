"""While ops that count an int scalar from its start to a fixed bound by a fixed step (`while i <
n: ...; i = i + 1`, and every rolled Python loop): the executor runs them as a Python
`for i in range(...)` instead of testing and adding 0-d arrays each turn. The counter and the
bound may be 0-d or of shape [1], as Paddle code writes them (`i = paddle.zeros([1], 'int64')`,
`n` a shape-[1] tensor, `for i in range(n)`): a shape-[1] test is then reshaped to a 0-d one."""
from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

import numpy as np

from ..dtype import dtype_name
from ..program import Block, Operator, Program, Variable

# comparison op -> (the step's sign it needs, whether the bound itself is reached)
_COMPARE = {"less_than": (1, False), "less_equal": (1, True),
            "greater_than": (-1, False), "greater_equal": (-1, True)}


# the shapes a counter or a bound may have: one number either way
SCALAR_SHAPES = ((), (1,))


class CountedLoop:
    """Loop variable k counts by step while `k < stop` (or <=, >, >=). stop is an int or
    ("input", j): the number in the while op's input j. body: the body block without the
    increment, its result k being the param itself. dtype, shape: the counter's."""

    def __init__(self, k: int, stop: Any, step: int, inclusive: bool, body: Block,
                 dtype: np.dtype, shape: Tuple[int, ...] = ()) -> None:
        self.k, self.stop, self.step, self.inclusive = k, stop, step, inclusive
        self.body, self.dtype, self.shape = body, dtype, shape


def _int_constant(op: Operator, dtype: np.dtype) -> Optional[int]:
    """The value of a `full` op making a 0-d or shape-[1] int of dtype that the value fits (one
    that does not fit fails when built: the loop then keeps its ops)."""
    attrs = op.attrs
    value = attrs.get("value")
    if op.type != "full" or op.inputs or attrs.get("shape") not in ([], [1]) or type(value) is not int or \
            np.dtype(dtype_name(attrs.get("dtype"))) != dtype:
        return None
    info = np.iinfo(dtype)
    return value if info.min <= value <= info.max else None


def _int_dtype(vars: Dict[str, Variable], name: str, kinds: str = "i") -> Optional[np.dtype]:
    """The dtype of a one-number int value (0-d or shape [1]) of one of kinds (a counter must be
    signed: an unsigned one would wrap below 0)."""
    v = vars.get(name)
    if v is None or v.kind != "dense" or v._shape not in SCALAR_SHAPES:
        return None
    dt = np.dtype(v.dtype.np)
    return dt if dt.kind in kinds else None


def _shape(vars: Dict[str, Variable], name: str) -> Optional[Tuple[int, ...]]:
    v = vars.get(name)
    return v._shape if v is not None else None


def _test_op(cond: Block, vars: Dict[str, Variable]) -> Optional[Tuple[Operator, Optional[Operator]]]:
    """(the comparison the condition block computes, the cast of its bound or None): its result,
    or the result reshaped from shape [1] to 0-d (what `while i < n` on shape-[1] tensors
    traces to), the bound possibly cast to the counter's dtype first (an int32 `n` against an
    int64 counter); None for another condition."""
    ops = [o for o in cond.ops if o.type != "full"]
    cast = None
    if len(ops) > 1 and ops[0].type == "cast" and len(ops[0].inputs) == 1 and \
            len(ops[0].outputs) == 1:
        cast, ops = ops[0], ops[1:]
    if len(ops) == 2 and ops[1].type == "reshape" and ops[1].attrs == {"shape": []} and \
            ops[1].inputs == ops[0].outputs and ops[1].outputs == cond.results and \
            len(ops[0].outputs) == 1 and _shape(vars, ops[0].outputs[0]) == (1,):
        ops = ops[:1]
    elif len(ops) != 1 or ops[0].outputs != cond.results:
        return None
    test = ops[0]
    if test.type not in _COMPARE or len(test.inputs) != 2 or \
            (cast is not None and test.inputs[1] != cast.outputs[0]):
        return None
    return test, cast


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
    found = _test_op(cond, vars)
    if found is None:
        return None
    test, cast = found
    counter, bound = test.inputs
    dtype = _int_dtype(vars, counter)
    if counter not in cond.params[:n] or dtype is None:
        return None
    if cast is not None:
        if _int_dtype(vars, bound, "iu") != dtype:
            return None
        bound = cast.inputs[0]            # whose every value the counter's dtype holds: below
    constants = {o.outputs[0]: c for o in cond.ops if (c := _int_constant(o, dtype)) is not None}
    if len(constants) != len([o for o in cond.ops if o.type == "full"]):
        return None                       # a constant of another kind: built as it is
    k = cond.params.index(counter)
    shape = _shape(vars, counter)
    if bound in constants:
        stop: Any = constants[bound]
    elif bound in cond.params[n:] and _fits(_int_dtype(vars, bound, "iu"), dtype):
        stop = ("input", cond.params.index(bound))      # captured: the same every turn
    else:
        return None
    sign, inclusive = _COMPARE[test.type]
    if shape != ():
        # a shape-[1] counter's local holds a Python int in the loop: no op may read it (an
        # index would drop the dim its array keeps)
        index_ok = _never
    step = _step(body, vars, k, sign, dtype, index_ok)
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
    return CountedLoop(k, stop, value, inclusive, view, dtype, shape)


def _fits(bound: Optional[np.dtype], counter: np.dtype) -> bool:
    """Whether every value of the bound's dtype is one of the counter's: the counter, stepping
    by 1 until it reaches the bound, then never wraps around."""
    return bound is not None and np.can_cast(bound, counter, "safe")


def _never(op: Operator, name: str) -> bool:
    return False


def _step(body: Block, vars: Dict[str, Variable], k: int, sign: int, dtype: np.dtype,
          index_ok: Any) -> Optional[Tuple[Operator, int]]:
    """(the op adding a constant step to param k, the step) when that is all the body does
    with it besides indexing, and the step goes the way the test needs."""
    param, result = body.params[k], body.results[k]
    if body.results.count(result) != 1 or result in body.params or param in body.results:
        return None
    steps = {o.outputs[0]: c for o in body.ops if (c := _int_constant(o, dtype)) is not None}
    increment, value = None, None
    for o in body.ops:
        if param in o.outputs or (result in o.inputs):
            return None                    # written in the body, or its next value read
        if param not in o.inputs:
            continue
        by = _step_of(o, param, steps) if o.outputs == [result] and increment is None and \
            _shape(vars, result) == _shape(vars, param) else None
        if by is not None:
            increment, value = o, by
        elif not index_ok(o, param):
            return None
    if increment is None:
        return None
    if value == 0 or (value > 0) != (sign > 0):
        return None
    return increment, value


def _step_of(op: Operator, param: str, steps: Dict[str, int]) -> Optional[int]:
    """The constant op adds to param: `param + c` (c one of steps) or `paddle.increment(param,
    value)` with a whole-number value (its kernel adds it and casts back to the counter's int
    dtype, as a range step does); None for another op."""
    if op.type == "add" and len(op.inputs) == 2 and op.inputs[0] == param and op.inputs[1] in steps:
        return steps[op.inputs[1]]
    if op.type == "increment" and op.inputs == [param]:
        value = op.attrs.get("value")
        if type(value) in (int, float) and float(value).is_integer():
            return int(value)
    return None


def counter_end(counted: range, dtype: np.dtype, shape: Tuple[int, ...] = ()) -> np.ndarray:
    """The counter's value after the loop ran over `counted`: its start plus a step per turn."""
    return np.full(shape, counted.start + len(counted) * counted.step, dtype=dtype)
