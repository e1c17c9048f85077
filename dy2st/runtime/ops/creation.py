"""Creation ops: to_tensor, full / zeros / ones (and *_like), cast, assign, arange, eye."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from .. import state
from ..config import get_default_dtype
from ..dtype import COMPLEX_OF, DType, bool_, convert_dtype, dtype_name, int64
from ..program import Variable
from ..python_value import PythonValue
from ..registry import Meta, apply, register_op
from ..tensor import Tensor
from ..widened import values_before
from .infer import attr_dtype
from .operands import as_tensor, cast as _cast_to, constant, is_tensor, scalar_dtype


def default_float() -> DType:
    return convert_dtype(get_default_dtype())


# ----------------------------------------------------------------------------- to_tensor
def _infer_data_dtype(data: Any) -> Optional[DType]:
    if isinstance(data, (bool, np.bool_)):
        return bool_
    if isinstance(data, (int, np.integer)) and not isinstance(data, np.ndarray):
        return int64
    if isinstance(data, float):
        return default_float()
    if isinstance(data, complex):
        return COMPLEX_OF[default_float()]
    return None


def _to_array(data: Any, dtype: Optional[DType]) -> np.ndarray:
    if isinstance(data, Tensor):
        arr = data._value.copy()
    elif isinstance(data, np.ndarray):
        arr = data.copy()
    elif isinstance(data, (list, tuple)) and any(isinstance(d, Tensor) for d in data):
        arr = np.stack([np.asarray(d._value if isinstance(d, Tensor) else d) for d in data])
    else:
        # with an explicit dtype the data converts straight to it (a float list must not round
        # through the default float32 on its way to float64)
        guessed = _infer_data_dtype(data) if dtype is None else None
        arr = np.array(data)
        if guessed is not None:
            arr = arr.astype(guessed.np)
        elif arr.dtype.kind == "f" and dtype is None and not isinstance(data, np.generic):
            arr = arr.astype(default_float().np)   # Python float lists become float32
        elif arr.dtype.kind == "c" and dtype is None and not isinstance(data, np.generic):
            arr = arr.astype(COMPLEX_OF[default_float()].np)   # and complex lists complex64
        elif arr.dtype.kind in "iu" and arr.dtype != np.int64 and not isinstance(data, np.generic):
            arr = arr.astype(np.int64)
    if arr.dtype.kind not in "biufc" and arr.dtype.name != "bfloat16":
        raise TypeError(f"to_tensor: cannot make a tensor of {arr.dtype} data")
    if dtype is not None:
        arr = arr.astype(dtype.np)
    elif arr.dtype.name not in ("float16", "float32", "float64", "int8", "int16", "int32", "int64",
                                "uint8", "uint32", "uint64", "bool", "complex64", "complex128",
                                "bfloat16"):
        arr = arr.astype({"i": np.int64, "u": np.int64, "c": np.complex128}.get(arr.dtype.kind,
                                                                                 np.float64))
    return arr


def to_tensor(data: Any, dtype: Any = None, place: Any = None, stop_gradient: bool = True,
              name: Optional[str] = None) -> Any:
    """A tensor from Python data, a numpy array or another tensor (a copy)."""
    d = convert_dtype(dtype) if dtype is not None else None
    if d is None and type(data) is PythonValue and data.dtype.is_floating:
        d = default_float()     # a Python float (a loop carries it as float64) gives float32
    if is_tensor(data) and not isinstance(data, Tensor):     # a static Variable
        if getattr(data, "kind", None) == "array":
            # a Python list the program holds as a tensor array (`[float(v) for v in t]`):
            # eagerly to_tensor stacks its items
            # circle: runtime.ops.shape imports this module at import time
            from .shape import stack
            data = stack(data)
        # eagerly the copy is a new leaf: no gradient flows back, and with stop_gradient=False
        # it takes gradients of its own (`stop_gradient = False` on a detached value)
        out = apply("detach", [data])
        if d is not None:
            out = _cast_to(out, d)
        if not stop_gradient:
            out.stop_gradient = False
        return out
    if state.build_state.blocks and isinstance(data, (list, tuple)) and any(is_tensor(v) for v in data):
        # circle: runtime.ops.shape imports this module at import time
        from .shape import stack
        out = stack([v if is_tensor(v) else full([], v, d or scalar_dtype(v)) for v in data])
        if stop_gradient:
            # eagerly the stacked copy is a new leaf too: no gradient flows back to the items
            out = apply("detach", [out])
        return _cast_to(out, d) if d is not None else out
    arr = _to_array(data, d)
    t = Tensor(arr, name=name or "", stop_gradient=stop_gradient)
    if state.build_state.blocks:
        return apply("assign", [t])       # a constant captured into the Program
    return t


def _assign_kernel(x):
    # numpy ufuncs hand back numpy scalars for 0-d inputs: np.array copies those too
    return list(x) if isinstance(x, list) else np.array(x)


register_op("assign", infer=lambda x: Meta(x._shape, x.dtype, x.kind, x.elem))(_assign_kernel)


# A copy that gradients do not flow through: what `detach()` and Python's float() of a tensor
# (a constant eagerly) are in a Program, where a Variable has no tape to leave.
register_op("detach", infer=lambda x: Meta(x._shape, x.dtype))(_assign_kernel)


# An in-place change made under no_grad: the value `new`, whose gradient goes to `old` (the
# tensor's value before the change), as eager autograd, which does not record the change, sees it.
register_op("no_grad_update", infer=lambda new, old: Meta(new._shape, new.dtype))(
    lambda new, old: _assign_kernel(new))


def assign(x: Any, output: Any = None) -> Any:
    """A copy of x (a tensor, array or Python data); with `output`, written into that tensor
    itself (as Paddle does: every name, list entry or attribute holding it sees the copy, and
    its gradient flows to x), which is returned."""
    if not is_tensor(x):
        x = to_tensor(x)
    if output is None:
        return apply("assign", [x])
    out_dims, x_dims = _dims(output), _dims(x)
    if len(out_dims) != len(x_dims) or any(a != b for a, b in zip(out_dims, x_dims)
                                           if a >= 0 and b >= 0):
        # (a program's unknown dims are -1)
        raise ValueError(f"assign: output has shape {list(out_dims)}, x has shape "
                         f"{list(x_dims)}; they must be the same")
    return output.copy_(x)


def _dims(t: Any) -> tuple:
    """t's shape as ints (-1 where a program's dim is unknown)."""
    return tuple(t.shape) if isinstance(t, Tensor) else tuple(t._shape)


# ----------------------------------------------------------------------------- cast
@register_op("cast", infer=lambda x, dtype: Meta(x._shape, attr_dtype(dtype)))
def _cast_kernel(x, dtype):
    if x.dtype.kind == "c" and np.dtype(dtype).kind != "c":
        x = x.real      # as Paddle: a complex tensor cast to a real dtype keeps its real part
    return x.astype(dtype)


def cast(x: Any, dtype: Any) -> Any:
    """x converted to dtype."""
    d = convert_dtype(dtype)
    if not is_tensor(x):
        return to_tensor(x, dtype=d)
    if x.dtype == d and not (type(x) is Variable and values_before(x)):
        # (a copy that needs a gradient is an `assign` op, so the tape sees it; a loop variable
        # a tensor loop widened to d is cast: eager code casts its old dtype, runtime/widened.py)
        return apply("assign", [x]) if state.build_state.blocks or not x.stop_gradient \
            else Tensor(x._value.copy())
    return apply("cast", [x], {"dtype": dtype_name(d)})


# ----------------------------------------------------------------------------- full & co
@register_op("full", infer=lambda shape, value, dtype: Meta(tuple(shape), attr_dtype(dtype)))
def _full_kernel(shape, value, dtype):
    return np.full(shape, value, dtype=dtype)


def _fill_infer(value, *dims, shape, dtype):
    return Meta(tuple(-1 if d is None else d for d in shape),
                convert_dtype(dtype) if dtype else value.dtype)


@register_op("fill", infer=_fill_infer)
def _fill_kernel(value, *dims, shape, dtype):
    it = iter(dims)
    real = [int(next(it)) if d is None else d for d in shape]
    return np.full(real, value, dtype=dtype or value.dtype)


def split_shape(shape: Any):
    """(static template with None for tensor dims, [dim tensors]) from a shape argument."""
    if is_tensor(shape):
        if isinstance(shape, Tensor):
            return [int(d) for d in shape._value.reshape(-1)], []
        n = shape._shape[0] if shape._shape else 0
        if n < 0:
            raise ValueError("a shape tensor must have a known length")
        return [None] * n, [shape[i] for i in range(n)]
    if isinstance(shape, int):
        shape = [shape]
    template, dims = [], []
    for d in shape:
        if is_tensor(d):
            if isinstance(d, Tensor):
                template.append(int(d._value))
            else:
                template.append(None)
                dims.append(d)
        else:
            template.append(int(d))
    return template, dims


def full(shape: Any, fill_value: Any, dtype: Any = None, name: Optional[str] = None) -> Any:
    """A tensor of `shape` filled with `fill_value` (a number or a one-element tensor)."""
    template, dims = split_shape(shape)
    if dtype is None:
        # a Python number (also one a trace holds: a PythonValue) gives the default float dtype
        d = fill_value.dtype if is_tensor(fill_value) and type(fill_value) is not PythonValue \
            else (bool_ if isinstance(fill_value, bool) or getattr(fill_value, "dtype", None) ==
                  bool_ else default_float())
    else:
        d = convert_dtype(dtype)
    if not dims and not is_tensor(fill_value):
        if not state.build_state.blocks:
            return Tensor(np.full(template, fill_value, dtype=d.np))
        return apply("full", [], {"shape": template, "value": _py_value(fill_value, d), "dtype": dtype_name(d)})
    if not is_tensor(fill_value):
        fill_value = constant(fill_value, d)
    elif fill_value.ndim:
        # circle: runtime.ops.shape imports this module at import time
        from .shape import reshape
        fill_value = reshape(fill_value, [])
    return apply("fill", [fill_value, *dims], {"shape": template, "dtype": dtype_name(d)})


def _py_value(v: Any, d: DType) -> Any:
    if d == bool_:
        return bool(v)
    if d.is_integer:
        return int(v)
    return float(v)


def zeros(shape: Any, dtype: Any = None, name: Optional[str] = None) -> Any:
    return full(shape, 0, dtype or default_float())


def ones(shape: Any, dtype: Any = None, name: Optional[str] = None) -> Any:
    return full(shape, 1, dtype or default_float())


def empty(shape: Any, dtype: Any = None, name: Optional[str] = None) -> Any:
    return full(shape, 0, dtype or default_float())


def _like_infer(x, value, dtype):
    return Meta(x._shape, convert_dtype(dtype) if dtype else x.dtype)


@register_op("full_like", infer=_like_infer)
def _full_like_kernel(x, value, dtype):
    return np.full(x.shape, value, dtype=dtype or x.dtype)


def full_like(x: Any, fill_value: Any, dtype: Any = None, name: Optional[str] = None) -> Any:
    d = convert_dtype(dtype) if dtype is not None else x.dtype
    if is_tensor(fill_value):
        return full(x.shape, fill_value, d)
    return apply("full_like", [x], {"value": _py_value(fill_value, d), "dtype": dtype_name(d)})


def zeros_like(x: Any, dtype: Any = None, name: Optional[str] = None) -> Any:
    return full_like(x, 0, dtype)


def ones_like(x: Any, dtype: Any = None, name: Optional[str] = None) -> Any:
    return full_like(x, 1, dtype)


def empty_like(x: Any, dtype: Any = None, name: Optional[str] = None) -> Any:
    return full_like(x, 0, dtype)


# ----------------------------------------------------------------------------- ranges
def _arange_infer(start, end, step, dtype):
    return Meta((-1,), convert_dtype(dtype))


@register_op("arange", infer=_arange_infer)
def _arange_kernel(start, end, step, dtype):
    return np.arange(start, end, step).astype(dtype)


def arange(start: Any = 0, end: Any = None, step: Any = 1, dtype: Any = None,
           name: Optional[str] = None) -> Any:
    """Values from start to end (exclusive) by step."""
    if end is None:
        start, end = 0, start
    vals = [start, end, step]
    if dtype is None:
        dtype = default_float() if any(
            isinstance(v, float) or (is_tensor(v) and v.dtype.is_floating) for v in vals) else int64
    d = convert_dtype(dtype)
    if not any(is_tensor(v) for v in vals):
        if not state.build_state.blocks:
            return Tensor(np.arange(start, end, step).astype(d.np))
        count = int(np.ceil((end - start) / step)) if step else 0
        return apply("full_range", [], {"start": start, "end": end, "step": step, "dtype": dtype_name(d),
                                        "n": max(count, 0)})
    return apply("arange", [as_tensor(v, d) for v in vals], {"dtype": dtype_name(d)})


@register_op("full_range", infer=lambda start, end, step, dtype, n: Meta((n,), convert_dtype(dtype)))
def _full_range_kernel(start, end, step, dtype, n):
    return np.arange(start, end, step).astype(dtype)


@register_op("eye", infer=lambda n, m, dtype: Meta((n, m), convert_dtype(dtype)))
def _eye_kernel(n, m, dtype):
    return np.eye(n, m, dtype=dtype)


def eye(num_rows: int, num_columns: Optional[int] = None, dtype: Any = None,
        name: Optional[str] = None) -> Any:
    d = convert_dtype(dtype) if dtype is not None else default_float()
    return apply("eye", [], {"n": int(num_rows), "m": int(num_columns or num_rows), "dtype": dtype_name(d)})
