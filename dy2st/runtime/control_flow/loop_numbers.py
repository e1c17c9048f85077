"""Python numbers a converted tensor loop carries (`i = 0; while i < n: i = i + 1`, a float sum,
a bool flag): a tensor inside the loop, a Python number (a PythonValue) after it, as eager code
has one when every turn computed the value from numbers only."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

from .. import ops
from ..dtype import dtype_name
from ..origin import user_origin
from ..program import Variable
from ..python_value import PythonValue
from ..pytree import LEAF
from .cond import GENERATED_NAMES
from .values import CARRIED_DTYPES, as_constant, is_number, number_constant


def leaf_labels(names: Optional[Sequence[str]], tree: Any) -> List[str]:
    """A label per leaf of the loop variables' structure `tree`: the user's name in quotes,
    with the place inside a tuple, list or dict (`'state[0]'`, `'d['k']'`); `#i` where the
    loop variables have no names (the functional while_loop)."""
    labels: List[str] = []

    def walk(s: Any, path: str) -> None:
        if s is LEAF:
            labels.append(f"'{path}'")
        elif s[0] == "dict":
            for k, sub in s[1]:
                walk(sub, f"{path}[{k!r}]")
        else:
            for j, sub in enumerate(s[1]):
                walk(sub, f"{path}[{j}]")

    if names and tree[0] in ("list", "tuple") and len(tree[1]) == len(names):
        for name, sub in zip(names, tree[1]):
            walk(sub, name)
        return labels
    return [f"#{i}" for i in range(_count(tree))]


def _count(tree: Any) -> int:
    if tree is LEAF:
        return 1
    return sum(_count(s[1] if tree[0] == "dict" else s) for s in tree[1])


def carried_numbers(leaves: Sequence[Any], labels: Sequence[str]) -> Set[int]:
    """The loop variables (or their items: `state = (0, 0.0)`, a dict's values) that enter the
    loop as a Python bool, int or float, or as a number a trace holds (`.item()`, a number an
    earlier loop carried), named by the user (not the converter's own flags and counters): the
    loop carries them as numbers while its turns compute them from numbers."""
    return {i for i, v in enumerate(leaves) if is_carried_number(v) and labels[i][:1] == "'"
            and _users(labels[i].strip("'"))}


def _users(name: str) -> bool:
    # the value the function returns (`return t` in the loop) is the user's too
    return name.startswith("return_value_") or not name.startswith(GENERATED_NAMES)


def is_carried_number(v: Any) -> bool:
    """v is a Python number a loop may carry as one: a bool, int or float, or a PythonValue of
    one (not a dim of a shape, which keeps a tensor's rules)."""
    return type(v) in CARRIED_DTYPES or type(v) is PythonValue and not v._shape and \
        dtype_name(v.dtype) in ("bool", "int64", "float64", "float32")


def number_placeholder(value: Any) -> PythonValue:
    """A stand-in for a Python number a loop's body first assigns (value, a number or a
    PythonValue, is what a turn gave it): a number constant of the precision it is carried in."""
    if type(value) in CARRIED_DTYPES:
        return number_constant(value)
    return number_constant(_SAMPLE[_carried_dtype(value)])


def _carried_dtype(v: PythonValue) -> str:
    # a float read from a float32 tensor is a Python float (a double) in eager code
    return "float64" if v.dtype.is_floating else dtype_name(v.dtype)


_SAMPLE = {"bool": False, "int64": 0, "float64": 0.0}


def initial_values(leaves: Sequence[Any], numbers: Set[int]) -> List[Any]:
    """The loop's initial values: the carried numbers as number constants (in a Python number's
    own precision), other Python numbers as constants of their own dtypes, the rest as they
    are."""
    return [_number_value(v) if i in numbers else as_constant(v) if is_number(v) else v
            for i, v in enumerate(leaves)]


def _number_value(v: Any) -> PythonValue:
    if type(v) in CARRIED_DTYPES:
        return number_constant(v)
    if v.dtype == _carried_dtype(v):
        return v
    out = ops.cast(v, _carried_dtype(v))
    out.__class__ = PythonValue
    return out


def read_numbers_made_tensors(lost: Set[int], leaves: Sequence[Any]) -> Dict[int, Any]:
    """The carried numbers in `lost` (a turn made them tensors) that were read from a tensor
    (`.item()`) before the loop, by index: the loop carries each as the tensor it was read as,
    without the "is it still a number?" flag of a Python number."""
    return {i: leaves[i] for i in lost if type(leaves[i]) is PythonValue}


def mark(indices: Set[int], *values: Sequence[Any]) -> None:
    """Mark the variables at `indices` of each of `values` (a loop block's params, the loop's
    outputs) as numbers."""
    for vs in values:
        for i in indices:
            if type(vs[i]) is Variable:
                vs[i].__class__ = PythonValue


def mark_results(final: Sequence[Any], indices: Set[int], labels: Sequence[str]) -> None:
    """Mark the loop's outputs at `indices` as numbers, noting what each is for the errors of
    Python logic reading it (runtime/python_value.py)."""
    mark(indices, final)
    origin = user_origin()
    at = f" at line {origin.line}" if origin is not None else ""
    for i in indices:
        v = final[i]
        if type(v) is PythonValue:
            v.block.program.number_sources[v.name] = f"{labels[i]}, carried by the tensor loop{at}"


def _is_number(v: Any) -> bool:
    return type(v) is PythonValue or type(v) in CARRIED_DTYPES


def turn_numbers(out_leaves: List[Any], params: Sequence[Any],
                 numbers: Set[int]) -> Tuple[List[Any], Set[int]]:
    """(out_leaves with each carried number a turn set to a Python constant made a constant in
    the body block, the carried numbers that a turn made a tensor instead: eager code has a
    tensor after such a turn). A float constant where the loop carries an int (`i = 0.5`)
    keeps its own precision: the loop then carries a float."""
    out = list(out_leaves)
    lost: Set[int] = set()
    for i in numbers:
        o = out[i]
        if not _is_number(o):
            lost.add(i)
        elif type(o) in CARRIED_DTYPES:
            p = params[i]
            wider = type(o) is float and not p.dtype.is_floating or \
                type(o) is int and p.dtype == "bool"
            if wider:
                out[i] = number_constant(o)
            else:
                out[i] = ops.full([], o, p.dtype)
                out[i].__class__ = PythonValue
    return out, lost
