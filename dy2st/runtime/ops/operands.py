"""Turning Python scalars and mixed dtypes into operands of one dtype, as Paddle does."""
from __future__ import annotations

from typing import Any, Tuple

import numpy as np

from .. import state
from ..complex_capable import asking_function, complex_refusal
from ..dtype import (
    COMPLEX_OF,
    DType,
    bool_,
    complex64,
    complex128,
    convert_dtype,
    dtype_name,
    float32,
    float64,
    int64,
)
from ..origin import user_origin
from ..program import Variable
from ..python_value import PythonValue, number_sample
from ..registry import apply
from ..tensor import Tensor, TensorLike
from ..widened import values_before
from .infer import FLOATING, INTEGER

_WIDE_UNSIGNED = frozenset(("uint32", "uint64"))

_RANK = {"bool": 0, "uint8": 1, "int8": 1, "int16": 2, "int32": 3, "uint32": 3.5, "int64": 4,
         "uint64": 4.5,
         "float16": 5, "bfloat16": 5, "float32": 6, "float64": 7}


def is_tensor(x: Any) -> bool:
    return isinstance(x, TensorLike)


def constant(value: Any, dtype: DType) -> Any:
    """A 0-d constant: an eager Tensor, or a `full` op while a Program is built."""
    if state.build_state.blocks:
        return apply("full", [], {"shape": [], "value": _py(value, dtype), "dtype": dtype_name(dtype)})
    return Tensor(np.array(value, dtype=dtype.np))


def array_operand(value: np.ndarray) -> Any:
    """A numpy array next to a tensor, as Paddle takes it: a tensor of the array's own dtype,
    which then promotes with the other as tensors do (float64 array, float32 tensor: float64)."""
    if value.dtype.kind not in "biufc":
        raise TypeError(f"unsupported operand type ndarray of {value.dtype}")
    t = Tensor(np.array(value))
    return apply("assign", [t]) if state.build_state.blocks else t


def _py(value: Any, dtype: DType) -> Any:
    if dtype == bool_:
        return bool(value)
    if dtype in INTEGER:
        return int(value)
    if dtype.is_complex:
        return complex(value)
    return float(value)


def scalar_dtype(value: Any) -> DType:
    if isinstance(value, (bool, np.bool_)):
        return bool_
    if isinstance(value, (int, np.integer)):
        return int64
    if isinstance(value, (complex, np.complexfloating)):
        return complex64
    return float32


def promote(a: DType, b: DType) -> DType:
    if a == b:
        return a
    if a.is_complex or b.is_complex:
        # as Paddle: complex wins, at the wider precision of the two (float64 + complex64 is
        # complex128); integers and bools take the complex dtype
        wide = "complex128" in (a, b) or "float64" in (a, b)
        return complex128 if wide else complex64
    if {a, b} == {"float16", "bfloat16"}:
        return float32      # neither holds the other: float32 holds both
    fa, fb = a in FLOATING, b in FLOATING
    if fa and not fb:
        return a
    if fb and not fa:
        return b
    if a in _WIDE_UNSIGNED or b in _WIDE_UNSIGNED:
        return _promote_wide_unsigned(a, b)
    return a if _RANK[dtype_name(a)] >= _RANK[dtype_name(b)] else b


def _promote_wide_unsigned(a: DType, b: DType) -> DType:
    # uint32 / uint64 with another integer: the narrowest integer type holding both ranges
    # (numpy's rule), except that no integer type holds uint64 and a signed type (numpy goes
    # to float64, losing exactness): refused, the user casts one of them
    unsigned = {"bool", "uint8", "uint32", "uint64"}
    if a in unsigned and b in unsigned:
        return a if _RANK[dtype_name(a)] >= _RANK[dtype_name(b)] else b
    if "uint64" in (a, b):
        raise TypeError(f"no integer dtype holds both {dtype_name(a)} and {dtype_name(b)} values: cast one of the "
                        "operands (to int64 or uint64) first")
    return int64


def cast(x: Any, dtype: DType) -> Any:
    """x in dtype, for an op's own use: a complex x cast to a real dtype is refused (the op that
    asked is named), as the op would silently drop the imaginary part."""
    if x.dtype == dtype:
        return x
    if x.dtype.is_complex and not dtype_name(dtype).startswith("complex"):
        complex_refusal(asking_function(), x.dtype, user_origin(2))
    return apply("cast", [x], {"dtype": dtype_name(dtype)})


def scalar_result_dtype(t: DType, value: Any) -> DType:
    if isinstance(value, (bool, np.bool_)):
        return t
    if isinstance(value, (int, np.integer)):
        return int64 if t == bool_ else t
    if isinstance(value, (float, np.floating)):
        return t if t.is_inexact else float32
    if isinstance(value, (complex, np.complexfloating)):
        if t.is_complex:
            return t
        return COMPLEX_OF.get(t, complex64)     # float64 * 1j is complex128, as Paddle
    if getattr(value, "dy2st_undefined", False):
        value._fail()       # a name with no value on the path taken: UnboundLocalError
    raise TypeError(f"unsupported operand type {type(value).__name__}")


def _kind(d: DType) -> int:
    return 3 if d.is_complex else 2 if d in FLOATING else 0 if d == bool_ else 1


def paddle_pair_dtype(x: Any, y: Any, op: str) -> DType:
    """The dtype Paddle 3.3.1 computes `x op y` in, for tensors of two different dtypes. It
    promotes floating dtypes with each other and complex with real ones, and refuses other
    pairs (int32 with int64, bool with float32); a 0-d tensor next to a tensor of the same kind
    (bool, integer, floating, complex) takes that tensor's dtype, as a Python scalar does, and
    one of another kind, or two 0-d tensors, promote."""
    a, b = x.dtype, y.dtype
    ka, kb = _kind(a), _kind(b)
    x0, y0 = x.ndim == 0, y.ndim == 0
    if x0 != y0 and ka == kb:
        return b if x0 else a
    if x0 or y0 or ka == kb == 2 or 3 in (ka, kb):
        return promote(a, b)
    raise TypeError(
        f"{op}: Paddle does not compute with {dtype_name(a)} and {dtype_name(b)} tensors together "
        "(it promotes floating dtypes with each other and complex with real ones only): cast one "
        f"of them first, e.g. y.astype(x.dtype)")


def binary_operands(x: Any, y: Any, op: str = "") -> Tuple[Any, Any]:
    """Both operands as tensors of one dtype (a Python scalar takes the tensor's dtype). Given
    the name of a Paddle arithmetic, comparison or logic `op`, two tensors follow Paddle's rule
    for their dtypes (paddle_pair_dtype); without it they promote."""
    xt, yt = is_tensor(x), is_tensor(y)
    if xt != yt and isinstance(x if yt else y, np.ndarray):
        x, y = (array_operand(x), y) if yt else (x, array_operand(y))
        xt = yt = True
    if type(x) in _SYMBOLIC or type(y) in _SYMBOLIC:
        x, y = _released(x, y), _released(y, x)
    if (type(x) is PythonValue) != (type(y) is PythonValue):
        x, y = _as_number_operand(x, y), _as_number_operand(y, x)
    if xt and yt:
        if x.dtype != y.dtype:
            numbers = type(x) is PythonValue and type(y) is PythonValue    # Python's own rules
            d = paddle_pair_dtype(x, y, op) if op and not numbers else promote(x.dtype, y.dtype)
            return cast(x, d), cast(y, d)
        return x, y
    if xt:
        d = scalar_result_dtype(x.dtype, y)
        return cast(x, d), constant(y, d)
    if yt:
        d = scalar_result_dtype(y.dtype, x)
        return constant(x, d), cast(y, d)
    raise TypeError("at least one operand must be a tensor")


def _as_number_operand(x: Any, other: Any) -> Any:
    """x, or when x stands for a Python number in a trace (a PythonValue), x in the dtype eager
    code gives that number next to `other`: a tensor's dtype by the scalar rules (a Python
    float times a float32 tensor is float32), float64 next to a Python float (int + float)."""
    if type(x) is not PythonValue:
        return x
    if is_tensor(other):
        return cast(x, scalar_result_dtype(other.dtype, number_sample(x)))
    if isinstance(other, (float, np.floating)) and not x.dtype.is_inexact:
        return cast(x, float64)
    return x


def _released(x: Any, other: Any) -> Any:
    """x, or when x is a widened loop variable (runtime/widened.py) that eager code promotes to
    the same dtype here whatever the loop ran (`s + x[0]` with an int64 s), a copy of it that
    is no longer checked: the result has eager's value and dtype on every trip count."""
    if type(x) not in _SYMBOLIC or not x.block.program.maybe_undefined:
        return x
    before = values_before(x)
    if not before:
        return x
    wide = _result_dtype(x.dtype, other)
    for b, shape in before:
        if isinstance(b, TensorLike):
            if _result_dtype(b.dtype, other) != wide:
                return x
        elif type(x) is PythonValue and _is_float(other):
            continue        # a number (int or float) with a float is that float in Python
        elif not is_tensor(other) or scalar_result_dtype(other.dtype, b) != wide or \
                not _broadcasts_into(shape, other._shape):
            return x        # a Python number: only a tensor of its shape and dtype is eager's
    block = state.current_block()
    fresh = x.name not in block.checked_defined
    block.checked_defined.add(x.name)
    try:
        return apply("assign", [x])
    finally:
        if fresh:
            block.checked_defined.discard(x.name)


_SYMBOLIC = (Variable, PythonValue)


def _is_float(v: Any) -> bool:
    return isinstance(v, (float, np.floating)) or type(v) is PythonValue and v.dtype.is_floating


def _result_dtype(dtype: DType, other: Any) -> DType:
    return promote(dtype, other.dtype) if is_tensor(other) else scalar_result_dtype(dtype, other)


def _broadcasts_into(shape: Tuple[int, ...], into: Tuple[int, ...]) -> bool:
    if len(shape) > len(into):
        return False
    # (shape is the number's stand-in, with no -1 dims)
    return all(a == 1 or a == b for a, b in zip(reversed(shape), reversed(into)))


def as_tensor(x: Any, dtype: Any = None) -> Any:
    """A tensor operand from a tensor, Python number, list or numpy array."""
    if is_tensor(x):
        return x if dtype is None else cast(x, convert_dtype(dtype))
    if isinstance(x, (bool, int, float, complex, np.number, np.bool_)) and \
            not isinstance(x, np.ndarray):
        return constant(x, convert_dtype(dtype) if dtype is not None else scalar_dtype(x))
    if getattr(x, "dy2st_undefined", False):
        x._fail()
    # circle: runtime.ops.creation imports this module at import time
    from .creation import to_tensor
    return to_tensor(x, dtype=dtype)
