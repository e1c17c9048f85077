"""Tensor cast methods Paddle 3 binds (`x.float()`, `x.long()`, ...): each is `x.astype(dtype)`,
so gradients flow through the float ones and they convert and export like astype."""
from __future__ import annotations

from typing import Any, Callable, Dict

from .tensor import TensorLike

# method name -> the dtype Paddle casts to
CASTS: Dict[str, str] = {
    "float": "float32", "double": "float64", "half": "float16",
    "int": "int32", "long": "int64", "short": "int16", "char": "int8", "byte": "uint8",
    "bool": "bool", "bfloat16": "bfloat16", "cfloat": "complex64", "cdouble": "complex128",
}


def _cast_method(name: str, dtype: str) -> Callable[..., Any]:
    def cast(self: Any) -> Any:
        return self.astype(dtype)
    cast.__name__ = cast.__qualname__ = name
    cast.__doc__ = f"This tensor cast to {dtype} (same as `astype('{dtype}')`)."
    return cast


def install() -> None:
    for name, dtype in CASTS.items():
        if name not in vars(TensorLike):
            setattr(TensorLike, name, _cast_method(name, dtype))
