"""What `cond` and `while` share: their predicates (as_pred), the shape and dtype rule that
merges two paths' values (unify), captured outer values (align_captures), constants and the
placeholders of values a path does not assign."""
from __future__ import annotations

import dataclasses
from typing import Any, List, Optional, Sequence

import numpy as np

from .. import ops
from ..dtype import bool_, dtype_name
from ..program import Block, Variable
from ..python_value import PythonValue
from ..registry import Meta
from ..tensor import Tensor, TensorLike


def is_number(v: Any) -> bool:
    return isinstance(v, (bool, int, float, np.bool_, np.integer, np.floating)) and not isinstance(v, np.ndarray)


def as_constant(v: Any, like: Optional[Any] = None) -> Variable:
    """A Python number as a constant tensor, of like's dtype if given (else its own)."""
    return ops.operands.constant(v, like.dtype if like is not None else ops.operands.scalar_dtype(v))


# the dtype a Python number is carried in by a tensor loop or `if`: its own precision (a
# Python float is a double)
CARRIED_DTYPES = {bool: "bool", int: "int64", float: "float64"}


def number_constant(value: Any) -> PythonValue:
    """value (a Python bool, int or float) as a 0-d constant of its own precision, marked as the
    Python number it stands for."""
    out = ops.full([], value, CARRIED_DTYPES[type(value)])
    out.__class__ = PythonValue
    return out


def meta_of(v: Variable) -> Meta:
    return Meta(v._shape, v.dtype, v.kind, v.elem)


def made_at(v: Any) -> str:
    """The user's line that produced variable v, if known."""
    if not isinstance(v, Variable):
        return ""
    for op in reversed(v.block.ops):
        if v.name in op.outputs and op.origin is not None:
            return f" (line {op.origin.line}: {op.origin.source})"
    return ""


def ambiguous_truth_message(n: int) -> str:
    return f"the truth value of a tensor with {n} elements is ambiguous; use .any() or .all()"


def as_pred(pred: Variable, defer: bool = False) -> Variable:
    """pred as a bool scalar. With `defer` (converted code), a predicate of several elements
    raises when the program tests it, as Python does only on the paths that test it; a value
    picked by `x or y` is tested as eager code tests it (program.truths)."""
    if defer:
        truth = pred.block.program.truths.get(pred.name)
        if truth is not None:
            return truth()
    if pred.kind != "dense":
        raise TypeError("a tensor array cannot be used as a condition")
    shape = pred._shape
    if shape and all(d >= 0 for d in shape):     # (np.prod costs more than the rest of this)
        n = 1
        for d in shape:
            n *= d
        if n != 1:
            if not defer:
                raise ValueError(ambiguous_truth_message(n))
            # the path's remaining ops are traced on a dummy value; they never run
            from ..side_effects import raise_when_run
            raise_when_run(ValueError(ambiguous_truth_message(n)))
            return ops.full([], False, "bool")
    if pred._shape:
        pred = ops.reshape(pred, [])
    if pred.dtype != bool_:
        pred = ops.cast(pred, "bool")
    return pred


def align_captures(blocks: Sequence[Block], n_leading: int) -> List[Variable]:
    """Give every block the same captured outer variables, in one order; returns them."""
    program = blocks[0].program
    sources: List[str] = []
    for b in blocks:
        for s in b.capture_sources():
            if s not in sources:
                sources.append(s)
    outer = [program_var(program, s) for s in sources]
    for b in blocks:
        leading = b.params[:n_leading]
        for v in outer:
            b.local(v)
        b.params = leading + [b.captures[s] for s in sources]
    return outer


def program_var(program, name: str) -> Variable:
    v = program.find_var(name)
    if v is None:
        raise KeyError(name)
    return v


def same_constant(a: Any, b: Any) -> bool:
    if a is b:
        return True
    try:
        if type(a) is type(b) and type(a) in (set, frozenset):
            return bool(a == b)     # each branch changed its own copy of a set alike
        return type(a) is type(b) and is_number(a) and bool(a == b)
    except Exception:  # noqa: BLE001 - objects with odd __eq__ are simply not equal
        return False


def local_value(block: Block, v: Any) -> Variable:
    if isinstance(v, Tensor):
        v = block.program.capture_tensor(v)
    return block.local(v)


def unify(label: str, a: Variable, b: Variable) -> Meta:
    if a.kind != b.kind:
        raise TypeError(f"{label} is a tensor array in one branch and a tensor in the other")
    if a.kind == "array" and (a.elem is None or b.elem is None):
        # an array never written on one path (an empty list) has no item type of its own
        known = b if a.elem is None else a
        return Meta((), known.dtype, "array", known.elem)
    if a.dtype != b.dtype:
        raise TypeError(f"{label} has dtype {dtype_name(a.dtype)} in the true branch{made_at(a)} and "
                        f"{dtype_name(b.dtype)} in the false branch{made_at(b)}; both branches must agree")
    if a.kind == "array":
        elem = a.elem if b.elem is None else b.elem if a.elem is None else unify_elem(label, a.elem, b.elem)
        return Meta((), a.dtype, "array", elem)
    if len(a._shape) != len(b._shape):
        raise ValueError(f"{label} has shape {list(a._shape)} in the true branch{made_at(a)} and "
                         f"{list(b._shape)} in the false branch{made_at(b)}; ranks must agree")
    return Meta(tuple(x if x == y else -1 for x, y in zip(a._shape, b._shape)), a.dtype)


def unify_elem(label: str, a: tuple, b: tuple) -> tuple:
    if a[1] != b[1] or len(a[0]) != len(b[0]):
        raise TypeError(f"{label}: tensor array items differ ({a[1]}{list(a[0])} vs {b[1]}{list(b[0])})")
    return (tuple(x if x == y else -1 for x, y in zip(a[0], b[0])), a[1])


def placeholder_like(value: Any) -> Any:
    """Zeros of the same structure, dtype and rank (unknown dims become 1): the value of a
    name on a path where it is not assigned (an untaken branch, before a loop defines it)."""
    if isinstance(value, TensorLike):
        if isinstance(value, Variable) and value.kind == "array":
            return ops.create_array(value.dtype)
        shape = value._shape if isinstance(value, Variable) else value._value.shape
        out = ops.full([d if d >= 0 else 1 for d in shape], 0, value.dtype)
        if type(value) is PythonValue:
            # a number read from a tensor on the other path: the merged value stays a number
            # (`if c: return x.item()` then `return float(y)`)
            out.__class__ = PythonValue
        return out
    if type(value) in (list, tuple):
        return type(value)(placeholder_like(v) for v in value)
    if type(value) is dict:
        return {k: placeholder_like(v) for k, v in value.items()}
    return value


def other_object_hint(a: Any, b: Any, where: str) -> str:
    """Why two objects of one dataclass (or other user class) cannot be merged by a tensor
    `if` or loop (`where`), and what works: one graph cannot say which object a name is, and
    merging their fields would lose which aliases see later changes. Empty for other values."""
    if type(a) is not type(b) or type(a).__module__ == "builtins":
        return ""
    what = "dataclass" if dataclasses.is_dataclass(a) else "class"
    return (f": the name is one {type(a).__name__} object or another ({what} objects made anew "
            f"on some paths only, as `dataclasses.replace` does) after {where}, which one graph "
            "cannot hold; change the object's fields in place instead (`obj.field = ...`), use a "
            "namedtuple (merged field by field), or full_graph=False, which runs it eagerly")
