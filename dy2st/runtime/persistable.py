"""Writing a new value into a persistable tensor (a parameter, an optimizer moment, a running
statistic): at once in eager mode, or, while a Program is built, when the program runs."""
from __future__ import annotations

from typing import Any

import numpy as np

from . import state
from .tensor import Tensor


def write_persistable(target: Tensor, value: Any) -> None:
    """`target` takes `value` (same shape; cast to target's dtype). In eager mode the tensor's
    array is replaced (never written into, so arrays saved for backward keep their values). While
    a Program is built, the write is recorded in the Program: it happens after each run, and later
    ops of the same trace that read `target` see the new value."""
    if not isinstance(target, Tensor):
        raise TypeError(f"write_persistable: the target must be an eager Tensor, got "
                        f"{type(target).__name__}")
    if not state.build_state.blocks:
        store(target, value._value if isinstance(value, Tensor) else np.asarray(value))
        return
    state.current_block().program.record_persistable_write(target, value)


def store(target: Tensor, arr: np.ndarray) -> None:
    """Replace target's array by `arr` now (a static run's result being written back)."""
    if arr.shape != target._value.shape:
        raise ValueError(f"cannot write a value of shape {list(arr.shape)} into "
                         f"{target.name or 'a tensor'} of shape {target.shape}")
    target._value = arr.astype(target._value.dtype, copy=False)
    target._version = getattr(target, "_version", 0) + 1
