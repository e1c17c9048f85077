"""Tensor methods Paddle has beyond its op functions: ndimension, mT, to, contiguous /
is_contiguous, repeat, rank, is_tensor, is_same_shape, concat / stack, split_with_sizes,
retain_grads, inplace_version, copy_ and set_."""
from __future__ import annotations

from typing import Any, Dict

import numpy as np

from . import ops, tensor_methods_more
from .dtype import convert_dtype
from .program import Variable
from .tensor import Tensor, TensorLike


def _ndimension(self) -> int:
    return self.ndim


def _mT(self) -> Any:
    return ops.matrix_transpose(self)


def _looks_like_device(arg: Any) -> bool:
    name = type(arg).__name__
    return name.endswith("Place") or (isinstance(arg, str) and arg.split(":")[0].lower() in (
        "cpu", "gpu", "cuda", "xpu", "npu"))


def _to(self, *args: Any, **kwargs: Any) -> Any:
    """x.to(device=None, dtype=None, blocking=None): a cast for a dtype (or another tensor's
    dtype); devices other than the CPU are refused (dy2st runs on numpy)."""
    device, dtype = kwargs.pop("device", None), kwargs.pop("dtype", None)
    kwargs.pop("blocking", None)
    kwargs.pop("copy", None)
    kwargs.pop("non_blocking", None)
    if kwargs:
        raise TypeError(f"Tensor.to() got unexpected arguments {sorted(kwargs)}")
    for arg in args:
        if isinstance(arg, bool) or arg is None:
            continue
        if isinstance(arg, TensorLike):
            dtype = arg.dtype
        elif _looks_like_device(arg):
            device = arg
        else:
            dtype = arg
    if device is not None:
        text = str(device).lower()
        if "cpu" not in text:
            raise ValueError(f"Tensor.to: dy2st runs on the CPU only, got device {device!r}")
    if dtype is None:
        return self
    return ops.cast(self, convert_dtype(dtype))


def _contiguous(self) -> Any:
    return self


def _is_contiguous(self) -> bool:
    return True           # numpy-backed tensors are always stored densely


def _repeat(self, *repeats: Any) -> Any:
    """x.repeat(*repeats): x tiled `repeats` times per dim (PyTorch's Tensor.repeat)."""
    if len(repeats) == 1 and isinstance(repeats[0], (list, tuple)):
        repeats = tuple(repeats[0])
    if len(repeats) < self.ndim:
        raise ValueError(f"Tensor.repeat: need at least {self.ndim} repeats (one per dim), got "
                         f"{len(repeats)}")
    return ops.tile(self, list(repeats))


def _rank(self) -> Any:
    return ops.rank(self)


def _is_tensor(self) -> bool:
    return True


def _is_same_shape(self, y: Any) -> bool:
    return list(self.shape) == list(y.shape)


def _rows(x: Any) -> Any:
    return ops.unbind(x, 0)


def _concat(self, axis: Any = 0, name: Any = None) -> Any:
    """paddle.concat(x, axis) with a tensor for x: its slices along dim 0 are the inputs."""
    return ops.concat(_rows(self), axis)


def _stack(self, axis: int = 0, name: Any = None) -> Any:
    """paddle.stack(x, axis) with a tensor for x: its slices along dim 0 are the inputs."""
    return ops.stack(_rows(self), axis)


def _split_with_sizes(self, split_sizes: Any, dim: int = 0) -> Any:
    sizes = [int(s) for s in split_sizes]
    return ops.split(self, sizes, dim)


def _retain_grads(self) -> None:
    """Keep this (non-leaf) tensor's gradient in .grad after backward()."""
    if isinstance(self, Variable) or self.stop_gradient:
        return None
    if self._node is None:
        return None               # a leaf keeps its gradient anyway

    def keep(g):
        old = getattr(self, "_grad", None)
        self._grad = g if old is None else Tensor(old._value + g._value)
        return None
    self.register_hook(keep)
    return None


def _inplace_version(self) -> int:
    return getattr(self, "_version", 0)


def _copy_values(self, src: Any, blocking: bool = True) -> Any:
    src = ops.cast(ops.operands.as_tensor(src), self.dtype)
    return ops.expand(src, self.shape) if list(src.shape) != list(self.shape) else ops.assign(src)


def _set_(self, source: Any = None, shape: Any = None, stride: Any = None,
          offset: int = 0, name: Any = None) -> Any:
    """x.set_(source, shape): x takes source's values (and shape); eager only."""
    if isinstance(self, Variable):
        raise TypeError("Tensor.set_ changes a tensor's shape in place: it works on eager "
                        "tensors only, not inside a static program")
    if stride is not None:
        raise ValueError("Tensor.set_: dy2st tensors are always dense, so `stride` must be None")
    if source is None:
        self._value = np.zeros([0], self._value.dtype)
        return self
    values = np.asarray(source._value if isinstance(source, Tensor) else source)
    flat = values.reshape(-1)[int(offset):]
    if shape is not None:
        count = int(np.prod(shape))
        if count > flat.size:
            raise ValueError(f"Tensor.set_: shape {list(shape)} needs {count} values, the source "
                             f"has {flat.size} after offset {offset}")
        values = flat[:count].reshape(list(shape))
    elif offset:
        values = flat
    self._value = values.astype(self._value.dtype, copy=True)
    self._version = getattr(self, "_version", 0) + 1
    return self


METHODS: Dict[str, Any] = {
    "ndimension": _ndimension, "to": _to, "contiguous": _contiguous,
    "is_contiguous": _is_contiguous, "repeat": _repeat, "rank": _rank, "is_tensor": _is_tensor,
    "is_same_shape": _is_same_shape, "concat": _concat, "stack": _stack,
    "split_with_sizes": _split_with_sizes, "retain_grads": _retain_grads, "set_": _set_,
}
PROPERTIES: Dict[str, Any] = {"mT": _mT, "inplace_version": _inplace_version}


def install() -> None:
    for name, fn in METHODS.items():
        if name not in vars(TensorLike) or name in ("rank", "concat", "stack", "is_tensor"):
            setattr(TensorLike, name, fn)
    for name, fn in PROPERTIES.items():
        setattr(TensorLike, name, property(fn))
    tensor_methods_more.install()
