"""The dims of an eager Tensor or a symbolic Variable as a tuple (-1 for an unknown dim)."""
from __future__ import annotations

from typing import Any, Tuple


def dims(t: Any) -> Tuple[int, ...]:
    """Known dims as ints and unknown ones as -1, without adding ops to a program."""
    shape = getattr(t, "_shape", None)
    if shape is not None:
        return tuple(shape)
    return tuple(t._value.shape)
