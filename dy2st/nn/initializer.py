"""Parameter initializers (Constant, Normal, Uniform, Xavier*, Kaiming*), drawing from dy2st's seeded RNG.

An initializer is called on a Parameter (filling it in place, like Paddle) or asked for an array."""
from __future__ import annotations

import math
from typing import Any, Optional, Sequence, Tuple

import numpy as np

from ..runtime.config import get_default_dtype, rng
from ..runtime.dtype import convert_dtype

__all__ = ["Initializer", "Constant", "Normal", "Uniform", "TruncatedNormal", "XavierUniform",
           "XavierNormal", "KaimingUniform", "KaimingNormal", "Assign", "calculate_gain"]


def compute_fans(shape: Sequence[int]) -> Tuple[int, int]:
    """(fan_in, fan_out) with Paddle's convention: a Linear weight is [in, out], a conv's [out, in, k...]."""
    shape = list(shape)
    if not shape:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = int(np.prod(shape[2:]))
    return shape[1] * receptive, shape[0] * receptive


def calculate_gain(nonlinearity: str, param: Optional[float] = None) -> float:
    """The recommended gain for an activation, as in paddle.nn.initializer.calculate_gain."""
    gains = {"sigmoid": 1.0, "linear": 1.0, "conv1d": 1.0, "conv2d": 1.0, "conv3d": 1.0,
             "conv1d_transpose": 1.0, "conv2d_transpose": 1.0, "conv3d_transpose": 1.0,
             "tanh": 5.0 / 3, "relu": math.sqrt(2.0), "selu": 3.0 / 4}
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity not in gains:
        raise ValueError(f"calculate_gain: unknown nonlinearity {nonlinearity!r}")
    return gains[nonlinearity]


class Initializer:
    """Base class: subclasses implement `generate(shape, dtype) -> np.ndarray`."""

    def generate(self, shape: Sequence[int], dtype: Any) -> np.ndarray:
        raise NotImplementedError

    def __call__(self, param: Any, block: Any = None) -> Any:
        """Fill `param` (a Tensor or Parameter) in place and return it."""
        param._value = self.generate(param.shape, param.dtype)
        return param

    @staticmethod
    def _np_dtype(dtype: Any) -> np.dtype:
        return convert_dtype(dtype if dtype is not None else get_default_dtype()).np


class Constant(Initializer):
    def __init__(self, value: float = 0.0) -> None:
        self.value = value

    def generate(self, shape: Sequence[int], dtype: Any) -> np.ndarray:
        return np.full(list(shape), self.value, dtype=self._np_dtype(dtype))


class Normal(Initializer):
    def __init__(self, mean: float = 0.0, std: float = 1.0, name: Optional[str] = None) -> None:
        self.mean, self.std = mean, std

    def generate(self, shape: Sequence[int], dtype: Any) -> np.ndarray:
        return rng().normal(self.mean, self.std, size=list(shape)).astype(self._np_dtype(dtype))


class TruncatedNormal(Initializer):
    """Normal values redrawn until they fall within [a, b] (default mean ± 2 std)."""

    def __init__(self, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                 name: Optional[str] = None) -> None:
        self.mean, self.std, self.a, self.b = mean, std, a, b

    def generate(self, shape: Sequence[int], dtype: Any) -> np.ndarray:
        lo, hi = self.mean + self.a * self.std, self.mean + self.b * self.std
        out = rng().normal(self.mean, self.std, size=list(shape))
        bad = (out < lo) | (out > hi)
        while bad.any():        # rejection sampling keeps the truncated normal's exact shape
            out[bad] = rng().normal(self.mean, self.std, size=int(bad.sum()))
            bad = (out < lo) | (out > hi)
        return out.astype(self._np_dtype(dtype))


class Uniform(Initializer):
    def __init__(self, low: float = -1.0, high: float = 1.0, name: Optional[str] = None) -> None:
        if low > high:
            raise ValueError(f"Uniform: low ({low}) must not exceed high ({high})")
        self.low, self.high = low, high

    def generate(self, shape: Sequence[int], dtype: Any) -> np.ndarray:
        return rng().uniform(self.low, self.high, size=list(shape)).astype(self._np_dtype(dtype))


def _fans(init: Any, shape: Sequence[int]):
    """(fan_in, fan_out) of shape, unless the Xavier initializer was given them."""
    fi, fo = compute_fans(shape)
    return (init.fan_in if init.fan_in is not None else fi,
            init.fan_out if init.fan_out is not None else fo)


class XavierUniform(Initializer):
    """U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out))."""

    def __init__(self, fan_in: Optional[float] = None, fan_out: Optional[float] = None,
                 gain: float = 1.0, name: Optional[str] = None) -> None:
        self.fan_in, self.fan_out, self.gain = fan_in, fan_out, gain

    def generate(self, shape: Sequence[int], dtype: Any) -> np.ndarray:
        fi, fo = _fans(self, shape)
        limit = self.gain * math.sqrt(6.0 / float(fi + fo))
        return rng().uniform(-limit, limit, size=list(shape)).astype(self._np_dtype(dtype))


class XavierNormal(Initializer):
    """N(0, std) with std = gain * sqrt(2 / (fan_in + fan_out))."""

    def __init__(self, fan_in: Optional[float] = None, fan_out: Optional[float] = None,
                 gain: float = 1.0, name: Optional[str] = None) -> None:
        self.fan_in, self.fan_out, self.gain = fan_in, fan_out, gain

    def generate(self, shape: Sequence[int], dtype: Any) -> np.ndarray:
        fi, fo = _fans(self, shape)
        std = self.gain * math.sqrt(2.0 / float(fi + fo))
        return rng().normal(0.0, std, size=list(shape)).astype(self._np_dtype(dtype))


class KaimingUniform(Initializer):
    """U(-a, a) with a = gain * sqrt(3 / fan_in), gain from the nonlinearity (He et al.)."""

    def __init__(self, fan_in: Optional[float] = None, negative_slope: float = 0.0,
                 nonlinearity: str = "relu", name: Optional[str] = None) -> None:
        self.fan_in, self.negative_slope, self.nonlinearity = fan_in, negative_slope, nonlinearity

    def generate(self, shape: Sequence[int], dtype: Any) -> np.ndarray:
        fi = self.fan_in if self.fan_in is not None else compute_fans(shape)[0]
        gain = calculate_gain(self.nonlinearity, self.negative_slope)
        limit = gain * math.sqrt(3.0 / float(fi))
        return rng().uniform(-limit, limit, size=list(shape)).astype(self._np_dtype(dtype))


class KaimingNormal(Initializer):
    """N(0, std) with std = gain / sqrt(fan_in)."""

    def __init__(self, fan_in: Optional[float] = None, negative_slope: float = 0.0,
                 nonlinearity: str = "relu", name: Optional[str] = None) -> None:
        self.fan_in, self.negative_slope, self.nonlinearity = fan_in, negative_slope, nonlinearity

    def generate(self, shape: Sequence[int], dtype: Any) -> np.ndarray:
        fi = self.fan_in if self.fan_in is not None else compute_fans(shape)[0]
        std = calculate_gain(self.nonlinearity, self.negative_slope) / math.sqrt(float(fi))
        return rng().normal(0.0, std, size=list(shape)).astype(self._np_dtype(dtype))


class Assign(Initializer):
    """Initialise from given values (a numpy array, list or Tensor) of the parameter's shape."""

    def __init__(self, value: Any, name: Optional[str] = None) -> None:
        self.value = np.asarray(value.numpy() if hasattr(value, "numpy") else value)

    def generate(self, shape: Sequence[int], dtype: Any) -> np.ndarray:
        if list(self.value.shape) != list(shape):
            raise ValueError(f"Assign initializer: value has shape {list(self.value.shape)}, "
                             f"the parameter has shape {list(shape)}")
        return self.value.astype(self._np_dtype(dtype), copy=True)
