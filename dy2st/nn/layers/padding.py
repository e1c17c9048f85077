"""Padding layers: Pad1D/2D/3D (constant, reflect, replicate, circular) and ZeroPad1D/2D/3D."""
from __future__ import annotations

from typing import Any, Optional

from ...runtime.tensor import Tensor
from .. import functional as F
from ..layer import Layer


class _PadNd(Layer):
    _nd = 2

    def __init__(self, padding: Any, mode: str = "constant", value: float = 0.0, data_format: str = "NCHW",
                 name: Optional[str] = None) -> None:
        super().__init__()
        if isinstance(padding, Tensor):
            padding = padding.numpy().reshape(-1).tolist()
        if isinstance(padding, int):
            padding = [padding] * (2 * self._nd)
        padding = [int(p) for p in padding]
        if len(padding) != 2 * self._nd:
            raise ValueError(f"{type(self).__name__}: padding must be an int or {2 * self._nd} ints, "
                             f"got {padding}")
        self._pad, self._mode, self._value, self._data_format = padding, mode, value, data_format

    def forward(self, x: Any) -> Any:
        return F.pad(x, self._pad, mode=self._mode, value=self._value, data_format=self._data_format)

    def extra_repr(self) -> str:
        return f"padding={self._pad}, mode={self._mode}, value={self._value}, data_format={self._data_format}"


class Pad1D(_PadNd):
    """padding [left, right]."""
    _nd = 1

    def __init__(self, padding: Any, mode: str = "constant", value: float = 0.0, data_format: str = "NCL",
                 name: Optional[str] = None) -> None:
        super().__init__(padding, mode, value, data_format)


class Pad2D(_PadNd):
    """padding [left, right, top, bottom]."""
    _nd = 2


class Pad3D(_PadNd):
    """padding [left, right, top, bottom, front, back]."""
    _nd = 3

    def __init__(self, padding: Any, mode: str = "constant", value: float = 0.0, data_format: str = "NCDHW",
                 name: Optional[str] = None) -> None:
        super().__init__(padding, mode, value, data_format)


class ZeroPad1D(Pad1D):
    def __init__(self, padding: Any, data_format: str = "NCL", name: Optional[str] = None) -> None:
        super().__init__(padding, "constant", 0.0, data_format)


class ZeroPad2D(Pad2D):
    def __init__(self, padding: Any, data_format: str = "NCHW", name: Optional[str] = None) -> None:
        super().__init__(padding, "constant", 0.0, data_format)


class ZeroPad3D(Pad3D):
    def __init__(self, padding: Any, data_format: str = "NCDHW", name: Optional[str] = None) -> None:
        super().__init__(padding, "constant", 0.0, data_format)
