"""Activation layers: thin Layer wrappers over nn.functional."""
from __future__ import annotations

from typing import Any, Optional

from .. import functional as F
from ..layer import Layer


class ReLU(Layer):
    def __init__(self, name: Optional[str] = None) -> None:
        super().__init__()

    def forward(self, x: Any) -> Any:
        return F.relu(x)


class ReLU6(Layer):
    def __init__(self, name: Optional[str] = None) -> None:
        super().__init__()

    def forward(self, x: Any) -> Any:
        return F.relu6(x)


class LeakyReLU(Layer):
    def __init__(self, negative_slope: float = 0.01, name: Optional[str] = None) -> None:
        super().__init__()
        self._negative_slope = negative_slope

    def forward(self, x: Any) -> Any:
        return F.leaky_relu(x, self._negative_slope)

    def extra_repr(self) -> str:
        return f"negative_slope={self._negative_slope}"


class ELU(Layer):
    def __init__(self, alpha: float = 1.0, name: Optional[str] = None) -> None:
        super().__init__()
        self._alpha = alpha

    def forward(self, x: Any) -> Any:
        return F.elu(x, self._alpha)

    def extra_repr(self) -> str:
        return f"alpha={self._alpha}"


class GELU(Layer):
    def __init__(self, approximate: bool = False, name: Optional[str] = None) -> None:
        super().__init__()
        self._approximate = approximate

    def forward(self, x: Any) -> Any:
        return F.gelu(x, self._approximate)

    def extra_repr(self) -> str:
        return f"approximate={self._approximate}"


class Sigmoid(Layer):
    def __init__(self, name: Optional[str] = None) -> None:
        super().__init__()

    def forward(self, x: Any) -> Any:
        return F.sigmoid(x)


class Tanh(Layer):
    def __init__(self, name: Optional[str] = None) -> None:
        super().__init__()

    def forward(self, x: Any) -> Any:
        return F.tanh(x)


class Silu(Layer):
    def __init__(self, name: Optional[str] = None) -> None:
        super().__init__()

    def forward(self, x: Any) -> Any:
        return F.silu(x)


class Softplus(Layer):
    def __init__(self, beta: float = 1.0, threshold: float = 20.0, name: Optional[str] = None) -> None:
        super().__init__()
        self._beta, self._threshold = beta, threshold

    def forward(self, x: Any) -> Any:
        return F.softplus(x, self._beta, self._threshold)

    def extra_repr(self) -> str:
        return f"beta={self._beta}, threshold={self._threshold}"


class Softmax(Layer):
    def __init__(self, axis: int = -1, name: Optional[str] = None) -> None:
        super().__init__()
        self._axis = axis

    def forward(self, x: Any) -> Any:
        return F.softmax(x, self._axis)

    def extra_repr(self) -> str:
        return f"axis={self._axis}"


class LogSoftmax(Layer):
    def __init__(self, axis: int = -1, name: Optional[str] = None) -> None:
        super().__init__()
        self._axis = axis

    def forward(self, x: Any) -> Any:
        return F.log_softmax(x, self._axis)

    def extra_repr(self) -> str:
        return f"axis={self._axis}"


class Hardswish(Layer):
    def __init__(self, name: Optional[str] = None) -> None:
        super().__init__()

    def forward(self, x: Any) -> Any:
        return F.hardswish(x)


class Mish(Layer):
    def __init__(self, name: Optional[str] = None) -> None:
        super().__init__()

    def forward(self, x: Any) -> Any:
        return F.mish(x)
