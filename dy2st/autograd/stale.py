"""Inputs of a recorded op that were changed in place before backward: the VJP rule gets a
stand-in that keeps the shape and dtype but refuses any read of the values, so backward fails
exactly when the rule needs the old values (`g.subtract_(g * 2.0)` works, as in Paddle)."""
from __future__ import annotations

from typing import Any, NoReturn, Tuple

import numpy as np

from ..runtime.tensor import Tensor
from .rules import GradientError

_LIKE = (np.zeros_like, np.ones_like, np.empty_like, np.full_like)


class StaleValue:
    """The array of a changed input as a VJP rule sees it: metadata only."""

    __slots__ = ("shape", "dtype", "ndim", "size", "_message")

    def __init__(self, array: Any, message: str) -> None:
        self.shape: Tuple[int, ...] = tuple(array.shape)
        self.dtype = array.dtype
        self.ndim = len(self.shape)
        self.size = int(array.size)
        self._message = message

    def _refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise GradientError(self._message)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        # np.zeros_like(x) and the like read only the metadata: answered from it
        if func in _LIKE:
            blank = np.empty(self.shape, self.dtype)
            return func(*[blank if a is self else a for a in args], **kwargs)
        raise GradientError(self._message)

    # numpy asks these before computing with the object: each read of the values ends here
    __array__ = __array_ufunc__ = _refuse
    __getitem__ = __iter__ = __len__ = __float__ = __int__ = __bool__ = __index__ = _refuse
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _refuse
    __truediv__ = __rtruediv__ = __matmul__ = __rmatmul__ = __pow__ = __rpow__ = _refuse
    __neg__ = __abs__ = __lt__ = __le__ = __gt__ = __ge__ = _refuse

    def __getattr__(self, name: str) -> Any:
        raise GradientError(self._message)


def stand_in(t: Tensor, message: str) -> Tensor:
    """A tensor like `t` (same gradient links) whose values refuse to be read."""
    out = Tensor.__new__(type(t)) if isinstance(t, Tensor) else Tensor.__new__(Tensor)
    for slot in ("stop_gradient", "name", "persistable", "trainable", "_node", "_out_index",
                 "_version"):
        if hasattr(t, slot):
            setattr(out, slot, getattr(t, slot))
    out._value = StaleValue(t._value, message)
    return out
