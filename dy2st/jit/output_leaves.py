"""The output leaves of a traced program: ("var", fetch index) for a tensor, ("const", value)
for a Python value, and ("opt", (value, flag, what)) for a value that is None on some paths
(`y = None` before a tensor loop or `if` that may assign it): the program fetches the value and
its "is it not None?" flag, and the call hands out None where the flag is false, as eager code
returns (("opt", (value, flag, what, True)): a dict entry that may be missing, left out). A saved or exported model cannot return None: while a model is traced for export
(`exporting`), such a value is checked instead, so the model raises TypeError ("'y' is None
here") on the paths where it is None."""
from __future__ import annotations

from typing import Any, List, Optional, Tuple

from ..jst.loop_functions import LoopFunction
from ..runtime import ops
from ..runtime.control_flow import is_undefined
from ..runtime.program import EscapedTensorError, Variable
from ..runtime.side_effects import IS_NONE, MISSING_KEY, check_defined
from ..runtime.state import is_exporting
from ..runtime.tensor import Tensor
from ..runtime.widened import WIDENED, same_value, value_before
from .leaf_values import picked
from .run_program import wrap_output


def describe(out_leaves: List[Any]) -> Tuple[List[Tuple[str, Any]], List[str]]:
    """(leaf descriptions, fetch names) of a traced function's returned leaves."""
    desc: List[Tuple[str, Any]] = []
    fetch: List[str] = []
    for leaf in out_leaves:
        if isinstance(leaf, Tensor):
            leaf = ops.assign(leaf)
        if isinstance(leaf, Variable):
            if leaf.block.idx != 0:
                raise EscapedTensorError(leaf)
            optional = optional_leaf(leaf, fetch) or widened_leaf(leaf, fetch)
            if optional is not None:
                desc.append(optional)
                continue
            # a returned value that one path of a tensor `if` never assigned fails there
            entry = leaf.block.program.maybe_undefined.get(leaf.name)
            if entry is not None and not same_value(leaf):
                check_defined(*entry)
            desc.append(("var", len(fetch)))
            fetch.append(leaf.name)
        elif is_undefined(leaf):
            desc.append(("const", None))
        elif type(leaf) is LoopFunction:
            raise TypeError(
                f"the function {leaf.name!r} made in a tensor loop{leaf.made_at()} is returned: "
                "it reads values of the program, which end with the call; return what calling "
                "it gives instead")
        else:
            desc.append(("const", leaf))
    return desc, fetch


def optional_leaf(var: Variable, fetch: List[str]) -> Optional[Tuple[str, Any]]:
    """The output leaf of `var` when it may be None (its flag is fetched too), else None."""
    entry = var.block.program.maybe_undefined.get(var.name)
    if is_exporting() or entry is None or entry[1] not in (IS_NONE, MISSING_KEY) or \
            not isinstance(entry[0], Variable) or entry[0].block.idx != 0:
        return None
    if entry[1] == MISSING_KEY:     # a dict entry a loop or `if` may not add: left out there
        leaf = ("opt", (len(fetch), len(fetch) + 1, f"the key {entry[2]}", True))
    else:
        what = str(entry[2]).split(":")[0]      # "'y' is None here"
        leaf = ("opt", (len(fetch), len(fetch) + 1, what))
    fetch.extend([var.name, entry[0].name])
    return leaf


def widened_leaf(var: Variable, fetch: List[str]) -> Optional[Tuple[str, Any]]:
    """The output leaf of `var` when a tensor loop widened it (runtime/widened.py): the program
    fetches it, its flag and the value from before the loop, and the call hands out the latter
    where the flag is false (the loop ran no turn: eager code has that dtype). None for other
    values, and while a model file is traced (one output, one dtype: it is checked instead)."""
    program = var.block.program
    entry = program.maybe_undefined.get(var.name)
    if is_exporting() or entry is None or entry[1] != WIDENED or \
            not isinstance(entry[0], Variable) or entry[0].block.idx != 0:
        return None
    before = value_before(program, entry[2])
    if isinstance(before, Variable) and before.block.idx != 0:
        return None
    if isinstance(before, Variable):
        inner = optional_leaf(before, fetch) or widened_leaf(before, fetch)
        if inner is None:
            inner = ("var", len(fetch))
            fetch.append(before.name)
    else:
        inner = ("const", before)
    leaf = ("pick", (len(fetch), len(fetch) + 1, inner))
    fetch.extend([var.name, entry[0].name])
    return leaf


def leaf_value(kind: str, v: Any, outs: List[Any]) -> Any:
    """A leaf that is not a plain variable: a constant, or an optional or widened output."""
    index, value = picked(kind, v, outs)
    return value if index is None else wrap_output(value)
