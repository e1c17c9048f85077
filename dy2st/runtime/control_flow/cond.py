"""Functional control flow: cond and while_loop build `cond` / `while` ops with closed sub-blocks
in static mode and run plain Python in eager mode."""
from __future__ import annotations

import re
import weakref
from typing import Any, Callable, List, Optional, Sequence, Tuple

import numpy as np

from .. import ops, state
from ..dtype import bool_, dtype_name
from ..ops.operands import constant, promote, scalar_dtype
from ..origin import source_maps
from ..program import Block, Variable, block_guard
from ..python_value import PythonValue
from ..pytree import describe, flatten, unflatten
from ..registry import Meta, append_op, register_op
from ..tensor import Tensor, TensorLike
from .branch_widening import widened_on_one_path
from .values import (
    CARRIED_DTYPES,
    align_captures,
    as_constant,
    as_pred,
    is_number,
    local_value,
    number_constant,
    other_object_hint,
    same_constant,
    unify,
)


class UndefinedVarError(UnboundLocalError):
    """A name was used on a path that never assigned it (as Python's UnboundLocalError)."""

    dy2st_undefined = True


class UndefinedFreeVarError(NameError):
    """A nested function read a name of its enclosing function that has no value (Python
    raises NameError there, not UnboundLocalError)."""

    dy2st_undefined = True


# the functions the converter writes for branches and loop bodies (transformers/ifelse.py, loop.py)
_CONTROL_FLOW_FUNCTION = re.compile(r"(true_fn|false_fn|while_cond|while_body|for_body)_\d+$")


# the lambdas the converter writes for `a if c else b`, `x and y`, `x or y`: a name read there
# is read by the user's function itself (UnboundLocalError), not by a nested function
_CONVERTER_LAMBDAS: "weakref.WeakSet" = weakref.WeakSet()


def note_converter_lambdas(*fns: Callable) -> None:
    """Mark fns as lambdas the converter wrote (read_as_free_variable passes over them)."""
    for fn in fns:
        code = getattr(fn, "__code__", None)
        if code is not None:
            _CONVERTER_LAMBDAS.add(code)


def read_as_free_variable(name: str) -> bool:
    """Whether the converted code reading `name` now is a user's nested function that reads it
    from an enclosing function (not a branch or loop body the converter wrote)."""
    import sys
    frame = sys._getframe(2)
    while frame is not None:
        code = frame.f_code
        if source_maps.is_generated(code.co_filename) and \
                not _CONTROL_FLOW_FUNCTION.match(code.co_name) and code not in _CONVERTER_LAMBDAS:
            return name in code.co_freevars
        frame = frame.f_back
    return False


class UndefinedVar:
    """A name that has no value on some path; using it raises UnboundLocalError, as Python does."""

    dy2st_undefined = True

    def __init__(self, name: str, where: str = "") -> None:
        self._name = name
        self._where = where

    def _fail(self, *args: Any, **kwargs: Any):
        if read_as_free_variable(self._name):
            raise UndefinedFreeVarError(f"cannot access free variable '{self._name}' where it is "
                                        "not associated with a value in enclosing scope")
        raise UndefinedVarError(f"local variable '{self._name}' is used, but it is not assigned "
                                f"on the path taken{self._where}; give it a value before the "
                                "branch or loop")

    def __repr__(self) -> str:
        return f"UndefinedVar({self._name!r})"

    __getattr__ = _fail
    __call__ = _fail
    __bool__ = _fail
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _fail
    __truediv__ = __rtruediv__ = __getitem__ = __iter__ = __len__ = _fail
    __lt__ = __le__ = __gt__ = __ge__ = __neg__ = __matmul__ = _fail
    __rmatmul__ = __pow__ = __rpow__ = __mod__ = __rmod__ = __floordiv__ = __rfloordiv__ = _fail
    __and__ = __rand__ = __or__ = __ror__ = __xor__ = __rxor__ = __invert__ = __abs__ = _fail
    __pos__ = __int__ = __float__ = __index__ = __contains__ = __setitem__ = _fail


# the converter's own variables (a return's flag and value, loop-exit flags): never changed in
# place by user code, and a return value set on one path only is normal
GENERATED_NAMES = ("return_value_", "return_flag_", "break_", "continue_", "unpack_")


def is_undefined(v: Any) -> bool:
    return type(v) is UndefinedVar


def _no_kernel(*args, **kwargs):
    raise RuntimeError("control-flow ops are run by the executor")


register_op("cond", infer=None)(_no_kernel)
register_op("while", infer=None, n_outputs=1)(_no_kernel)


def _label(names: Optional[Sequence[str]], i: int, fallback: str) -> str:
    return f"'{names[i]}'" if names and i < len(names) else fallback


# ----------------------------------------------------------------------------- cond
def cond(pred: Any, true_fn: Optional[Callable] = None, false_fn: Optional[Callable] = None,
         name: Optional[str] = None, return_names: Optional[Sequence[str]] = None) -> Any:
    """true_fn() if pred else false_fn(); a `cond` op when pred is symbolic."""
    if not isinstance(pred, Variable):
        if isinstance(pred, Tensor):
            pred = bool(pred)
        if pred:
            return true_fn() if true_fn is not None else None
        return false_fn() if false_fn is not None else None
    pred = as_pred(pred)
    parent = state.current_block()
    program = parent.program
    tb = program.create_block(parent.idx)
    with block_guard(tb):
        t_out = true_fn() if true_fn is not None else None
    fb = program.create_block(parent.idx)
    with block_guard(fb):
        f_out = false_fn() if false_fn is not None else None
    return merge_branches(pred, t_out, f_out, tb, fb, return_names)


def merge_branches(pred: Variable, t_out: Any, f_out: Any, tb: Block, fb: Block,
                   names: Optional[Sequence[str]] = None) -> Any:
    """The `cond` op over two traced branches; persistable tensors a branch updated (BatchNorm
    statistics) get the merged value as their new value."""
    written = {**fb.pending_writes, **tb.pending_writes}
    if not written:
        return _merge(pred, t_out, f_out, tb, fb, names)
    tensors = [t for t, _ in written.values()]
    # a branch output that is a written tensor itself (`self.n = self.n + 1` carried as an
    # attribute of the `if`) is its new value on that branch, read before the writes are taken
    t_out, f_out = _written_values(t_out, tb), _written_values(f_out, fb)
    t_new, f_new = [], []
    for block, values in ((tb, t_new), (fb, f_new)):
        with block_guard(block):
            for t in tensors:
                pending = block.pending_writes.pop(id(t), None)
                values.append(pending[1] if pending is not None else block.program.capture_tensor(t))
    out, new_values = _merge(pred, (t_out, tuple(t_new)), (f_out, tuple(f_new)), tb, fb, names)
    for t, v in zip(tensors, new_values):
        pred.block.program.record_persistable_write(t, v)
    return out


def _written_values(out: Any, block: Block) -> Any:
    """out with the tensors the branch wrote (pending writes) replaced by their new values."""
    if not block.pending_writes:
        return out
    leaves, tree = flatten(out)
    if not any(isinstance(v, Tensor) and id(v) in block.pending_writes for v in leaves):
        return out
    return unflatten(tree, [block.pending_writes[id(v)][1] if isinstance(v, Tensor) and
                            id(v) in block.pending_writes else v for v in leaves])


def _merge(pred: Variable, t_out: Any, f_out: Any, tb: Block, fb: Block,
           names: Optional[Sequence[str]] = None) -> Any:
    t_leaves, t_tree = flatten(t_out)
    f_leaves, f_tree = flatten(f_out)
    if t_tree != f_tree:
        raise ValueError("the two branches of a tensor `if` produce different structures: "
                         f"{describe(t_tree)} in the true branch and {describe(f_tree)} in the "
                         "false branch; both must produce the same nesting of tensors")
    result: List[Any] = [None] * len(t_leaves)
    t_res: List[Variable] = []
    f_res: List[Variable] = []
    slots: List[int] = []
    metas: List[Meta] = []
    # leaves holding the same two objects get one output object, so that aliases (g = h, a
    # list entry and a name) stay aliases after the `if`
    first_of: dict = {}
    same_as: List[Tuple[int, int]] = []
    leaf_names = _leaf_names(names, t_out)
    numbers: set = set()    # outputs that are Python numbers of one type on both paths
    for i, (a, b) in enumerate(zip(t_leaves, f_leaves)):
        label = f"'{leaf_names[i]}'" if leaf_names else _label(names, i, f"output {i}")
        if is_undefined(a) or is_undefined(b):
            result[i] = a if is_undefined(a) else b
            continue
        if a is b and isinstance(a, Variable) and a.block is not tb and a.block is not fb:
            result[i] = a     # the same object from before the `if` on both paths
            continue
        if isinstance(a, Variable) and isinstance(b, Variable):
            j = first_of.setdefault((id(a), id(b)), i)
            if j != i:
                same_as.append((i, j))
                continue
        at, bt = isinstance(a, TensorLike), isinstance(b, TensorLike)
        if not at and not bt:
            if same_constant(a, b):
                result[i] = a
                continue
            if type(a) is type(b) and type(a) in CARRIED_DTYPES and leaf_names and \
                    _user_name(leaf_names[i]):
                # eager code has a Python number of that type on either path
                numbers.add(i)
                with block_guard(tb):
                    a = number_constant(a)
                with block_guard(fb):
                    b = number_constant(b)
            elif is_number(a) and is_number(b):
                d = promote(scalar_dtype(a), scalar_dtype(b))
                with block_guard(tb):
                    a = constant(a, d)
                with block_guard(fb):
                    b = constant(b, d)
            else:
                hint = other_object_hint(a, b, "the tensor `if`")
                raise TypeError(f"{label} is {a!r} in the true branch and {b!r} in the false "
                                "branch of a tensor `if`; only tensors and numbers can differ "
                                "between branches" + hint)
        elif not at:
            if not is_number(a):
                raise TypeError(f"{label} is a tensor in one branch and {type(a).__name__} in "
                                "the other branch of a tensor `if`")
            with block_guard(tb):
                a = _number_like(label, a, b)
        elif not bt:
            if not is_number(b):
                raise TypeError(f"{label} is a tensor in one branch and {type(b).__name__} in "
                                "the other branch of a tensor `if`")
            with block_guard(fb):
                b = _number_like(label, b, a)
        elif (type(a) is PythonValue) != (type(b) is PythonValue):
            # a Python number a trace holds (a counter a loop carries, `.item()`) on one path
            if type(a) is PythonValue:
                with block_guard(tb):
                    a = _number_like(label, a, b)
            else:
                with block_guard(fb):
                    b = _number_like(label, b, a)
        else:
            a, b = widened_on_one_path(a, b, tb, fb)
        with block_guard(tb):
            la = local_value(tb, a)
        with block_guard(fb):
            lb = local_value(fb, b)
        metas.append(unify(label, la, lb))
        t_res.append(la)
        f_res.append(lb)
        slots.append(i)
    tb.results = [v.name for v in t_res]
    fb.results = [v.name for v in f_res]
    sources = align_captures([tb, fb], 0)
    if metas:
        outs = append_op("cond", [pred, *sources], {"true_block": tb.idx, "false_block": fb.idx},
                         metas=metas)
    else:
        outs = ()
        append_op("cond", [pred, *sources], {"true_block": tb.idx, "false_block": fb.idx}, metas=[])
    for i, v in zip(slots, outs):
        result[i] = v
        if type(v) is Variable and (i in numbers or _numbers(t_leaves[i], f_leaves[i])):
            v.__class__ = PythonValue   # a number read from a tensor on either path stays one
    for i, j in same_as:
        result[i] = result[j]
    return unflatten(t_tree, result)


def _leaf_names(names: Optional[Sequence[str]], out: Any) -> Optional[List[str]]:
    """The name each leaf of the branches' output belongs to (the name of the tuple or dict
    holding it), where `names` name out's items; else None."""
    if not names or type(out) is not tuple or len(out) != len(names):
        return None
    return [n for n, item in zip(names, out) for _ in flatten(item)[0]]


def _user_name(name: str) -> bool:
    """A name of the user's or the value the function returns, not one of the converter's
    own flags and counters."""
    return name.isidentifier() and (name.startswith("return_value_") or
                                     not name.startswith(GENERATED_NAMES))


def _numbers(a: Any, b: Any) -> bool:
    """Both branch values are Python numbers, at least one read from a tensor (`.item()`)."""
    kinds = (type(a) is PythonValue, type(b) is PythonValue)
    return any(kinds) and all(k or is_number(v) for k, v in zip(kinds, (a, b)))


def _number_like(label: str, number: Any, other: Any) -> Any:
    """A Python number on one path of a tensor `if`, the tensor `other` on the other: the number
    broadcast to other's shape (1 where a dim is unknown) in other's dtype, as the arithmetic eager
    code later does with it would broadcast it."""
    if getattr(other, "kind", "dense") != "dense":
        raise TypeError(f"{label} is a tensor array in one branch and the number {number!r} in "
                        "the other branch of a tensor `if`")
    if type(number) is PythonValue:
        if number.dtype.is_floating and other.dtype != bool_ and not other.dtype.is_floating:
            raise TypeError(f"{label} is a Python float in one branch and a "
                            f"{dtype_name(other.dtype)} tensor in the other branch of a tensor "
                            "`if`; the output of the `if` takes the tensor's dtype, which may "
                            "not hold it: cast the tensor (e.g. `.astype('float32')`) in its "
                            "branch")
        shape = other._shape if isinstance(other, Variable) else other._value.shape
        return ops.full([d if d >= 0 else 1 for d in shape], number, other.dtype) if shape \
            else ops.cast(number, other.dtype)
    if other.dtype != bool_ and not other.dtype.is_floating and \
            isinstance(number, (float, np.floating)) and float(number) != int(number):
        raise TypeError(f"{label} is the Python float {number!r} in one branch and a "
                        f"{dtype_name(other.dtype)} tensor in the other branch of a tensor `if`; the "
                        "output of the `if` takes the tensor's dtype, which cannot hold it: "
                        "cast the tensor (e.g. `.astype('float32')`) in its branch")
    shape = other._shape if isinstance(other, Variable) else other._value.shape
    if not shape:
        return as_constant(number, other)
    return ops.full([d if d >= 0 else 1 for d in shape], number, other.dtype)
