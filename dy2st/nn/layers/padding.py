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


# ------------------------------------------------------------------ one-mode padding layers (Paddle 3.x)
class _ModePad(_PadNd):
    """A padding layer whose mode is fixed by its class (ConstantPad2D, ReflectionPad1D, ...)."""
    _mode_name = "constant"
    _format = "NCHW"

    def __init__(self, padding: Any, data_format: Optional[str] = None, name: Optional[str] = None,
                 value: float = 0.0) -> None:
        super().__init__(padding, self._mode_name, value, data_format or self._format)


class _ConstantPad(_ModePad):
    def __init__(self, padding: Any, value: float, data_format: Optional[str] = None,
                 name: Optional[str] = None) -> None:
        super().__init__(padding, data_format, name, float(value))


class ConstantPad1D(_ConstantPad):
    """padding [left, right] filled with `value`."""
    _nd, _format = 1, "NCL"


class ConstantPad2D(_ConstantPad):
    """padding [left, right, top, bottom] filled with `value`."""
    _nd, _format = 2, "NCHW"


class ConstantPad3D(_ConstantPad):
    """padding [left, right, top, bottom, front, back] filled with `value`."""
    _nd, _format = 3, "NCDHW"


class ReflectionPad1D(_ModePad):
    _nd, _format, _mode_name = 1, "NCL", "reflect"


class ReflectionPad2D(_ModePad):
    _nd, _format, _mode_name = 2, "NCHW", "reflect"


class ReflectionPad3D(_ModePad):
    _nd, _format, _mode_name = 3, "NCDHW", "reflect"


class ReplicationPad1D(_ModePad):
    _nd, _format, _mode_name = 1, "NCL", "replicate"


class ReplicationPad2D(_ModePad):
    _nd, _format, _mode_name = 2, "NCHW", "replicate"


class ReplicationPad3D(_ModePad):
    _nd, _format, _mode_name = 3, "NCDHW", "replicate"


class CircularPad1D(_ModePad):
    _nd, _format, _mode_name = 1, "NCL", "circular"


class CircularPad2D(_ModePad):
    _nd, _format, _mode_name = 2, "NCHW", "circular"


class CircularPad3D(_ModePad):
    _nd, _format, _mode_name = 3, "NCDHW", "circular"


# Paddle 3.x also spells these with a lower-case d (the same classes).
ConstantPad1d, ConstantPad2d, ConstantPad3d = ConstantPad1D, ConstantPad2D, ConstantPad3D
ReflectionPad1d, ReflectionPad2d, ReflectionPad3d = ReflectionPad1D, ReflectionPad2D, ReflectionPad3D
ReplicationPad1d, ReplicationPad2d, ReplicationPad3d = ReplicationPad1D, ReplicationPad2D, ReplicationPad3D
CircularPad1d, CircularPad2d, CircularPad3d = CircularPad1D, CircularPad2D, CircularPad3D
