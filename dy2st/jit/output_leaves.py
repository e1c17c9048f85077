"""The output leaves of a traced program: ("var", fetch index) for a tensor, ("const", value)
for a Python value, and ("opt", (value, flag, what)) for a value that is None on some paths
(`y = None` before a tensor loop or `if` that may assign it): the program fetches the value and
its "is it not None?" flag, and the call hands out None where the flag is false, as eager code
returns (("opt", (value, flag, what, True)): a dict entry that may be missing, left out). A saved or exported model cannot return None: while a model is traced for export
(`exporting`), such a value is checked instead, so the model raises TypeError ("'y' is None
here") on the paths where it is None."""
from __future__ import annotations

import contextlib
from typing import Any, Iterator, List, Optional, Tuple

from ..runtime import ops
from ..runtime.control_flow import is_undefined
from ..runtime.program import EscapedTensorError, Variable
from ..runtime.side_effects import IS_NONE, MISSING_KEY, check_defined
from ..runtime.tensor import Tensor
from .absent_keys import ABSENT
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
            optional = optional_leaf(leaf, fetch)
            if optional is not None:
                desc.append(optional)
                continue
            # a returned value that one path of a tensor `if` never assigned fails there
            entry = leaf.block.program.maybe_undefined.get(leaf.name)
            if entry is not None:
                check_defined(*entry)
            desc.append(("var", len(fetch)))
            fetch.append(leaf.name)
        elif is_undefined(leaf):
            desc.append(("const", None))
        else:
            desc.append(("const", leaf))
    return desc, fetch


_EXPORTING = [0]


@contextlib.contextmanager
def exporting() -> Iterator[None]:
    """Traces inside give a model file: outputs that may be None are checked, not optional."""
    _EXPORTING[0] += 1
    try:
        yield
    finally:
        _EXPORTING[0] -= 1


def optional_leaf(var: Variable, fetch: List[str]) -> Optional[Tuple[str, Any]]:
    """The output leaf of `var` when it may be None (its flag is fetched too), else None."""
    entry = var.block.program.maybe_undefined.get(var.name)
    if _EXPORTING[0] or entry is None or entry[1] not in (IS_NONE, MISSING_KEY) or \
            not isinstance(entry[0], Variable) or entry[0].block.idx != 0:
        return None
    if entry[1] == MISSING_KEY:     # a dict entry a loop or `if` may not add: left out there
        leaf = ("opt", (len(fetch), len(fetch) + 1, f"the key {entry[2]}", True))
    else:
        what = str(entry[2]).split(":")[0]      # "'y' is None here"
        leaf = ("opt", (len(fetch), len(fetch) + 1, what))
    fetch.extend([var.name, entry[0].name])
    return leaf


def leaf_value(kind: str, v: Any, outs: List[Any]) -> Any:
    """A leaf that is not a plain variable: a constant, or an optional output."""
    if kind != "opt":
        return v
    return wrap_output(outs[v[0]]) if bool(outs[v[1]]) else (ABSENT if len(v) > 3 else None)
