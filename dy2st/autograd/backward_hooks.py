"""Callbacks run after each `backward()` (eager, or traced inside a to_static train step): what
a higher layer does with the gradients once they are all there (DataParallel averages them
across processes)."""
from __future__ import annotations

from typing import Callable, List

_after_backward: List[Callable[[], None]] = []


def register_after_backward(fn: Callable[[], None]) -> None:
    """Run `fn()` after every backward() (once; registering it again does nothing)."""
    if fn not in _after_backward:
        _after_backward.append(fn)


def run_after_backward() -> None:
    for fn in list(_after_backward):
        fn()
