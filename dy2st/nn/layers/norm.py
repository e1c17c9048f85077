"""Normalisation layers: LayerNorm and BatchNorm (1D/2D/3D) with running-statistics buffers."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...runtime.config import get_default_dtype
from ...runtime.tensor import Tensor
from .. import functional as F
from ..initializer import Constant
from ..layer import Layer


class LayerNorm(Layer):
    """Normalise over the trailing normalized_shape dims; weight/bias have prod(normalized_shape) values."""

    def __init__(self, normalized_shape: Any, epsilon: float = 1e-05, weight_attr: Any = None,
                 bias_attr: Any = None, name: Optional[str] = None) -> None:
        super().__init__()
        shape = [int(normalized_shape)] if isinstance(normalized_shape, int) else [int(d) for d in normalized_shape]
        self._normalized_shape = shape
        self._epsilon = epsilon
        size = [int(np.prod(shape))]
        self.weight = self.create_parameter(size, attr=weight_attr, default_initializer=Constant(1.0))
        self.bias = self.create_parameter(size, attr=bias_attr, is_bias=True)

    def forward(self, input: Any) -> Any:
        return F.layer_norm(input, self._normalized_shape, self.weight, self.bias, self._epsilon)

    def extra_repr(self) -> str:
        return f"normalized_shape={self._normalized_shape}, epsilon={self._epsilon}"


class _BatchNormBase(Layer):
    """Shared by BatchNorm1D/2D/3D: weight, bias and the `_mean` / `_variance` buffers."""

    _ranks: tuple = ()

    def __init__(self, num_features: int, momentum: float = 0.9, epsilon: float = 1e-05,
                 weight_attr: Any = None, bias_attr: Any = None, data_format: str = "NCHW",
                 use_global_stats: Optional[bool] = None, name: Optional[str] = None) -> None:
        super().__init__()
        self._num_features, self._momentum, self._epsilon = int(num_features), momentum, epsilon
        self._data_format, self._use_global_stats = data_format, use_global_stats
        self.weight = self.create_parameter([self._num_features], attr=weight_attr,
                                            default_initializer=Constant(1.0))
        self.bias = self.create_parameter([self._num_features], attr=bias_attr, is_bias=True)
        dtype = np.dtype(get_default_dtype())
        self.register_buffer("_mean", Tensor(np.zeros(self._num_features, dtype)))
        self.register_buffer("_variance", Tensor(np.ones(self._num_features, dtype)))

    def forward(self, input: Any) -> Any:
        if input.ndim not in self._ranks:
            raise ValueError(f"{type(self).__name__} expects an input of rank "
                             f"{' or '.join(map(str, self._ranks))}, got shape {list(input.shape)}")
        return F.batch_norm(input, self._mean, self._variance, self.weight, self.bias,
                            training=self.training, momentum=self._momentum, epsilon=self._epsilon,
                            data_format=self._data_format, use_global_stats=self._use_global_stats)

    def extra_repr(self) -> str:
        return (f"num_features={self._num_features}, momentum={self._momentum}, "
                f"epsilon={self._epsilon}, data_format={self._data_format}")


class BatchNorm1D(_BatchNormBase):
    """Input [N, C] or [N, C, L] ('NCL'), or [N, L, C] ('NLC')."""

    _ranks = (2, 3)

    def __init__(self, num_features: int, momentum: float = 0.9, epsilon: float = 1e-05,
                 weight_attr: Any = None, bias_attr: Any = None, data_format: str = "NCL",
                 use_global_stats: Optional[bool] = None, name: Optional[str] = None) -> None:
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format,
                         use_global_stats, name)


class BatchNorm2D(_BatchNormBase):
    """Input [N, C, H, W] ('NCHW') or [N, H, W, C] ('NHWC')."""

    _ranks = (4,)


class BatchNorm3D(_BatchNormBase):
    _ranks = (5,)

    def __init__(self, num_features: int, momentum: float = 0.9, epsilon: float = 1e-05,
                 weight_attr: Any = None, bias_attr: Any = None, data_format: str = "NCDHW",
                 use_global_stats: Optional[bool] = None, name: Optional[str] = None) -> None:
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format,
                         use_global_stats, name)
