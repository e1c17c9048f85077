"""The rest of Paddle's activation layers, thin wrappers over nn.functional."""
from __future__ import annotations

from typing import Any, Optional

from .. import functional as F
from ..initializer import Constant
from ..layer import Layer
from .activation import Silu


class _Activation(Layer):
    """An activation with fixed keyword arguments (shown by repr)."""

    _fn: Any = None

    def __init__(self, **kwargs: Any) -> None:
        super().__init__()
        self._kwargs = kwargs

    def forward(self, x: Any) -> Any:
        return type(self)._fn(x, **self._kwargs)

    def extra_repr(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self._kwargs.items())


class CELU(_Activation):
    _fn = F.celu

    def __init__(self, alpha: float = 1.0, name: Optional[str] = None) -> None:
        super().__init__(alpha=alpha)


class GLU(_Activation):
    _fn = F.glu

    def __init__(self, axis: int = -1, name: Optional[str] = None) -> None:
        super().__init__(axis=axis)


class Hardshrink(_Activation):
    _fn = F.hardshrink

    def __init__(self, threshold: float = 0.5, name: Optional[str] = None) -> None:
        super().__init__(threshold=threshold)


class Softshrink(_Activation):
    _fn = F.softshrink

    def __init__(self, threshold: float = 0.5, name: Optional[str] = None) -> None:
        super().__init__(threshold=threshold)


class Hardsigmoid(_Activation):
    _fn = F.hardsigmoid

    def __init__(self, name: Optional[str] = None) -> None:
        super().__init__()


class Hardtanh(_Activation):
    _fn = F.hardtanh

    def __init__(self, min: float = -1.0, max: float = 1.0, name: Optional[str] = None) -> None:
        super().__init__(min=min, max=max)


class LogSigmoid(_Activation):
    _fn = F.log_sigmoid

    def __init__(self, name: Optional[str] = None) -> None:
        super().__init__()


class Maxout(_Activation):
    _fn = F.maxout

    def __init__(self, groups: int, axis: int = 1, name: Optional[str] = None) -> None:
        super().__init__(groups=groups, axis=axis)


class SELU(_Activation):
    _fn = F.selu

    def __init__(self, scale: float = 1.0507009873554804934193349852946,
                 alpha: float = 1.6732632423543772848170429916717, name: Optional[str] = None) -> None:
        super().__init__(scale=scale, alpha=alpha)


class Softsign(_Activation):
    _fn = F.softsign

    def __init__(self, name: Optional[str] = None) -> None:
        super().__init__()


class Swish(_Activation):
    _fn = F.swish

    def __init__(self, name: Optional[str] = None) -> None:
        super().__init__()


class Tanhshrink(_Activation):
    _fn = F.tanhshrink

    def __init__(self, name: Optional[str] = None) -> None:
        super().__init__()


class ThresholdedReLU(_Activation):
    _fn = F.thresholded_relu

    def __init__(self, threshold: float = 1.0, value: float = 0.0, name: Optional[str] = None) -> None:
        super().__init__(threshold=threshold, value=value)


class Softmax2D(Layer):
    """softmax over the channel axis of a [C, H, W] or [N, C, H, W] input."""

    def __init__(self, name: Optional[str] = None) -> None:
        super().__init__()

    def forward(self, x: Any) -> Any:
        if x.ndim not in (3, 4):
            raise ValueError(f"Softmax2D expects a 3-D or 4-D input, got shape {list(x.shape)}")
        return F.softmax(x, axis=-3)


class RReLU(Layer):
    """Random negative slopes in U(lower, upper) while training; their mean in eval mode."""

    def __init__(self, lower: float = 1.0 / 8.0, upper: float = 1.0 / 3.0, name: Optional[str] = None) -> None:
        super().__init__()
        self._lower, self._upper = lower, upper

    def forward(self, x: Any) -> Any:
        return F.rrelu(x, self._lower, self._upper, training=self.training)

    def extra_repr(self) -> str:
        return f"lower={self._lower}, upper={self._upper}"


class PReLU(Layer):
    """max(0, x) + weight * min(0, x) with num_parameters learned slopes (1 or one per channel)."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, weight_attr: Any = None,
                 data_format: str = "NCHW", name: Optional[str] = None) -> None:
        super().__init__()
        self._num_parameters, self._init, self._data_format = int(num_parameters), init, data_format
        # Paddle names this parameter `_weight` (state_dict key "_weight")
        self._weight = self.create_parameter([self._num_parameters], attr=weight_attr,
                                            default_initializer=Constant(init))

    def forward(self, x: Any) -> Any:
        return F.prelu(x, self._weight, data_format=self._data_format)

    def extra_repr(self) -> str:
        return f"num_parameters={self._num_parameters}, data_format={self._data_format}, init={self._init}"


SiLU = Silu
