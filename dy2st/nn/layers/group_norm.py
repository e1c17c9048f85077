"""GroupNorm, InstanceNorm1D/2D/3D and LocalResponseNorm layers."""
from __future__ import annotations

from typing import Any, Optional

from .. import functional as F
from ..initializer import Constant
from ..layer import Layer


class GroupNorm(Layer):
    """Normalise over num_groups groups of channels; weight/bias [num_channels] (attr=False: none)."""

    def __init__(self, num_groups: int, num_channels: int, epsilon: float = 1e-05, weight_attr: Any = None,
                 bias_attr: Any = None, data_format: str = "NCHW", name: Optional[str] = None) -> None:
        super().__init__()
        if num_channels % num_groups:
            raise ValueError(f"GroupNorm: num_channels ({num_channels}) must be divisible by "
                             f"num_groups ({num_groups})")
        self._num_groups, self._num_channels = int(num_groups), int(num_channels)
        self._epsilon, self._data_format = epsilon, data_format
        self.weight = self.create_parameter([self._num_channels], attr=weight_attr,
                                            default_initializer=Constant(1.0))
        self.bias = self.create_parameter([self._num_channels], attr=bias_attr, is_bias=True)

    def forward(self, input: Any) -> Any:
        return F.group_norm(input, self._num_groups, self._epsilon, self.weight, self.bias, self._data_format)

    def extra_repr(self) -> str:
        return f"num_groups={self._num_groups}, num_channels={self._num_channels}, epsilon={self._epsilon}"


class _InstanceNorm(Layer):
    _ranks: tuple = ()

    def __init__(self, num_features: int, epsilon: float = 1e-05, momentum: float = 0.9,
                 weight_attr: Any = None, bias_attr: Any = None, data_format: str = "NCHW",
                 name: Optional[str] = None) -> None:
        super().__init__()
        self._num_features, self._epsilon, self._momentum = int(num_features), epsilon, momentum
        self._data_format = data_format
        self.scale = self.bias = None
        if weight_attr is not False or bias_attr is not False:
            self.scale = self.create_parameter([self._num_features], attr=weight_attr,
                                               default_initializer=Constant(1.0))
            self.bias = self.create_parameter([self._num_features], attr=bias_attr, is_bias=True)

    def forward(self, input: Any) -> Any:
        if input.ndim not in self._ranks:
            raise ValueError(f"{type(self).__name__} expects an input of rank "
                             f"{' or '.join(map(str, self._ranks))}, got shape {list(input.shape)}")
        return F.instance_norm(input, weight=self.scale, bias=self.bias, eps=self._epsilon,
                               data_format=self._data_format)

    def extra_repr(self) -> str:
        return f"num_features={self._num_features}, epsilon={self._epsilon}"


class InstanceNorm1D(_InstanceNorm):
    _ranks = (2, 3)

    def __init__(self, num_features: int, epsilon: float = 1e-05, momentum: float = 0.9,
                 weight_attr: Any = None, bias_attr: Any = None, data_format: str = "NCL",
                 name: Optional[str] = None) -> None:
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr, data_format, name)


class InstanceNorm2D(_InstanceNorm):
    _ranks = (4,)


class InstanceNorm3D(_InstanceNorm):
    _ranks = (5,)

    def __init__(self, num_features: int, epsilon: float = 1e-05, momentum: float = 0.9,
                 weight_attr: Any = None, bias_attr: Any = None, data_format: str = "NCDHW",
                 name: Optional[str] = None) -> None:
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr, data_format, name)


class LocalResponseNorm(Layer):
    def __init__(self, size: int, alpha: float = 0.0001, beta: float = 0.75, k: float = 1.0,
                 data_format: str = "NCHW", name: Optional[str] = None) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k, self.data_format = size, alpha, beta, k, data_format

    def forward(self, input: Any) -> Any:
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k, self.data_format)

    def extra_repr(self) -> str:
        return f"size={self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
