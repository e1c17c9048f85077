"""Python operators and builtins applied to symbolic tensors in converted code: and / or / not,
chained comparisons, int() / float() / bool() / len() / sum() / isinstance()."""
from __future__ import annotations

import operator
from typing import Any, Callable, Sequence

import numpy as np

from ..runtime import ops, state
from ..runtime.control_flow.cond import note_converter_lambdas
from ..runtime.control_flow.loop_growth import dict_length, presence_flag
from ..runtime.control_flow.values import as_pred, is_number
from ..runtime.origin import user_origin
from ..runtime.program import Variable
from ..runtime.python_value import (
    PythonValue,
    counted_number,
    number_result,
    number_sample,
    python_value,
)
from ..runtime.side_effects import IS_NONE, MISSING_KEY
from ..runtime.tensor import Tensor, TensorLike
from .loop_functions import LoopFunction
from .picked_operands import (
    as_dtype,
    common_dtype,
    one_element,
    pick,
    recorded_truth,
    select,
    short_circuit,
)


def _symbolic(x: Any) -> bool:
    return isinstance(x, Variable)


# ----------------------------------------------------------------------------- logic
def And(left: Callable, right: Callable, test: bool = False) -> Any:
    """`left and right`; with `test`, only its truth is used (an `if` test, `not`'s operand)."""
    note_converter_lambdas(left, right)
    x = left()
    if _symbolic(x):
        return _symbolic_operands(x, _guarded_reads(right, x, on_true=True), True, test)
    if not x:
        return x
    return right()


def Or(left: Callable, right: Callable, test: bool = False) -> Any:
    note_converter_lambdas(left, right)
    x = left()
    if _symbolic(x):
        return _symbolic_operands(x, _guarded_reads(right, x, on_true=False), False, test)
    if x:
        return x
    return right()


def _symbolic_operands(x: Variable, y: Any, on_true: bool, test: bool) -> Any:
    """`x and y` (on_true) / `x or y` with a symbolic x, whose truth Python tests."""
    if not recorded_truth(x) and _ambiguous(x):
        return _short_circuit(x, y, on_true)     # raises when run, as eager code's test does
    if recorded_truth(x) or not one_element(y):
        # x or y have sizes that differ: as a test, its truth; as a value, the operand eager
        # code returns, selected (y's truth is tested only where Python tests it)
        return _short_circuit(x, y, on_true) if test else pick(x, y, on_true)
    return _bools(_operand(x, y, on_true), x, y)


def _operand(x: Any, y: Any, on_true: bool) -> Any:
    """The value of `x and y` (on_true) or `x or y` with a symbolic x of one element: Python
    gives one of the operands, not a bool (`(s > 0) and 2.0 or -3.0` is 2.0 or -3.0). Two bools
    give their logical and / or; otherwise the operand x's truth picks, in their common dtype."""
    if _is_bool(x) and _is_bool(y):
        return ops.logical_and(as_bool(x), as_bool(y)) if on_true else \
            ops.logical_or(as_bool(x), as_bool(y))
    dtype = common_dtype(x, y)
    a, b = as_dtype(x, dtype), as_dtype(y, dtype)
    picked = ops.where(as_bool(x), b, a) if on_true else ops.where(as_bool(x), a, b)
    return picked


def _is_bool(v: Any) -> bool:
    return type(v) is bool or isinstance(v, TensorLike) and v.dtype == "bool"


def _bools(out: Any, *operands: Any) -> Any:
    """out, a Python bool (a PythonValue) where the operands of `and` / `or` / `not` are Python
    bools a trace holds (a flag a tensor loop carried): eager code has a bool there."""
    if all(type(v) is PythonValue and v.dtype == "bool" or type(v) is bool for v in operands):
        out.__class__ = PythonValue
    return out


def _guarded_reads(right: Callable, x: Any, on_true: bool) -> Any:
    """right() of `x and right` (on_true) / `x or right` with a symbolic x: the program computes
    it on every path, but Python evaluates it only where x does not decide, so the checks its
    reads make (of a value a tensor loop or `if` may leave without one: `best is None or
    v > best.sum()`) fail only there."""
    block = state.current_block()
    n_ops, checked = len(block.ops), set(block.checked_defined)
    y = right()
    checks = [op for op in block.ops[n_ops:] if op.type == "check_defined"]
    if not checks:
        return y
    block.checked_defined = checked       # later reads outside the `and`/`or` check again
    decided = ops.logical_not(as_bool(x)) if on_true else as_bool(x)
    for op in checks:
        block.ops.remove(op)
        guard = ops.logical_or(block.var(op.inputs[0]), decided)
        op.inputs = [guard.name]
        block.ops.append(op)
    return y


_COMPARISONS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
                "==": operator.eq, "!=": operator.ne, "is": operator.is_,
                "is not": operator.is_not, "in": lambda a, b: a in b,
                "not in": lambda a, b: a not in b}


def Compare(ops: Sequence[str], *operands: Callable) -> Any:
    """A chained comparison `a < b < c`: pairwise results joined by `and`."""
    left = operands[0]()
    result = None
    for op, operand in zip(ops, operands[1:]):
        right = operand()
        r = _presence(op, left, right)
        if r is None:
            r = _COMPARISONS[op](left, right)
        if result is None:
            result = r
        elif _symbolic(result) or _symbolic(r):
            result = ops_and(result, r)
        else:
            result = r
        if not _symbolic(result) and not result:
            return result
        left = right
    return result


def _presence(op: str, left: Any, right: Any) -> Any:
    """`x is None` where a tensor loop may have left x None (a tensor, or a function made in the
    loop), `k in d` where it may have added or deleted d[k]: the loop's flag (a bool tensor),
    else None (a plain Python test)."""
    if op in ("is", "is not") and right is None and type(left) is LoopFunction:
        flag = left.none_flag()           # None before the loop, a function after a turn
        if flag is not None:
            return ops.logical_not(flag) if op == "is" else flag
    elif op in ("is", "is not") and right is None and isinstance(left, (Variable, tuple, list)):
        flag = presence_flag(left, IS_NONE)
        if flag is not None:
            return ops.logical_not(flag) if op == "is" else flag
    elif op in ("in", "not in") and type(right) is dict:
        try:
            value = right.get(left)
        except TypeError:             # an unhashable key: Python's own test raises
            return None
        flag = presence_flag(value, MISSING_KEY) if value is not None else None
        if flag is not None:
            return flag if op == "in" else ops.logical_not(flag)
    return None


def ops_and(a: Any, b: Any) -> Any:
    return ops.logical_and(as_bool(a), as_bool(b))


def Not(x: Any) -> Any:
    if _symbolic(x):
        if _ambiguous(x):
            return ops.logical_not(as_pred(x, defer=True))   # raises when run, as `not x` does
        out = ops.logical_not(as_bool(x))
        if type(x) is PythonValue:
            out.__class__ = PythonValue      # `not` of any Python number is a Python bool
        return out
    return not x


def _ambiguous(x: Any) -> bool:
    """A symbolic tensor whose truth value Python would refuse (several elements, all known)."""
    if not isinstance(x, Variable) or x.kind != "dense" or any(d < 0 for d in x._shape):
        return False
    n = 1
    for d in x._shape:
        n *= d
    return n != 1


def _short_circuit(x: Any, y: Any, on_true: bool) -> Any:
    """`x and y` (on_true) or `x or y` as one bool, where x or y has several elements: each
    truth test that Python would make raises when the program makes it, and only then."""
    return short_circuit(as_pred(x, defer=True), y, on_true)


def as_bool(x: Any) -> Any:
    """x as a bool tensor (a Python value becomes a 0-d one)."""
    if isinstance(x, TensorLike):
        return x if x.dtype == "bool" else ops.cast(x, "bool")
    return ops.full([], bool(x), "bool")


# ----------------------------------------------------------------------------- casts
# int() / float() / bool() of an eager tensor give Python numbers, constants to autograd: in a
# trace they are PythonValues (runtime/python_value.py), detached and refusing Python logic
def Int(x: Any) -> Any:
    if _symbolic(x):
        return python_value(_scalar(x, "int()", x if x.dtype == "int64" else ops.cast(x, "int64")))
    return int(x)


def Float(x: Any) -> Any:
    if _symbolic(x):
        return python_value(_scalar(x, "float()", x if x.dtype.is_floating
                                    else ops.cast(x, "float32")))
    return float(x)


def Bool(x: Any) -> Any:
    if _symbolic(x):
        if recorded_truth(x):       # picked by `c or y`: tested as eager code tests it
            return python_value(as_pred(x, defer=True))
        return python_value(_scalar(x, "bool()", as_bool(x)))
    return bool(x)


def Str(x: Any) -> str:
    """str(); of a Python number only known when the program runs: a TypeError (Python code
    would get the text of a symbolic value)."""
    if type(x) is PythonValue:
        return x.text()
    return str(x)


def _scalar(x: Any, what: str, value: Any) -> Any:
    """value made 0-d: eager code takes a number from a one-element tensor only."""
    if x.kind != "dense":
        raise TypeError(f"{what} of the tensor array {x.name}")
    if not value._shape:
        return value
    if any(d < 0 for d in value._shape):
        return ops.reshape(value, [])       # a wrong size fails when the program runs
    if int(np.prod(value._shape)) != 1:
        raise TypeError(f"{what} of {x.name}: only a tensor with one element converts to a "
                        f"Python number, this one has shape {list(value._shape)}")
    return ops.reshape(value, [])


def Len(x: Any) -> Any:
    """len(); of a list a tensor loop grew (a tensor array) or of a dict it may add keys to, a
    count the program computes: eager code has a Python int there, so a PythonValue."""
    if isinstance(x, Variable):
        if x.kind == "array":
            return counted_number(ops.array_length(x), f"len() of a list grown by a tensor loop{_at()}")
        if x._shape and x._shape[0] >= 0:
            return x._shape[0]
        if not x._shape:
            raise TypeError("len() of a 0-d tensor")
        return ops.shape(x)[0]
    if type(x) is dict:
        n = dict_length(x)
        if isinstance(n, Variable):     # a tensor loop or `if` may add or delete keys
            return counted_number(n, f"len() of a dict whose keys a tensor loop or `if` "
                                     f"changes{_at()}")
        return n
    return len(x)


def _at() -> str:
    origin = user_origin()
    return f", at line {origin.line}" if origin is not None else ""


def Sum(items: Any) -> Any:
    """sum() of a Python iterable, or of a tensor array (a list grown in a tensor loop)."""
    if isinstance(items, Variable) and items.kind == "array":
        return ops.sum(ops.array_stack(items), axis=0)
    return sum(items)


def IsInstance(obj: Any, classinfo: Any) -> bool:
    """isinstance, where a symbolic tensor counts as a Tensor (it stands for one), and one that
    stands for a Python number (`.item()`, a number a tensor loop carried) as that number."""
    if type(obj) is PythonValue:
        return isinstance(number_sample(obj), classinfo)
    if isinstance(obj, Variable):
        classes = classinfo if isinstance(classinfo, tuple) else (classinfo,)
        if any(isinstance(c, type) and issubclass(Tensor, c) for c in classes):
            return True
    return isinstance(obj, classinfo)


def Type(obj: Any) -> type:
    """type() of one argument, where a symbolic tensor is a Tensor and one that stands for a
    Python number (`.item()`, a number a tensor loop carried, len() of a list it grew) is that
    number's type, as in eager code (`type(i) is int`)."""
    if type(obj) is PythonValue:
        return type(number_sample(obj))
    if type(obj) is Variable and obj.kind == "dense":
        return Tensor
    return type(obj)


def Repr(x: Any) -> str:
    """repr(); of a Python number only known when the program runs, refused as str() is."""
    if type(x) is PythonValue:
        return x.text()
    return repr(x)


def DivMod(a: Any, b: Any) -> Any:
    """divmod(); of Python numbers a trace holds, (a // b, a % b) as Python computes it."""
    if type(a) is PythonValue or type(b) is PythonValue:
        return a // b, a % b
    return divmod(a, b)


def _items(args: tuple) -> list:
    return list(args[0]) if len(args) == 1 and not isinstance(args[0], TensorLike) else list(args)


def _as_is(fn: Any) -> Any:
    return fn


# how a builtin is called on Python values: jit's call converter once it is installed (a trace
# then guards what `max(..., key=f)` read and returned: jit/guards/builtin_calls.py)
CALL: Callable[[Any], Any] = _as_is


def _extreme(args: tuple, kwargs: dict, pick: Callable, elementwise: Callable,
             reduce: Callable, better: Callable) -> Any:
    if len(args) == 1 and not kwargs and isinstance(args[0], Variable) and \
            args[0].kind == "array":
        # a list grown in a tensor loop: the extreme of its entries, not the array itself
        # (`max([r.sum() for r in x])` with an unknown batch multiplied by all the sums)
        return reduce(ops.array_stack(args[0]), axis=0)
    if set(kwargs) - {"key", "default"} or "default" in kwargs and len(args) != 1:
        return CALL(pick)(*args, **kwargs)          # the builtin's own TypeError
    items = _items(args)
    key = kwargs.get("key")
    if len(args) == 1 and isinstance(args[0], TensorLike) and key is not None:
        return CALL(pick)(*args, **kwargs)          # the rows of a tensor, as the builtin
    if not items or key is None and not any(_symbolic(v) for v in items):
        return CALL(pick)(*args, **kwargs)          # `default`, or the builtin's ValueError
    if any(type(v) is PythonValue for v in items):
        _one_number_type(items, pick.__name__)
    if key is None:
        out = items[0]
        for v in items[1:]:
            out = elementwise(out, v) if (_symbolic(out) or _symbolic(v)) else pick(out, v)
        return number_result(out, items)
    return _keyed_extreme(items, CALL(key), pick.__name__, better)


def _keyed_extreme(items: list, key: Callable, name: str, better: Callable) -> Any:
    """max / min with a key function: the first item whose key is the extreme, as the builtin
    picks it; where keys are symbolic, the item is selected by their comparison."""
    best, best_key = items[0], key(items[0])
    for v in items[1:]:
        k = key(v)
        if not (_symbolic(k) or _symbolic(best_key)):
            if better(k, best_key):
                best, best_key = v, k
            continue
        replace = as_pred(better(k, best_key), defer=True)
        what = f"{name}(..., key=...)"
        best, best_key = select(replace, v, best, what), select(replace, k, best_key, what)
    if type(best) is Variable and all(type(v) is PythonValue or is_number(v) for v in items):
        best.__class__ = PythonValue      # picked among Python numbers: a number, as eager's
    return best


def _one_number_type(items: list, name: str) -> None:
    """max() / min() hand back one of their arguments: of Python numbers of different types (an
    int and a float) that a trace holds, the type of the result depends on the values."""
    kinds = {type(number_sample(v)) if type(v) is PythonValue else type(v) for v in items
             if type(v) is PythonValue or isinstance(v, (bool, int, float))}
    if len(kinds) > 1:
        held = next(v for v in items if type(v) is PythonValue)
        held.refuse(f"is compared with a number of another type by {name}(), whose result is "
                    "one of them: its type (int or float) depends on the values")


def Max(*args: Any, **kwargs: Any) -> Any:
    """max(); with symbolic scalars (e.g. an unknown dim) the elementwise maximum; with a key,
    the item whose key is greatest."""
    return _extreme(args, kwargs, max, lambda a, b: ops.maximum(a, b), ops.max, operator.gt)


def Min(*args: Any, **kwargs: Any) -> Any:
    """min(); with symbolic scalars the elementwise minimum; with a key, the item whose key is
    least."""
    return _extreme(args, kwargs, min, lambda a, b: ops.minimum(a, b), ops.min, operator.lt)


def Round(x: Any, ndigits: Any = None) -> Any:
    """round(); round(symbolic) is an int64 tensor like round(float) is an int."""
    if not _symbolic(x):
        return round(x) if ndigits is None else round(x, ndigits)
    if ndigits is None:
        if type(x) is PythonValue:
            return _round_half_even(x)
        return number_result(ops.cast(ops.round(x), "int64"), [x])
    if type(x) is PythonValue and isinstance(ndigits, int):
        return _round_digits(x, ndigits)
    factor = 10.0 ** ndigits
    return number_result(ops.divide(ops.round(ops.multiply(x, factor)), factor), [x])


def _round_half_even(x: PythonValue) -> PythonValue:
    """round() of a Python number a trace holds: an int stays itself; a float rounds a half
    to the even neighbour, as Python (and paddle.round) does."""
    if not x.dtype.is_floating:
        return x
    return python_value(ops.cast(_half_even(x), "int64"))


def _half_even(x: Any) -> Any:
    half = ops.equal(ops.subtract(x, ops.floor(x)), 0.5)
    return ops.where(half, ops.multiply(ops.round(ops.multiply(x, 0.5)), 2.0), ops.round(x))


def _round_digits(x: PythonValue, ndigits: int) -> PythonValue:
    """round(x, ndigits) of a Python number a trace holds: of the same type as x (an int stays
    an int), halves to even as Python does; the scaled value is rounded in double precision."""
    if not x.dtype.is_floating:
        if ndigits >= 0:
            return x
        factor = 10 ** -ndigits
        return python_value(ops.cast(ops.multiply(
            _half_even(ops.divide(ops.cast(x, "float64"), float(factor))), float(factor)),
            "int64"))
    factor = 10.0 ** abs(ndigits)
    if ndigits >= 0:
        return python_value(ops.divide(_half_even(ops.multiply(x, factor)), factor))
    return python_value(ops.multiply(_half_even(ops.divide(x, factor)), factor))


def _join_truths(items: Any, builtin: Callable, decisive: bool, join: Callable) -> Any:
    """all() / any() over items that may hold symbolic truths: a Python item equal to
    `decisive` settles it at once; symbolic ones are joined with `join`."""
    values = list(items) if not isinstance(items, TensorLike) else None
    if values is None or not any(_symbolic(v) for v in values):
        return builtin(items)
    out = None
    for v in values:
        if not _symbolic(v):
            if bool(v) == decisive:
                return decisive
            continue
        out = as_bool(v) if out is None else join(out, as_bool(v))
    return out


def AllOf(items: Any) -> Any:
    """all(); symbolic items are joined with logical and."""
    return _join_truths(items, all, False, ops.logical_and)


def AnyOf(items: Any) -> Any:
    """any(); symbolic items are joined with logical or."""
    return _join_truths(items, any, True, ops.logical_or)
