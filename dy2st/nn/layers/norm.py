"""Normalisation layers: LayerNorm, BatchNorm (1D/2D/3D) with running-statistics buffers, and
SyncBatchNorm, whose training statistics span every process of a data-parallel job."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...runtime.config import get_default_dtype
from ...runtime.tensor import Tensor
from .. import functional as F
from ..functional.norm import normalize_batch
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
        self._weight_attr, self._bias_attr, self._name = weight_attr, bias_attr, name
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
        text = f"num_features={self._num_features}, momentum={self._momentum}, epsilon={self._epsilon}"
        if self._data_format != "NCHW":
            text += f", data_format={self._data_format}"
        return text + (f", name={self._name}" if self._name is not None else "")


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


_CHANNEL_FIRST_FORMATS = ("NC", "NCL", "NCHW", "NCDHW")
_CHANNEL_LAST_FORMATS = ("NLC", "NHWC", "NDHWC")


class SyncBatchNorm(_BatchNormBase):
    """BatchNorm whose training statistics are those of the whole batch of a data-parallel job:
    each process all-reduces its per-channel sums, sums of squares and counts, so every process
    normalises with the same mean and variance (and the backward all-reduces the two per-channel
    gradient sums). In eval mode, and in a job of one process, it is BatchNorm. Input of rank
    2 to 5, channels second ('NCHW', 'NCL', ...) or last ('NHWC', 'NLC', 'NDHWC')."""

    def __init__(self, num_features: int, momentum: float = 0.9, epsilon: float = 1e-05,
                 weight_attr: Any = None, bias_attr: Any = None, data_format: str = "NCHW",
                 name: Optional[str] = None) -> None:
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format,
                         None, name)
        # as Paddle: without a trainable scale / shift, fixed ones that take no gradient
        if weight_attr is False:
            self.weight = self.create_parameter([self._num_features],
                                                default_initializer=Constant(1.0))
            self.weight.stop_gradient = True
        if bias_attr is False:
            self.bias = self.create_parameter([self._num_features], is_bias=True)
            self.bias.stop_gradient = True

    def forward(self, x: Any) -> Any:
        if self._data_format in _CHANNEL_FIRST_FORMATS:
            last = False
        elif self._data_format in _CHANNEL_LAST_FORMATS:
            last = True
        else:
            raise ValueError("SyncBatchNorm: expected 'NCDHW', 'NDHWC', 'NCL', 'NLC', 'NC', 'NCHW', "
                             f"'NHWC' for data_format, got {self._data_format!r}")
        if not 2 <= x.ndim <= 5:
            raise ValueError(f"SyncBatchNorm expects an input of rank 2 to 5, got shape {list(x.shape)}")
        return normalize_batch(x, self._mean, self._variance, self.weight, self.bias,
                               self.training, self._momentum, self._epsilon,
                               x.ndim - 1 if last else 1, synced=True)

    @classmethod
    def convert_sync_batchnorm(cls, layer: Layer) -> Layer:
        """`layer` with every BatchNorm1D / 2D / 3D in it (itself, or any sublayer at any depth)
        replaced by a SyncBatchNorm that shares its weight, bias and running statistics."""
        out = layer
        if isinstance(layer, _BatchNormBase):
            for attr in (layer._weight_attr, layer._bias_attr):
                # the new parameters get names of their own, as in Paddle
                if attr is not None and not isinstance(attr, bool) and getattr(attr, "name", None):
                    attr.name = attr.name + "_sync"
            out = SyncBatchNorm(layer._num_features, layer._momentum, layer._epsilon,
                                layer._weight_attr, layer._bias_attr, layer._data_format,
                                layer._name)
            if layer._weight_attr is not False and layer._bias_attr is not False:
                out.weight, out.bias = layer.weight, layer.bias
            out._mean, out._variance = layer._mean, layer._variance
        for name, sub in layer.named_children():
            out.add_sublayer(name, cls.convert_sync_batchnorm(sub))
        return out
