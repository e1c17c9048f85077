"""Python numbers a converted tensor loop carries (`i = 0; while i < n: i = i + 1`, a float sum,
a bool flag): a tensor inside the loop, a Python number (a PythonValue) after it, as eager code
has one when every turn computed the value from numbers only."""
from __future__ import annotations

from typing import Any, List, Sequence, Set, Tuple

from .. import ops
from ..origin import user_origin
from ..program import Variable
from ..python_value import PythonValue
from .cond import GENERATED_NAMES
from .values import as_constant, is_number

# the dtype a Python number is carried in: its own precision (a Python float is a double)
_CARRIED = {bool: "bool", int: "int64", float: "float64"}


def carried_numbers(leaves: Sequence[Any], labels: Sequence[str]) -> Set[int]:
    """The loop variables that enter the loop as a Python bool, int or float, named by the user
    (not the converter's own flags and counters, nor a number inside a tuple): the loop carries
    them as numbers while its turns compute them from numbers."""
    return {i for i, v in enumerate(leaves) if type(v) in _CARRIED and labels[i][:1] == "'"
            and not labels[i].strip("'").startswith(GENERATED_NAMES)}


def number_constant(value: Any) -> PythonValue:
    """value (a Python bool, int or float) as a 0-d constant of its own precision, marked as the
    Python number it stands for."""
    out = ops.full([], value, _CARRIED[type(value)])
    out.__class__ = PythonValue
    return out


def initial_values(leaves: Sequence[Any], numbers: Set[int]) -> List[Any]:
    """The loop's initial values: the carried numbers as number constants, other Python numbers
    as constants of their own dtypes, the rest as they are."""
    return [number_constant(v) if i in numbers else as_constant(v) if is_number(v) else v
            for i, v in enumerate(leaves)]


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
    return type(v) is PythonValue or type(v) in _CARRIED


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
        elif type(o) in _CARRIED:
            p = params[i]
            wider = type(o) is float and not p.dtype.is_floating or \
                type(o) is int and p.dtype == "bool"
            if wider:
                out[i] = number_constant(o)
            else:
                out[i] = ops.full([], o, p.dtype)
                out[i].__class__ = PythonValue
    return out, lost
