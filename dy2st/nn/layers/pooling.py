"""Pooling layers: MaxPool/AvgPool 1D-3D and the adaptive forms, thin wrappers over functional."""
from __future__ import annotations

from typing import Any, Optional

from .. import functional as F
from ..layer import Layer


class MaxPool1D(Layer):
    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, return_mask: bool = False,
                 ceil_mode: bool = False, name: Optional[str] = None) -> None:
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.return_mask, self.ceil_mode = return_mask, ceil_mode

    def forward(self, x: Any) -> Any:
        return F.max_pool1d(x, self.ksize, self.stride, self.padding, self.return_mask, self.ceil_mode)

    def extra_repr(self) -> str:
        return f"kernel_size={self.ksize}, stride={self.stride}, padding={self.padding}"


class MaxPool2D(Layer):
    _fn = staticmethod(F.max_pool2d)

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, return_mask: bool = False,
                 ceil_mode: bool = False, data_format: str = "NCHW", name: Optional[str] = None) -> None:
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.return_mask, self.ceil_mode, self.data_format = return_mask, ceil_mode, data_format

    def forward(self, x: Any) -> Any:
        return self._fn(x, self.ksize, self.stride, self.padding, self.return_mask, self.ceil_mode,
                        self.data_format)

    def extra_repr(self) -> str:
        return f"kernel_size={self.ksize}, stride={self.stride}, padding={self.padding}"


class MaxPool3D(MaxPool2D):
    _fn = staticmethod(F.max_pool3d)

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, return_mask: bool = False,
                 ceil_mode: bool = False, data_format: str = "NCDHW", name: Optional[str] = None) -> None:
        super().__init__(kernel_size, stride, padding, return_mask, ceil_mode, data_format)


class AvgPool1D(Layer):
    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, exclusive: bool = True,
                 ceil_mode: bool = False, name: Optional[str] = None) -> None:
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.exclusive, self.ceil_mode = exclusive, ceil_mode

    def forward(self, x: Any) -> Any:
        return F.avg_pool1d(x, self.ksize, self.stride, self.padding, self.exclusive, self.ceil_mode)

    def extra_repr(self) -> str:
        return f"kernel_size={self.ksize}, stride={self.stride}, padding={self.padding}"


class AvgPool2D(Layer):
    _fn = staticmethod(F.avg_pool2d)

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
                 exclusive: bool = True, divisor_override: Any = None, data_format: str = "NCHW",
                 name: Optional[str] = None) -> None:
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.exclusive, self.divisor = ceil_mode, exclusive, divisor_override
        self.data_format = data_format

    def forward(self, x: Any) -> Any:
        return self._fn(x, self.ksize, self.stride, self.padding, self.ceil_mode, self.exclusive,
                        self.divisor, self.data_format)

    def extra_repr(self) -> str:
        return f"kernel_size={self.ksize}, stride={self.stride}, padding={self.padding}"


class AvgPool3D(AvgPool2D):
    _fn = staticmethod(F.avg_pool3d)

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
                 exclusive: bool = True, divisor_override: Any = None, data_format: str = "NCDHW",
                 name: Optional[str] = None) -> None:
        super().__init__(kernel_size, stride, padding, ceil_mode, exclusive, divisor_override, data_format)


class AdaptivePool(Layer):
    def __init__(self, output_size: Any, data_format: Optional[str] = None, return_mask: bool = False) -> None:
        super().__init__()
        self._output_size, self._data_format, self._return_mask = output_size, data_format, return_mask

    def extra_repr(self) -> str:
        return f"output_size={self._output_size}"


class AdaptiveAvgPool1D(AdaptivePool):
    def __init__(self, output_size: Any, name: Optional[str] = None) -> None:
        super().__init__(output_size)

    def forward(self, input: Any) -> Any:
        return F.adaptive_avg_pool1d(input, self._output_size)


class AdaptiveAvgPool2D(AdaptivePool):
    def __init__(self, output_size: Any, data_format: str = "NCHW", name: Optional[str] = None) -> None:
        super().__init__(output_size, data_format)

    def forward(self, x: Any) -> Any:
        return F.adaptive_avg_pool2d(x, self._output_size, self._data_format)


class AdaptiveAvgPool3D(AdaptivePool):
    def __init__(self, output_size: Any, data_format: str = "NCDHW", name: Optional[str] = None) -> None:
        super().__init__(output_size, data_format)

    def forward(self, x: Any) -> Any:
        return F.adaptive_avg_pool3d(x, self._output_size, self._data_format)


class AdaptiveMaxPool1D(AdaptivePool):
    def __init__(self, output_size: Any, return_mask: bool = False, name: Optional[str] = None) -> None:
        super().__init__(output_size, return_mask=return_mask)

    def forward(self, input: Any) -> Any:
        return F.adaptive_max_pool1d(input, self._output_size, self._return_mask)


class AdaptiveMaxPool2D(AdaptivePool):
    def __init__(self, output_size: Any, return_mask: bool = False, name: Optional[str] = None) -> None:
        super().__init__(output_size, return_mask=return_mask)

    def forward(self, x: Any) -> Any:
        return F.adaptive_max_pool2d(x, self._output_size, self._return_mask)


class AdaptiveMaxPool3D(AdaptivePool):
    def __init__(self, output_size: Any, return_mask: bool = False, name: Optional[str] = None) -> None:
        super().__init__(output_size, return_mask=return_mask)

    def forward(self, x: Any) -> Any:
        return F.adaptive_max_pool3d(x, self._output_size, self._return_mask)


class _MaxUnPool(Layer):
    _fn: Any = None

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, data_format: str = "NCHW",
                 output_size: Any = None, name: Optional[str] = None) -> None:
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.data_format, self.output_size = data_format, output_size

    def forward(self, x: Any, indices: Any) -> Any:
        return type(self)._fn(x, indices, self.ksize, self.stride, self.padding, self.data_format,
                              self.output_size)

    def extra_repr(self) -> str:
        return f"kernel_size={self.ksize}, stride={self.stride}, padding={self.padding}"


class MaxUnPool1D(_MaxUnPool):
    _fn = F.max_unpool1d

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, data_format: str = "NCL",
                 output_size: Any = None, name: Optional[str] = None) -> None:
        super().__init__(kernel_size, stride, padding, data_format, output_size)


class MaxUnPool2D(_MaxUnPool):
    _fn = F.max_unpool2d


class MaxUnPool3D(_MaxUnPool):
    _fn = F.max_unpool3d

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, data_format: str = "NCDHW",
                 output_size: Any = None, name: Optional[str] = None) -> None:
        super().__init__(kernel_size, stride, padding, data_format, output_size)


class LPPool1D(Layer):
    _fn = staticmethod(F.lp_pool1d)

    def __init__(self, norm_type: float, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 ceil_mode: bool = False, data_format: str = "NCL", name: Optional[str] = None) -> None:
        super().__init__()
        self.norm_type, self.ksize, self.stride, self.padding = norm_type, kernel_size, stride, padding
        self.ceil_mode, self.data_format = ceil_mode, data_format

    def forward(self, x: Any) -> Any:
        return self._fn(x, self.norm_type, self.ksize, self.stride, self.padding, self.ceil_mode, self.data_format)

    def extra_repr(self) -> str:
        return f"norm_type={self.norm_type}, kernel_size={self.ksize}, stride={self.stride}"


class LPPool2D(LPPool1D):
    _fn = staticmethod(F.lp_pool2d)

    def __init__(self, norm_type: float, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 ceil_mode: bool = False, data_format: str = "NCHW", name: Optional[str] = None) -> None:
        super().__init__(norm_type, kernel_size, stride, padding, ceil_mode, data_format)


class FractionalMaxPool2D(Layer):
    _fn = staticmethod(F.fractional_max_pool2d)

    def __init__(self, output_size: Any, kernel_size: Any = None, random_u: Any = None,
                 return_mask: bool = False, name: Optional[str] = None) -> None:
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.random_u, self.return_mask = random_u, return_mask

    def forward(self, x: Any) -> Any:
        return self._fn(x, self.output_size, self.kernel_size, self.random_u, self.return_mask)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}, kernel_size={self.kernel_size}, random_u={self.random_u}"


class FractionalMaxPool3D(FractionalMaxPool2D):
    _fn = staticmethod(F.fractional_max_pool3d)
