"""Python list methods on tensor arrays: a list that grew inside a tensor loop or `if` becomes a
tensor array, and these keep the list code written for eager mode working on it."""
from __future__ import annotations

from typing import Any

from . import ops
from .program import Variable, rebind
from .registry import apply
from .tensor import TensorLike

WHY = ("it had items appended inside a tensor-dependent loop or `if`, so it became a tensor "
       "array whose length is only known when the program runs")
SUPPORTED = ("append, pop(), pop(i), insert(i, v) and slicing with Python int bounds, "
             "extend, reverse, clear, copy, len(), indexing and assigning at an index, "
             "iteration, `+`")


class TensorArrayListError(TypeError):
    """A Python list operation that a tensor array (a list grown in a tensor loop) cannot do."""


def refuse(what: str, instead: str) -> TensorArrayListError:
    return TensorArrayListError(
        f"{what} is not supported on this list: {WHY}. A tensor array supports {SUPPORTED}; "
        f"{instead}")


def _is_array(x: Any) -> bool:
    return isinstance(x, Variable) and x.kind == "array"


def _python_int(i: Any, what: str) -> int:
    if isinstance(i, bool) or not isinstance(i, int):
        if hasattr(i, "__index__") and not isinstance(i, TensorLike):
            return i.__index__()
        raise refuse(f"{what} at a position that is a tensor" if isinstance(i, TensorLike)
                     else f"{what} at the position {i!r}",
                     "give a Python int position, or stack the list "
                     "(`paddle.stack(a)`) and use tensor ops on the stacked tensor")
    return i


def _items_of(other: Any, what: str) -> Any:
    """other as a tensor array (an array or a Python list / tuple of tensors)."""
    if _is_array(other):
        return other
    if isinstance(other, (list, tuple)) and all(isinstance(v, TensorLike) for v in other):
        return other
    if isinstance(other, TensorLike) and other.kind == "dense" and other._shape and \
            other._shape[0] >= 0:
        return [other[k] for k in range(other._shape[0])]
    raise refuse(f"{what} with {type(other).__name__}",
                 "extend it with another list of tensors or a tensor array")


def _join(array: Variable, other: Any) -> Any:
    if _is_array(other):
        return apply("array_join", [array, other])
    return ops.array.array_extend(array, other) if other else ops.array.array_slice(
        array, slice(None))


def reverse(self: Variable, *args: Any, **kwargs: Any) -> Any:
    if not _is_array(self):
        return TensorLike.reverse(self, *args, **kwargs)
    if args or kwargs:
        raise TypeError("list.reverse() takes no arguments")
    rebind(self, ops.array.array_slice(self, slice(None, None, -1)))


def insert(self: Variable, index: Any, value: Any) -> None:
    if not _is_array(self):
        raise AttributeError("insert() is only defined for tensor arrays (lists)")
    i = _python_int(index, "insert()")
    head = ops.array.array_slice(self, slice(None, i))
    tail = ops.array.array_slice(self, slice(i, None))
    rebind(self, _join(ops.array.array_extend(head, [value]), tail))


def extend(self: Variable, other: Any) -> None:
    if not _is_array(self):
        raise AttributeError("extend() is only defined for tensor arrays (lists)")
    rebind(self, _join(self, _items_of(other, "extend()")))


def clear(self: Variable) -> None:
    if not _is_array(self):
        raise AttributeError("clear() is only defined for tensor arrays (lists)")
    # an empty slice keeps the item type (a new empty array would not know it)
    rebind(self, ops.array.array_slice(self, slice(0, 0)))


def copy(self: Variable) -> Any:
    if not _is_array(self):
        raise AttributeError("copy() is only defined for tensor arrays (lists); use clone()")
    return ops.array.array_slice(self, slice(None))


def join(self: Variable, other: Any) -> Any:
    """self + other where self is a tensor array: a new array."""
    return _join(self, _items_of(other, "`+`"))


def rjoin(self: Variable, other: Any) -> Any:
    """other + self where self is a tensor array and other a Python list of tensors."""
    return _join(ops.array.create_array(self.dtype, list(_items_of(other, "`+`"))), self)


def set_item(array: Variable, index: Any, value: Any) -> Variable:
    """array[index] = value (a negative Python int counts from the end)."""
    if isinstance(index, slice):
        raise refuse("assigning to a slice", "assign item by item (`a[i] = v`), or build a "
                     "new list from slices: `a = a[:i] + [v] + a[j:]`")
    if isinstance(index, int) and not isinstance(index, bool) and index < 0:
        index = ops.add(ops.array.array_length(array), index)
    elif isinstance(index, TensorLike) and index.dtype.is_floating:
        raise TypeError("list indices must be integers")
    ops.array.array_write(value, index, array)
    return array


def delete_item(self: Variable, index: Any) -> None:
    if isinstance(index, slice):
        raise refuse("`del` of a slice", "keep the part you need: `a = a[:i] + a[j:]`")
    ops.array.array_pop(self, index)


def reversed_items(self: Variable) -> Any:
    if _is_array(self):
        return ops.array.array_slice(self, slice(None, None, -1))
    return (self[i] for i in range(len(self) - 1, -1, -1))


def iterate(self: Variable) -> Any:
    if _is_array(self):
        raise refuse("iterating over it outside a converted `for` loop (list(a), unpacking, "
                     "a call into unconverted code)", "write `for t in a:` in converted code "
                     "(it becomes a tensor loop), or stack it: `paddle.stack(a)`")
    return _DENSE_ITER(self)


_DENSE_ITER = Variable.__iter__


def _unsupported(name: str, instead: str):
    def method(self: Variable, *args: Any, **kwargs: Any) -> Any:
        if not _is_array(self):
            base = getattr(TensorLike, name, None)
            if base is None:
                raise AttributeError(f"'Variable' object has no attribute {name!r}")
            return base(self, *args, **kwargs)
        raise refuse(f"list.{name}()", instead)
    method.__name__ = name
    return method


_STACK = "stack it into one tensor (`t = paddle.stack(a)`) and use tensor ops on it"
UNSUPPORTED = {
    "sort": f"{_STACK} (`paddle.sort(t, axis=0)`)",
    "index": f"{_STACK} (`paddle.nonzero(...)` on a comparison)",
    "count": f"{_STACK} and count with a comparison and `.sum()`",
    "remove": "pop it by position (`a.pop(i)`), or keep the values in a Python list built "
              "outside tensor loops",
}

def install() -> None:
    """Put the list methods on Variable (a tensor method of the same name still serves
    dense tensors)."""
    for name, fn in {"reverse": reverse, "insert": insert, "extend": extend, "clear": clear,
                     "copy": copy, "__reversed__": reversed_items, "__iter__": iterate,
                     "__delitem__": delete_item}.items():
        setattr(Variable, name, fn)
    for name, instead in UNSUPPORTED.items():
        setattr(Variable, name, _unsupported(name, instead))
