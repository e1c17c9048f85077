"""Tensor methods Paddle binds beyond its ops: apply / apply_ (eager only), fill_diagonal_
(through tensor_methods.INPLACE), resize_, is_dense, create_parameter and create_tensor."""
from __future__ import annotations

from typing import Any, Callable, Dict, Optional

import numpy as np

from . import ops, tensor_casts
from .dtype import convert_dtype
from .program import Variable
from .tensor import Tensor, TensorLike


def _eager_only(self: Any, what: str) -> None:
    if isinstance(self, Variable):
        raise TypeError(f"Tensor.{what} runs a Python function on an eager tensor's values; "
                        f"it is not available inside a static program or jit.to_static (write "
                        f"the function with tensor ops and call it directly)")


def _applied(self: Any, func: Callable[[Any], Any], what: str) -> Tensor:
    _eager_only(self, what)
    if not self.stop_gradient:
        raise RuntimeError("Cannot apply function on a tensor that required gradient.")
    if not callable(func):
        raise TypeError(f"Tensor.{what}: func must be callable, got {type(func).__name__}")
    out = func(self)
    if not isinstance(out, Tensor):
        raise TypeError(f"Tensor.{what}: func must return a Tensor, got {type(out).__name__}")
    return out


def _apply(self: Any, func: Callable[[Any], Any]) -> Tensor:
    """func(x) for an eager tensor that needs no gradient (Paddle's Tensor.apply)."""
    return _applied(self, func, "apply")


def _apply_(self: Any, func: Callable[[Any], Any]) -> Any:
    """x takes the values of func(x) in place (same shape; cast to x's dtype)."""
    out = _applied(self, func, "apply_")
    if list(out.shape) != list(self.shape):
        raise ValueError(f"Tensor.apply_: func returned shape {list(out.shape)}, the tensor "
                         f"has shape {list(self.shape)}")
    self._value = np.asarray(out._value).astype(self._value.dtype, copy=True)
    self._version = getattr(self, "_version", 0) + 1
    return self


def diagonal_mask(shape: Any, offset: int = 0, wrap: bool = False) -> np.ndarray:
    """The positions Paddle's fill_diagonal kernel writes: flat indices 0, s, 2s, ... with
    s = sum of the row-major strides (columns + 1 for a matrix), below rows*... the limit
    (columns^2 elements unless wrap), shifted by offset within their row."""
    shape = [int(d) for d in shape]
    if len(shape) < 2:
        raise ValueError(f"fill_diagonal_: the tensor needs at least 2 dims, got shape {shape}")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise ValueError(f"fill_diagonal_: a tensor of more than 2 dims must have all dims "
                         f"equal, got shape {shape}")
    if len(shape) > 2:
        wrap = True           # Paddle's fill_diagonal_ always wraps beyond 2 dims
    cols = shape[-1]
    strides = np.cumprod([1] + shape[:0:-1])[::-1]
    step = int(strides.sum())
    size = int(np.prod(shape))
    if not wrap:
        size = min(size, shape[1] * shape[1])
    flat = np.zeros(int(np.prod(shape)), bool)
    starts = np.arange(0, size, step)
    col = starts % cols + offset
    keep = (col >= 0) & (col < cols)
    flat[starts[keep] + offset] = True
    return flat.reshape(shape)


def filled_diagonal(x: Any, value: Any, offset: int = 0, wrap: bool = False,
                    name: Any = None) -> Any:
    """x with value on its (offset) diagonal: the out-of-place op Tensor.fill_diagonal_
    adopts (so autograd records it: the gradient there is zero). wrap: a tall matrix
    continues the diagonal every columns + 1 rows."""
    if any(d is None or d < 0 for d in x.shape):
        raise ValueError(f"fill_diagonal_: needs a known shape, got {list(x.shape)}")
    mask = ops.to_tensor(diagonal_mask(x.shape, int(offset), bool(wrap)))
    return ops.where(mask, ops.full_like(x, value), x)


def _resize_(self: Any, shape: Any, fill_zero: bool = False, name: Any = None) -> Any:
    """x takes `shape` in place: its first values in row-major order, then zeros (Paddle
    leaves new values undefined unless fill_zero; dy2st always writes zeros)."""
    if isinstance(self, Variable):
        raise TypeError("Tensor.resize_ changes a tensor's shape in place: it works on eager "
                        "tensors only, not inside a static program")
    if not isinstance(shape, (list, tuple)) or not all(
            isinstance(d, (int, np.integer)) and d >= 0 for d in shape):
        raise ValueError(f"Tensor.resize_: shape must be a list or tuple of ints >= 0, got "
                         f"{shape!r}")
    count = int(np.prod(shape)) if len(shape) else 1
    flat = self._value.reshape(-1)[:count]
    out = np.zeros(count, self._value.dtype)
    out[:flat.size] = flat
    self._value = out.reshape([int(d) for d in shape])
    self._version = getattr(self, "_version", 0) + 1
    return self


def _is_dense(self: Any) -> bool:
    return True            # dy2st has no sparse tensors


def create_tensor(dtype: Any, name: Optional[str] = None, persistable: bool = False) -> Tensor:
    """An empty (shape [0]) tensor of dtype, to be written by assign and the like; as a
    method (`x.create_tensor()`), of x's dtype."""
    if isinstance(dtype, TensorLike):
        dtype = dtype.dtype
    d = convert_dtype(dtype)
    return Tensor(np.zeros([0], d.np),
                  name=name, persistable=persistable)


METHODS: Dict[str, Any] = {
    "apply": _apply, "apply_": _apply_,
    "resize_": _resize_, "is_dense": _is_dense, "create_tensor": create_tensor,
}   # Tensor.create_parameter builds a Layer's Parameter: utils.framework installs it


def install() -> None:
    for name, fn in METHODS.items():
        if name not in vars(TensorLike):
            setattr(TensorLike, name, fn)
    tensor_casts.install()
