"""The `_jst` helpers that converted code calls. Each dispatches on its argument's kind: a static
Variable builds graph ops, an eager Tensor or a Python value runs plain Python."""
from __future__ import annotations

import operator
from typing import Any, Callable

from ..runtime import ops
from ..runtime.array_methods import set_item
from ..runtime.control_flow.cond import UndefinedVar, is_undefined
from ..runtime.inplace import assign_in_place
from ..runtime.program import Variable
from ..runtime.side_effects import IS_NONE, check_entry
from ..runtime.tensor import Tensor, TensorLike
from ..runtime.widened import WIDENED
from . import operators
from .branches import IfElse, IfElseExpr  # noqa: F401
from .iteration import Enumerate, For, ListComp, Range, Reversed, Zip  # noqa: F401
from .loops import While, run_static_loop  # noqa: F401
from .operators import (  # noqa: F401
    AllOf,
    And,
    AnyOf,
    Bool,
    Compare,
    DivMod,
    Float,
    Int,
    IsInstance,
    Len,
    Max,
    Min,
    Not,
    Or,
    Repr,
    Round,
    Str,
    Sum,
    Type,
)
from .printing import Assert, Print  # noqa: F401
from .trace_paths import (  # noqa: F401
    TryBlock,
    copy_containers,
    fails_on_its_path,
    is_symbolic,
    raise_when_reached,
    refuse_inside_try,
)

__all__ = ["IfElse", "IfElseExpr", "While", "For", "Range", "Reversed", "Enumerate", "Zip",
           "And", "Or",
           "Not", "Print", "Assert", "Int", "Float", "Bool", "Len", "SetItem", "GetAttr",
           "UndefinedVar", "ReturnValue", "Call", "TryBlock", "Compare", "IsInstance", "Sum",
           "Defined", "InPlace"]


def Call(fn: Any) -> Any:
    """The callable converted code uses instead of `fn`: jit installs its call converter with
    `set_call_converter` when it loads (this runtime never imports the front end)."""
    raise RuntimeError("dy2st.jst.Call: no call converter installed (import dy2st.jit first)")


def set_call_converter(convert: Callable[[Any], Any]) -> None:
    """Make `_jst.Call` the given converter (converted code looks it up on every call)."""
    global Call
    Call = convert
    operators.CALL = convert


def SetItem(container: Any, index: Any, value: Any) -> Any:
    """container[index] = value; a static Variable gets a new (rebound) value instead."""
    if isinstance(container, Variable):
        if container.kind == "array":
            return set_item(container, index, value)
        out = ops.setitem(container, index, value)
        if container.kind != "dense":
            return out
        # the traced object itself takes the new value, so that every alias (a list or dict
        # entry, an attribute, a second name) sees the update as in eager mode
        return assign_in_place(container, out)
    if isinstance(container, Tensor) and (is_symbolic(value) or _has_symbolic(index)):
        return ops.setitem(container, index, value)
    container[index] = value
    return container


# `a[i] op= v` as Python runs it: a[i].__iop__(v) (a list extends itself in place, so an alias
# sees the change and `lst += tuple` works), falling back to `a[i] op v` where there is no
# __iop__ (tensors, numbers, tensor arrays)
_IN_PLACE = {"+": operator.iadd, "-": operator.isub, "*": operator.imul, "/": operator.itruediv,
             "//": operator.ifloordiv, "%": operator.imod, "**": operator.ipow,
             "@": operator.imatmul, "&": operator.iand, "|": operator.ior, "^": operator.ixor,
             "<<": operator.ilshift, ">>": operator.irshift}


def InPlace(current: Any, op: str, value: Any) -> Any:
    """The value `target op= value` leaves in an item target (`d["acc"] += [t]`)."""
    return _IN_PLACE[op](current, value)


def Defined(value: Any) -> Any:
    """value, read where it may be unassigned: fail here (now, or when the program runs through
    this line on a path that never assigned it) as Python's UnboundLocalError does."""
    if is_undefined(value):
        value._fail()
    if isinstance(value, Variable):
        entry = value.block.program.maybe_undefined.get(value.name)
        # a value that may be None is passed along as eager code passes None (`return y`,
        # `g = y`), and so is a widened loop variable: what computes with it checks
        if entry is not None and entry[1] not in (IS_NONE, WIDENED):
            check_entry(entry)
    return value


def _has_symbolic(index: Any) -> bool:
    if isinstance(index, tuple):
        return any(is_symbolic(i) for i in index)
    return is_symbolic(index)


def GetItem(seq: Any, index: Any) -> Any:
    """seq[index]; a Python list or tuple of tensors indexed by a symbolic loop index is stacked
    first (a Python sequence cannot take a symbolic index)."""
    if type(seq) in (list, tuple) and _has_symbolic(index):
        if not seq or not all(isinstance(v, TensorLike) for v in seq):
            raise TypeError("a Python list indexed by the index of a tensor loop must hold "
                            "tensors of one shape (it is stacked into one tensor)")
        return ops.stack(list(seq))[index]
    return seq[index]


def GetAttr(obj: Any, name: str) -> Any:
    return getattr(obj, name, UndefinedVar(name))


def ReturnValue(value: Any) -> Any:
    return None if is_undefined(value) else value
