"""Linear algebra: matmul and friends."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..registry import Meta, apply, register_op
from . import infer as I
from .operands import binary_operands


def _matmul_infer(x, y, transpose_x, transpose_y):
    xs, ys = list(x._shape), list(y._shape)
    if not xs or not ys:
        raise ValueError("matmul: inputs must have rank >= 1")
    if transpose_x and len(xs) >= 2:
        xs[-1], xs[-2] = xs[-2], xs[-1]
    if transpose_y and len(ys) >= 2:
        ys[-1], ys[-2] = ys[-2], ys[-1]
    x1, y1 = len(xs) == 1, len(ys) == 1
    if x1:
        xs = [1] + xs
    if y1:
        ys = ys + [1]
    k1, k2 = xs[-1], ys[-2]
    if k1 >= 0 and k2 >= 0 and k1 != k2:
        raise ValueError(f"matmul: shapes {list(x._shape)} and {list(y._shape)} do not match "
                         f"(x's contracted dim is {k1}, y's is {k2})")
    batch = I.broadcast_shapes("matmul", xs[:-2], ys[:-2])
    out = list(batch) + [xs[-2], ys[-1]]
    if x1:
        out.pop(-2)
    if y1:
        out.pop(-1)
    return Meta(tuple(out), x.dtype)


@register_op("matmul", infer=_matmul_infer)
def _matmul_kernel(x, y, transpose_x, transpose_y):
    if transpose_x and x.ndim >= 2:
        x = np.swapaxes(x, -1, -2)
    if transpose_y and y.ndim >= 2:
        y = np.swapaxes(y, -1, -2)
    return np.matmul(x, y)


def matmul(x: Any, y: Any, transpose_x: bool = False, transpose_y: bool = False,
           name: Optional[str] = None) -> Any:
    """Matrix product with batch broadcasting; optionally transposing the last two dims."""
    x, y = binary_operands(x, y)
    return apply("matmul", [x, y], {"transpose_x": bool(transpose_x), "transpose_y": bool(transpose_y)})


def mm(input: Any, mat2: Any, name: Optional[str] = None) -> Any:
    return matmul(input, mat2)


def bmm(x: Any, y: Any, name: Optional[str] = None) -> Any:
    if x.ndim != 3 or y.ndim != 3:
        raise ValueError(f"bmm expects rank-3 inputs, got ranks {x.ndim} and {y.ndim}")
    return matmul(x, y)
