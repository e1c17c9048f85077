"""paddle.static.amp names that model code calls in its forward: fp16_guard marks the ops Paddle's
static O2 mixed precision may cast when `use_fp16_guard` is set; outside such a program (and in
dy2st, whose precision policy is paddle.amp.auto_cast) the block runs unchanged."""
from __future__ import annotations

import contextlib
from typing import Iterator

__all__ = ["fp16_guard"]


@contextlib.contextmanager
def fp16_guard() -> Iterator[None]:
    """A block whose ops static O2 mixed precision may run in float16; its values and gradients
    are those of the block run directly."""
    yield
