"""Tensor arrays: growable lists of tensors usable as loop state (a Python list when run)."""
from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

from .. import state
from ..dtype import convert_dtype, dtype_name, int64
from ..program import Variable, rebind
from ..registry import Meta, apply, register_op
from ..tensor import Tensor
from .math import add
from .operands import as_tensor, is_tensor
from .shape import reshape


def _elem_of(x) -> tuple:
    return (tuple(x._shape), dtype_name(x.dtype))


@register_op("create_array", infer=lambda dtype: Meta((), convert_dtype(dtype), "array", None))
def _create_array_kernel(dtype):
    return []


def _write_infer(array, i, x):
    elem = _elem_of(x)
    if array.elem is not None:
        old_shape, old_dtype = array.elem
        if old_dtype != elem[1] or len(old_shape) != len(elem[0]):
            raise ValueError(f"array_write: the array holds {old_dtype}{list(old_shape)} items, "
                             f"got {dtype_name(x.dtype)}{list(x._shape)}")
        elem = (tuple(a if a == b else -1 for a, b in zip(old_shape, elem[0])), elem[1])
    return Meta((), x.dtype, "array", elem)


@register_op("array_write", infer=_write_infer)
def _array_write_kernel(array, i, x):
    i = int(i)
    if i == len(array):
        array.append(x)
    elif 0 <= i < len(array):
        array[i] = x
    else:
        raise IndexError(f"array_write: index {i} is out of range for an array of length {len(array)}")
    return array


def _read_infer(array, i):
    if array.elem is None:
        raise ValueError("array_read: the array has no element written yet, so its item type is unknown")
    return Meta(tuple(array.elem[0]), convert_dtype(array.elem[1]))


@register_op("array_read", infer=_read_infer)
def _array_read_kernel(array, i):
    return array[int(i)]


@register_op("array_length", infer=lambda array: Meta((), int64))
def _array_length_kernel(array):
    return np.array(len(array), dtype=np.int64)


def _stack_infer(array, axis):
    if array.elem is None:
        raise ValueError("stacking a tensor array that is never written")
    shape = list(array.elem[0])
    shape.insert(axis % (len(shape) + 1), -1)
    return Meta(tuple(shape), convert_dtype(array.elem[1]))


@register_op("array_stack", infer=_stack_infer)
def _array_stack_kernel(array, axis):
    if not array:
        raise ValueError("cannot stack an empty tensor array")
    return np.stack(array, axis=axis)


def _concat_infer(array, axis):
    if array.elem is None:
        raise ValueError("concatenating a tensor array that is never written")
    shape = list(array.elem[0])
    shape[axis % len(shape)] = -1
    return Meta(tuple(shape), convert_dtype(array.elem[1]))


@register_op("array_concat", infer=_concat_infer)
def _array_concat_kernel(array, axis):
    if not array:
        raise ValueError("cannot concatenate an empty tensor array")
    return np.concatenate(array, axis=axis)


def _pop_infer(array, i):
    item = _read_infer(array, i)
    return [Meta((), array.dtype, "array", array.elem), item]


@register_op("array_pop", infer=_pop_infer, n_outputs=2)
def _array_pop_kernel(array, i):
    if not array:
        raise IndexError("pop from an empty tensor array")
    item = array.pop(int(i))
    return array, item


@register_op("array_slice", infer=lambda array, start, stop, step: Meta((), array.dtype, "array",
                                                                      array.elem))
def _array_slice_kernel(array, start, stop, step):
    return array[start:stop:step]


def array_slice(array: Variable, index: slice) -> Any:
    """array[a:b:c] (Python bounds only): a new tensor array."""
    bounds = [index.start, index.stop, index.step]
    if any(b is not None and not isinstance(b, int) for b in bounds):
        raise TypeError("a tensor array can only be sliced with Python int bounds")
    return apply("array_slice", [array], dict(zip(("start", "stop", "step"), bounds)))


def _join_infer(a, b):
    elem = a.elem if b.elem is None else b.elem if a.elem is None else (
        tuple(x if x == y else -1 for x, y in zip(a.elem[0], b.elem[0])), a.elem[1])
    return Meta((), a.dtype, "array", elem)


@register_op("array_join", infer=_join_infer)
def _array_join_kernel(a, b):
    return list(a) + list(b)


def array_extend(array: Variable, items: Any, front: bool = False) -> Any:
    """array + [items] (or [items] + array): a new tensor array."""
    other = create_array(array.dtype, list(items))
    return apply("array_join", [other, array] if front else [array, other])


def create_array(dtype: Any = "float32", initialized_list: Optional[List[Any]] = None) -> Any:
    """An empty tensor array (eagerly a Python list)."""
    d = convert_dtype(dtype)
    if not state.build_state.blocks:
        return list(initialized_list or [])
    arr = apply("create_array", [], {"dtype": dtype_name(d)})
    for k, item in enumerate(initialized_list or []):
        arr = array_write(item, k, arr)
    return arr


def _index(i: Any) -> Any:
    i = as_tensor(i, "int64") if not is_tensor(i) else i
    # Paddle code builds indices as `paddle.zeros([1], 'int64') + i`: a shape-[1] index is the
    # scalar it holds (as in Paddle), so the kernels, gradients and ONNX see a 0-D index.
    from .dims import dims
    if dims(i) == (1,):
        i = reshape(i, [])
    return i


def _py_index(i: Any) -> int:
    """An eager index (int, 0-D or shape-[1] tensor) as a Python int."""
    return int(np.asarray(i._value if isinstance(i, Tensor) else i).reshape(-1)[0]) \
        if np.size(getattr(i, "_value", i)) == 1 else int(i)


def array_write(x: Any, i: Any, array: Any = None) -> Any:
    """Write x at position i (i == length appends); returns the array."""
    if array is None:
        array = create_array(x.dtype)
    if isinstance(array, list):
        if isinstance(i, Variable) or isinstance(x, Variable):
            raise TypeError("array_write: a Python list cannot hold symbolic tensors by a "
                            "symbolic index")
        _array_write_kernel(array, _py_index(i), x)
        return array
    out = apply("array_write", [array, _index(i), as_tensor(x)])
    if isinstance(array, Variable):
        # Paddle writes into the array it is given: the caller's handle sees the write too.
        from ..program import rebind
        return rebind(array, out)
    return out


def _from_end(array: Any, i: Any) -> Any:
    """A negative Python int index of a symbolic array counted from its end in the graph, so
    that the op (and its gradient, which puts values back by position) sees a position."""
    if isinstance(array, Variable) and isinstance(i, int) and not isinstance(i, bool) and i < 0:
        return add(array_length(array), i)
    return i


def array_read(array: Any, i: Any) -> Any:
    if isinstance(array, list):
        return array[_py_index(i)]
    return apply("array_read", [array, _index(_from_end(array, i))])


def array_length(array: Any) -> Any:
    if isinstance(array, list):
        return Tensor(np.array(len(array), dtype=np.int64))
    return apply("array_length", [array])


def array_stack(array: Any, axis: int = 0) -> Any:
    return apply("array_stack", [array], {"axis": int(axis)})


def array_concat(array: Any, axis: int = 0) -> Any:
    return apply("array_concat", [array], {"axis": int(axis)})


def array_append(array: Variable, x: Any) -> None:
    """array.append(x) on a symbolic array: the handle is rebound to the written array."""
    i = array_length(array)
    rebind(array, array_write(x, i, array))
    if isinstance(x, Variable) and x.kind == "dense":
        block = state.current_block()
        if block.owner_kind == "while":
            block.appended.append((array, i, x, x.name))


def rewrite_appended(block: Any) -> None:
    """At the end of a loop body's turn: an appended tensor changed in place after its append
    (`acc.append(h); h[0] = v`) is written again, as eager's list holds the object itself."""
    for array, i, x, name in block.appended:
        if x.name != name and x.kind == "dense":
            array_write(x, i, array)
    block.appended.clear()


def array_pop(array: Variable, index: Any = -1) -> Any:
    """array.pop(index) on a symbolic array: returns the item; the handle is rebound to the
    shorter array."""
    out, item = apply("array_pop", [array, _index(_from_end(array, index))])
    rebind(array, out)
    return item
