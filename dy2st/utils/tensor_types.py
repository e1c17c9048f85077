"""paddle.FloatTensor & co. (dtype-named tensor constructors that also work with isinstance),
paddle.as_tensor, and the constants paddle.e, pi, inf, nan and newaxis."""
from __future__ import annotations

import math
from typing import Any, Dict

from ..runtime import ops
from ..runtime.dtype import dtype_name
from ..runtime.tensor import TensorLike

e = math.e
pi = math.pi
inf = math.inf
nan = math.nan
newaxis = None


class _TypedTensorMeta(type):
    """Calling the class builds a tensor of its dtype; isinstance checks tensor and dtype."""

    dtype_name: str

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        if not args and not kwargs:
            return ops.zeros([0], cls.dtype_name)
        if args and all(isinstance(a, int) and not isinstance(a, bool) for a in args):
            return ops.zeros(list(args), cls.dtype_name)        # FloatTensor(2, 3): a shape
        data = args[0] if args else kwargs.pop("data")
        if isinstance(data, TensorLike):
            return ops.cast(data, cls.dtype_name)
        return ops.to_tensor(data, cls.dtype_name)

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, TensorLike) and dtype_name(obj.dtype) == cls.dtype_name


def _typed(name: str, dtype: str) -> type:
    return _TypedTensorMeta(name, (), {"dtype_name": dtype_name(dtype),
                                       "__doc__": f"A {dtype_name(dtype)} tensor: {name}(data) or "
                                                  f"{name}(*shape) (zeros)."})


TENSOR_TYPES: Dict[str, type] = {
    name: _typed(name, dtype) for name, dtype in (
        ("FloatTensor", "float32"), ("DoubleTensor", "float64"), ("HalfTensor", "float16"),
        ("ByteTensor", "uint8"), ("CharTensor", "int8"), ("ShortTensor", "int16"),
        ("IntTensor", "int32"), ("LongTensor", "int64"), ("BoolTensor", "bool"))}


def as_tensor(data: Any, dtype: Any = None, place: Any = None) -> Any:
    """data as a tensor, sharing it when it already is one of that dtype."""
    if isinstance(data, TensorLike):
        return data if dtype is None or dtype_name(dtype) == dtype_name(data.dtype) else \
            ops.cast(data, dtype)
    return ops.to_tensor(data, dtype, place)


def asarray(obj: Any, *, dtype: Any = None, device: Any = None, copy: Any = None,
            requires_grad: bool = False) -> Any:
    """paddle.asarray: a new tensor from obj (a tensor, array, number or nested list), with
    stop_gradient = not requires_grad; `device` and `copy` are accepted (CPU, always a copy)."""
    if isinstance(obj, TensorLike):
        obj = obj.numpy()
    return ops.to_tensor(obj, dtype, device, stop_gradient=not requires_grad)


def from_numpy(ndarray: Any) -> Any:
    """paddle.from_numpy: a tensor of the numpy array's data, shape and dtype."""
    if not hasattr(ndarray, "__array_interface__"):
        raise TypeError(f"from_numpy expects a numpy.ndarray, got {type(ndarray).__name__}")
    return ops.to_tensor(ndarray, str(ndarray.dtype))
