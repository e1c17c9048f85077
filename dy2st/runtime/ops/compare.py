"""Closeness and whole-tensor comparisons: isclose, allclose, equal_all."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..dtype import bool_
from ..registry import Meta, apply, register_op
from . import infer as I
from .operands import binary_operands


def _isclose_infer(x, y, rtol, atol, equal_nan):
    return Meta(I.broadcast_shapes("isclose", x._shape, y._shape), bool_)


@register_op("isclose", infer=_isclose_infer)
def _isclose_kernel(x, y, rtol, atol, equal_nan):
    return np.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan)


def _allclose_infer(x, y, rtol, atol, equal_nan):
    I.broadcast_shapes("allclose", x._shape, y._shape)
    return Meta((), bool_)


@register_op("allclose", infer=_allclose_infer)
def _allclose_kernel(x, y, rtol, atol, equal_nan):
    return np.array(np.allclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan))


def isclose(x: Any, y: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False,
            name: Optional[str] = None) -> Any:
    """|x - y| <= atol + rtol * |y|, elementwise."""
    x, y = binary_operands(x, y)
    return apply("isclose", [x, y], {"rtol": float(rtol), "atol": float(atol),
                                     "equal_nan": bool(equal_nan)})


def allclose(x: Any, y: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False,
             name: Optional[str] = None) -> Any:
    """Whether isclose holds everywhere, as a 0-d bool tensor."""
    x, y = binary_operands(x, y)
    return apply("allclose", [x, y], {"rtol": float(rtol), "atol": float(atol),
                                      "equal_nan": bool(equal_nan)})


@register_op("equal_all", infer=lambda x, y: Meta((), bool_))
def _equal_all_kernel(x, y):
    # Unlike `equal`, different shapes are not an error: the tensors are simply not equal.
    return np.array(x.shape == y.shape and bool(np.all(x == y)))


def equal_all(x: Any, y: Any, name: Optional[str] = None) -> Any:
    """True when x and y have the same shape and values (a 0-d bool tensor)."""
    x, y = binary_operands(x, y)
    return apply("equal_all", [x, y])
