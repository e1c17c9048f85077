"""The XLA lowering table: every registered op has a jax lowering or is listed as not lowerable,
with the reason. The op-family modules fill the table when they are imported (xla/lowerings.py
imports them all)."""
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

