"""InputSpec: the shape (None for unknown dims), dtype and name of a program input."""
from __future__ import annotations

from typing import Any, Optional, Sequence

from ..runtime.dtype import DType, convert_dtype, dtype_name


class InputSpec:
    """Describes one input of a static function: `InputSpec([None, 10], 'float32', 'x')`."""

    def __init__(self, shape: Sequence[Optional[int]], dtype: Any = "float32",
                 name: Optional[str] = None, stop_gradient: bool = False) -> None:
        if isinstance(shape, int):
            shape = [shape]
        self.shape = tuple(None if (d is None or int(d) < 0) else int(d) for d in shape)
        self.dtype: DType = convert_dtype(dtype)
        self.name = name
        self.stop_gradient = stop_gradient

    @classmethod
    def from_tensor(cls, tensor: Any, name: Optional[str] = None) -> "InputSpec":
        return cls(list(tensor.shape), tensor.dtype, name or getattr(tensor, "name", None) or None)

    @classmethod
    def from_numpy(cls, ndarray: Any, name: Optional[str] = None) -> "InputSpec":
        return cls(list(ndarray.shape), ndarray.dtype, name)

    def batch(self, batch_size: Optional[int]) -> "InputSpec":
        return InputSpec((batch_size,) + self.shape, self.dtype, self.name)

    def unbatch(self) -> "InputSpec":
        return InputSpec(self.shape[1:], self.dtype, self.name)

    def matches(self, shape: Sequence[int], dtype: Any) -> bool:
        return (len(shape) == len(self.shape) and convert_dtype(dtype) == self.dtype and
                all(d is None or d == s for d, s in zip(self.shape, shape)))

    def text(self) -> str:
        dims = ",".join("None" if d is None else str(d) for d in self.shape)
        return f"{self.name + ':' if self.name else ''}{dtype_name(self.dtype)}[{dims}]"

    def __repr__(self) -> str:
        # dtype=paddle.float32, as Paddle's InputSpec shows it (str, not the enum repr)
        return f"InputSpec(shape={list(self.shape)}, dtype={self.dtype}, name={self.name!r})"

    def __eq__(self, other: Any) -> bool:
        return (isinstance(other, InputSpec) and self.shape == other.shape and
                self.dtype == other.dtype and self.name == other.name)

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype, self.name))
