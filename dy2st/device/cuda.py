"""paddle.device.cuda: the CUDA queries Paddle code asks before choosing its CPU path; dy2st has
no CUDA devices, so counts are 0 and waiting or emptying caches does nothing."""
from __future__ import annotations

from typing import Any

__all__ = ["device_count", "synchronize", "empty_cache", "is_available"]


def device_count() -> int:
    """The number of CUDA devices: 0."""
    return 0


def is_available() -> bool:
    return False


def synchronize(device: Any = None) -> None:
    """Nothing to wait for without CUDA."""


def empty_cache() -> None:
    """No CUDA memory is cached."""
