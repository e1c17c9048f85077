"""paddle.tensor.math: the functions Paddle defines in python/paddle/tensor/math.py (the same
objects as dy2st's top level; the list is in dy2st.tensor.catalog), and the
_add/_subtract/_multiply/_divide_with_axis helpers Paddle's own models call."""
from __future__ import annotations

from typing import Any, Callable, Optional

from ..runtime.ops import add, divide, multiply, reshape, subtract
from .catalog import exported

_NAMES = exported("math")
globals().update(_NAMES)
__all__ = sorted(_NAMES)


def _with_axis(x: Any, y: Any, axis: int, op: Callable[[Any, Any], Any]) -> Any:
    """op(x, y) with y's dims lined up with x's from `axis` on (fluid's elementwise broadcast);
    axis -1 is numpy broadcasting."""
    if axis == -1:
        return op(x, y)
    x_rank, y_shape = len(x.shape), list(y.shape)
    if axis < 0:
        axis += x_rank
    if not 0 <= axis <= x_rank - len(y_shape):
        raise ValueError(f"axis {axis} does not fit y of shape {y_shape} into x of shape "
                         f"{list(x.shape)}: need 0 <= axis <= {x_rank - len(y_shape)}")
    return op(x, reshape(y, [1] * axis + y_shape + [1] * (x_rank - len(y_shape) - axis)))


def _add_with_axis(x: Any, y: Any, axis: int = -1, name: Optional[str] = None) -> Any:
    """x + y, y broadcast from dim `axis` of x (Paddle's beam-search models use it)."""
    return _with_axis(x, y, axis, add)


def _subtract_with_axis(x: Any, y: Any, axis: int = -1, name: Optional[str] = None) -> Any:
    """x - y, y broadcast from dim `axis` of x."""
    return _with_axis(x, y, axis, subtract)


def _multiply_with_axis(x: Any, y: Any, axis: int = -1, name: Optional[str] = None) -> Any:
    """x * y, y broadcast from dim `axis` of x."""
    return _with_axis(x, y, axis, multiply)


def _divide_with_axis(x: Any, y: Any, axis: int = -1, name: Optional[str] = None) -> Any:
    """x / y, y broadcast from dim `axis` of x."""
    return _with_axis(x, y, axis, divide)
