"""Torch-style names Paddle 3.x exports from paddle.nn: Module/ModuleList/ModuleDict (the Layer
containers themselves), Parameter(data, requires_grad), and Conv*d / AdaptiveMaxPool*d / LPPool*d
that take torch's argument names (bias=, return_indices=) on top of Paddle's layers."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...runtime.config import get_default_dtype
from ...runtime.tensor import Parameter as _LayerParameter, Tensor
from .. import naming
from ..layer import Layer
from .container import LayerDict, LayerList
from .conv import Conv1D, Conv2D, Conv3D, ConvNd
from .pooling import (
    AdaptiveMaxPool1D,
    AdaptiveMaxPool2D,
    AdaptiveMaxPool3D,
    AdaptivePool,
    LPPool1D,
    LPPool2D,
)

Module = Layer
ModuleList = LayerList
ModuleDict = LayerDict


class Parameter(_LayerParameter):
    """A trainable tensor made from data (a Tensor, array or nested list; None gives an empty
    float tensor). Assigned to a Layer attribute it becomes one of the layer's parameters."""

    __slots__ = ()

    def __init__(self, data: Any = None, requires_grad: bool = True) -> None:
        if data is None:
            value = np.zeros([0], dtype=get_default_dtype())
        elif isinstance(data, Tensor):
            value = np.array(data.numpy(), copy=True)
        else:
            value = np.array(data, copy=True)
            if value.dtype == np.float64 and not isinstance(data, np.ndarray):
                value = value.astype(get_default_dtype())
        super().__init__(value, name=naming.generate("parameter"), trainable=bool(requires_grad))


def _bias_attr(bias: Any, bias_attr: Any) -> Any:
    """torch's bias=False means no bias; Paddle's bias_attr, when given, wins."""
    if bias_attr is not None:
        return bias_attr
    return None if bias else False


class _TorchConv:
    """Conv*d: torch's argument list (bias=True/False) over Paddle's Conv*D (whose class sets
    _default_format)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None, *,
                 weight_attr: Any = None, bias_attr: Any = None, data_format: Optional[str] = None) -> None:
        ConvNd.__init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, groups,
                         padding_mode, weight_attr, _bias_attr(bias, bias_attr),
                         data_format or self._default_format)


class Conv1d(_TorchConv, Conv1D):
    pass


class Conv2d(_TorchConv, Conv2D):
    pass


class Conv3d(_TorchConv, Conv3D):
    pass


class _ReturnIndices:
    """AdaptiveMaxPool*d: torch's return_indices (Paddle's return_mask is accepted too)."""

    def __init__(self, output_size: Any, return_indices: bool = False, name: Optional[str] = None, *,
                 return_mask: Optional[bool] = None) -> None:
        AdaptivePool.__init__(self, output_size, return_mask=return_indices if return_mask is None else return_mask)


class AdaptiveMaxPool1d(_ReturnIndices, AdaptiveMaxPool1D):
    pass


class AdaptiveMaxPool2d(_ReturnIndices, AdaptiveMaxPool2D):
    pass


class AdaptiveMaxPool3d(_ReturnIndices, AdaptiveMaxPool3D):
    pass


class _TorchLPPool:
    """LPPool*d: torch's argument order (norm_type, kernel_size, stride, ceil_mode)."""

    _default_format = "NCL"

    def __init__(self, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False, *,
                 padding: Any = 0, data_format: Optional[str] = None, name: Optional[str] = None) -> None:
        LPPool1D.__init__(self, norm_type, kernel_size, stride, padding, ceil_mode,
                          data_format or self._default_format)


class LPPool1d(_TorchLPPool, LPPool1D):
    pass


class LPPool2d(_TorchLPPool, LPPool2D):
    _default_format = "NCHW"
