"""paddle.autograd.jacobian / hessian: Jacobian and Hessian objects over eager tensors, built row
by row with paddle.grad (create_graph for the Hessian's second derivative)."""
from __future__ import annotations

from typing import Any, Optional, Sequence, Union

import numpy as np

from ..runtime import ops
from ..runtime.tensor import Tensor
from .api import grad

__all__ = ["jacobian", "hessian", "Jacobian", "Hessian"]


def _check_batch_axis(batch_axis: Optional[int]) -> None:
    if batch_axis not in (None, 0):
        raise ValueError(f"batch_axis should be None or 0, but got {batch_axis}")


def _rows(y: Tensor, x: Tensor, batch_axis: Optional[int], create_graph: bool) -> Tensor:
    """d y / d x: shape y.shape + x.shape, or [B] + y.shape[1:] + x.shape[1:] when batched
    (entries of different batch rows are independent)."""
    if batch_axis is None:
        flat = ops.reshape(y, [-1])
        m = int(np.prod(y.shape)) if y.shape else 1
        rows = []
        for i in range(m):
            (g,) = grad(flat[i], [x], retain_graph=True, create_graph=create_graph,
                        allow_unused=True)
            rows.append(g if g is not None else ops.zeros_like(x))
        out = ops.stack(rows, axis=0) if rows else ops.zeros([0] + list(x.shape), x.dtype)
        return ops.reshape(out, list(y.shape) + list(x.shape))
    b = y.shape[0]
    flat = ops.reshape(y, [b, -1])
    m = flat.shape[1]
    rows = []
    for i in range(m):
        (g,) = grad(ops.sum(flat[:, i]), [x], retain_graph=True, create_graph=create_graph,
                    allow_unused=True)
        rows.append(g if g is not None else ops.zeros_like(x))
    out = ops.stack(rows, axis=1)                       # [B, M, *x.shape[1:]]
    return ops.reshape(out, [b] + list(y.shape[1:]) + list(x.shape[1:]))


class Jacobian:
    """d ys / d xs, computed when first indexed (`J[:]`, `J[0, :]`); `shape` is known before."""

    def __init__(self, y: Tensor, x: Tensor, batch_axis: Optional[int] = None,
                 create_graph: bool = False) -> None:
        self._y, self._x, self._batch_axis, self._create_graph = y, x, batch_axis, create_graph
        self._value: Optional[Tensor] = None
        if batch_axis is None:
            self.shape = list(y.shape) + list(x.shape)
        else:
            if not y.shape or not x.shape or y.shape[0] != x.shape[0]:
                raise ValueError(f"with batch_axis=0, ys and xs need the same first (batch) "
                                 f"dim, got {list(y.shape)} and {list(x.shape)}")
            self.shape = [y.shape[0]] + list(y.shape[1:]) + list(x.shape[1:])

    def _evaluate(self) -> Tensor:
        if self._value is None:
            self._value = _rows(self._y, self._x, self._batch_axis, self._create_graph)
        return self._value

    def __getitem__(self, indexes: Any) -> Tensor:
        return self._evaluate()[indexes]

    def numpy(self) -> np.ndarray:
        return self._evaluate().numpy()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(shape={self.shape})"


class Hessian(Jacobian):
    """d^2 ys / d xs^2 of a scalar ys (one per batch row with batch_axis=0)."""


def _pairs(ys: Any, xs: Any, make: Any) -> Any:
    y_seq, x_seq = isinstance(ys, (list, tuple)), isinstance(xs, (list, tuple))
    if y_seq and x_seq:
        return tuple(tuple(make(y, x) for x in xs) for y in ys)
    if y_seq:
        return tuple(make(y, xs) for y in ys)
    if x_seq:
        return tuple(make(ys, x) for x in xs)
    return make(ys, xs)


def jacobian(ys: Union[Tensor, Sequence[Tensor]], xs: Union[Tensor, Sequence[Tensor]],
             batch_axis: Optional[int] = None) -> Any:
    """Paddle's paddle.autograd.jacobian: a Jacobian per (y, x) pair, nested as tuples like
    ys and xs. ys must have been computed from xs with gradients recorded."""
    _check_batch_axis(batch_axis)
    return _pairs(ys, xs, lambda y, x: Jacobian(y, x, batch_axis))


def hessian(ys: Tensor, xs: Union[Tensor, Sequence[Tensor]],
            batch_axis: Optional[int] = None) -> Any:
    """Paddle's paddle.autograd.hessian of a scalar ys (shape [] or [1]; [B] or [B, 1] with
    batch_axis=0): a Hessian for xs, or a tuple of tuples for a sequence of xs."""
    _check_batch_axis(batch_axis)
    size = int(np.prod(ys.shape)) if ys.shape else 1
    if (batch_axis is None and size != 1) or (batch_axis == 0 and size != ys.shape[0]):
        raise ValueError(f"hessian: ys should be a scalar (one per batch row with "
                         f"batch_axis=0), got shape {list(ys.shape)}")
    x_list = list(xs) if isinstance(xs, (list, tuple)) else [xs]
    total = ys if batch_axis is None else ops.sum(ys)
    total = ops.reshape(total, [])
    firsts = grad(total, x_list, create_graph=True, allow_unused=True)
    firsts = [g if g is not None else ops.zeros_like(x) for g, x in zip(firsts, x_list)]
    table = tuple(tuple(Hessian(g, x, batch_axis, create_graph=False) for x in x_list)
                  for g in firsts)
    return table if isinstance(xs, (list, tuple)) else table[0][0]
