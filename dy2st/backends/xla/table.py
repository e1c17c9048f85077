"""The XLA lowering table: every registered op has a jax lowering or is listed as not lowerable,
with the reason. The op-family modules fill the table when they are imported."""
from __future__ import annotations

from typing import Callable, Dict, Optional

from ...runtime.origin import Origin

# op type -> fn(cx, *input values, **attrs) -> value or tuple of values
LOWERINGS: Dict[str, Callable] = {}
# op type -> why no XLA computation expresses it (a program using it runs on numpy)
NOT_LOWERABLE: Dict[str, str] = {}


class NotLowerable(Exception):
    """Raised while lowering: this program runs on the numpy backend instead."""

    def __init__(self, reason: str, op_type: str = "", origin: Optional[Origin] = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.op_type = op_type
        self.origin = origin


def lowers(*names: str) -> Callable:
    """Declare the decorated `fn(cx, *values, **attrs)` as the lowering of ops `names`."""
    def deco(fn: Callable) -> Callable:
        for name in names:
            if name in LOWERINGS or name in NOT_LOWERABLE:
                raise ValueError(f"op {name!r} has two XLA lowerings")
            LOWERINGS[name] = fn
        return fn
    return deco


def not_lowerable(reason: str, *names: str) -> None:
    """List ops no XLA computation can express, with why."""
    for name in names:
        if name in LOWERINGS or name in NOT_LOWERABLE:
            raise ValueError(f"op {name!r} is listed twice in the XLA table")
        NOT_LOWERABLE[name] = reason


_loaded = False


def load_table() -> None:
    """Import every op-family module (each registers its lowerings on import)."""
    global _loaded
    if _loaded:
        return
    # the families import jax: loaded when the first program compiles, never by `import dy2st`
    from . import (ops_array, ops_collective, ops_control, ops_conv, ops_creation,  # noqa: F401
                   ops_grad, ops_host,
                   ops_index, ops_linalg, ops_math, ops_nn, ops_random, ops_reduce, ops_shape)
    # the complex and FFT lowerings register on import, when the table is first needed
    from . import ops_complex, ops_fft  # noqa: F401
    from . import ops_detection  # noqa: F401 - registers the vision ops on import
    _loaded = True
