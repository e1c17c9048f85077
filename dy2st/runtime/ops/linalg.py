"""Linear algebra: matmul and friends."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..dtype import dtype_name
from ..registry import Meta, apply, classified_as, register_op
from . import infer as I
from .operands import binary_operands


def _matmul_infer(x, y, transpose_x, transpose_y):
    xs, ys = x._shape, y._shape
    if len(xs) == 2 and len(ys) == 2 and not transpose_x and not transpose_y:    # the usual case
        _check_contracted(x, y, xs[1], ys[0])
        return Meta((xs[0], ys[1]), x.dtype)
    xs, ys = list(xs), list(ys)
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
    _check_contracted(x, y, xs[-1], ys[-2])
    batch = I.broadcast_shapes("matmul", xs[:-2], ys[:-2])
    out = list(batch) + [xs[-2], ys[-1]]
    if x1:
        out.pop(-2)
    if y1:
        out.pop(-1)
    return Meta(tuple(out), x.dtype)


def _check_contracted(x, y, k1: int, k2: int) -> None:
    if k1 >= 0 and k2 >= 0 and k1 != k2:
        raise ValueError(f"matmul: shapes {list(x._shape)} and {list(y._shape)} do not match "
                         f"(x's contracted dim is {k1}, y's is {k2})")


def matmul_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """np.matmul(x, y), with an x of rank > 2 against a 2-D y as one 2-D GEMM over
    all of x's rows: numpy would run one GEMM per batch index, 2x slower at [35, 8, 200] x
    [200, 800] and 5x with a transposed y (one BLAS thread)."""
    if x.ndim > 2 and y.ndim == 2 and x.size and x.shape[-1] == y.shape[0]:
        # a strided x (a transposed view) is copied first: far cheaper than the product
        rows = np.ascontiguousarray(x).reshape(-1, x.shape[-1])
        return np.matmul(rows, y).reshape(x.shape[:-1] + (y.shape[1],))
    return np.matmul(x, y)


@register_op("matmul", infer=_matmul_infer)
def _matmul_kernel(x, y, transpose_x, transpose_y):
    if transpose_x and x.ndim >= 2:
        x = np.swapaxes(x, -1, -2)
    if transpose_y and y.ndim >= 2:
        y = np.swapaxes(y, -1, -2)
    try:
        return matmul_rows(x, y)
    except ValueError:
        # Eager calls skip inference: give the same message naming both shapes.
        raise ValueError(f"matmul: shapes {list(x.shape)} and {list(y.shape)} do not match "
                         f"(transpose_x={transpose_x}, transpose_y={transpose_y})") from None


def matmul(x: Any, y: Any, transpose_x: bool = False, transpose_y: bool = False,
           name: Optional[str] = None) -> Any:
    """Matrix product with batch broadcasting; optionally transposing the last two dims."""
    x, y = binary_operands(x, y)
    return apply("matmul", [x, y], {"transpose_x": bool(transpose_x), "transpose_y": bool(transpose_y)})


def mm(input: Any, mat2: Any, name: Optional[str] = None) -> Any:
    return matmul(input, mat2)


@classified_as("bmm")
def bmm(x: Any, y: Any, name: Optional[str] = None) -> Any:
    """Batched [b, n, k] x [b, k, m] products. Under auto_cast it is a gray op, as in Paddle,
    whose white list names matmul but not bmm: it keeps its inputs' precision."""
    if x.ndim != 3 or y.ndim != 3:
        raise ValueError(f"bmm expects rank-3 inputs, got ranks {x.ndim} and {y.ndim}")
    return matmul(x, y)


# ----------------------------------------------------------------------------- dot / outer
def _dot_infer(x, y):
    xs, ys = x._shape, y._shape
    if len(xs) not in (1, 2) or len(xs) != len(ys):
        raise ValueError(f"dot: inputs must both be 1-D or both 2-D, got shapes {list(xs)} and "
                         f"{list(ys)}")
    I.broadcast_shapes("dot", xs, ys)
    if xs[-1] >= 0 and ys[-1] >= 0 and xs[-1] != ys[-1]:
        raise ValueError(f"dot: shapes {list(xs)} and {list(ys)} do not match")
    return Meta(() if len(xs) == 1 else (I.broadcast_shapes("dot", xs, ys)[0],), x.dtype)


@register_op("dot", infer=_dot_infer)
def _dot_kernel(x, y):
    return np.asarray(np.sum(x * y, axis=-1)).astype(x.dtype)


def dot(x: Any, y: Any, name: Optional[str] = None) -> Any:
    """Inner product of 1-D tensors (0-D result), or row-wise of 2-D tensors ([N] result)."""
    x, y = binary_operands(x, y)
    return apply("dot", [x, y])


def _outer_infer(x, y):
    def flat(s):
        return I.prod(s) if I.known(s) else -1
    return Meta((flat(x._shape), flat(y._shape)), x.dtype)


@register_op("outer", infer=_outer_infer)
def _outer_kernel(x, y):
    return np.outer(x, y)


def outer(x: Any, y: Any, name: Optional[str] = None) -> Any:
    """Outer product of the flattened x and y."""
    x, y = binary_operands(x, y)
    return apply("outer", [x, y])


# ----------------------------------------------------------------------------- inverse
def _inv_infer(x):
    s = x._shape
    if len(s) < 2 or (s[-1] >= 0 and s[-2] >= 0 and s[-1] != s[-2]):
        raise ValueError(f"inv: the input must be a (batch of) square matrices, got shape {list(s)}")
    if not x.dtype.is_inexact:
        raise TypeError(f"inv: the input must be float32, float64, complex64 or complex128, got "
                        f"{dtype_name(x.dtype)}")
    return Meta(s, x.dtype)


@register_op("inv", infer=_inv_infer)
def _inv_kernel(x):
    return np.linalg.inv(x).astype(x.dtype)


def inv(x: Any, name: Optional[str] = None) -> Any:
    """Inverse of a square matrix (or of each matrix in a batch)."""
    return apply("inv", [x])
