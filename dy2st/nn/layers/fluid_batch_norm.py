"""nn.BatchNorm: the fluid-style batch normalisation layer (num_channels, act, data_layout, ...)."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...runtime.dtype import convert_dtype
from ...runtime.tensor import Tensor
from .. import functional as F
from ..initializer import Constant
from ..layer import Layer


class BatchNorm(Layer):
    """Batch normalisation of an input of rank 2 to 5 over its channel axis, then `act` (a name of
    an nn.functional activation). Uses the batch's statistics while training (and when
    trainable_statistics=True), the running `_mean` / `_variance` otherwise or with
    use_global_stats=True."""

    def __init__(self, num_channels: int, act: Optional[str] = None, is_test: bool = False,
                 momentum: float = 0.9, epsilon: float = 1e-05, param_attr: Any = None,
                 bias_attr: Any = None, dtype: str = "float32", data_layout: str = "NCHW",
                 in_place: bool = False, moving_mean_name: Optional[str] = None,
                 moving_variance_name: Optional[str] = None, do_model_average_for_mean_and_var: bool = True,
                 use_global_stats: bool = False, trainable_statistics: bool = False) -> None:
        super().__init__()
        if data_layout not in ("NCHW", "NHWC"):
            raise ValueError(f"BatchNorm: data_layout must be 'NCHW' or 'NHWC', got {data_layout!r}")
        if act is not None and not callable(getattr(F, act, None)):
            raise ValueError(f"BatchNorm: act must name an activation of nn.functional, got {act!r}")
        self._num_channels, self._act, self._is_test = int(num_channels), act, is_test
        self._momentum, self._epsilon, self._data_layout = momentum, epsilon, data_layout
        self._use_global_stats, self._trainable_statistics = use_global_stats, trainable_statistics
        d = convert_dtype(dtype)
        self.weight = self.create_parameter([self._num_channels], attr=param_attr, dtype=d,
                                            default_initializer=Constant(1.0))
        self.bias = self.create_parameter([self._num_channels], attr=bias_attr, dtype=d, is_bias=True)
        self.register_buffer("_mean", Tensor(np.zeros(self._num_channels, d.np)))
        self.register_buffer("_variance", Tensor(np.ones(self._num_channels, d.np)))
        # the names a fluid program gave the running statistics (kept for state_dict lookups)
        self._moving_mean_name, self._moving_variance_name = moving_mean_name, moving_variance_name

    def forward(self, input: Any) -> Any:
        if not 2 <= input.ndim <= 5:
            raise ValueError(f"BatchNorm expects an input of rank 2 to 5, got shape {list(input.shape)}")
        use_batch = (self.training and not self._is_test) or self._trainable_statistics
        fmt = "NHWC" if self._data_layout == "NHWC" else "NCHW"
        out = F.batch_norm(input, self._mean, self._variance, self.weight, self.bias, training=use_batch,
                           momentum=self._momentum, epsilon=self._epsilon, data_format=fmt,
                           use_global_stats=True if self._use_global_stats else None)
        return getattr(F, self._act)(out) if self._act else out

    def extra_repr(self) -> str:
        act = f", act={self._act}" if self._act else ""
        return f"num_channels={self._num_channels}, epsilon={self._epsilon}, data_layout={self._data_layout}{act}"
