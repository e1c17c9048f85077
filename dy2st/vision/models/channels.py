"""The channel rounding MobileNet V2 / V3 use for scaled widths."""
from __future__ import annotations

from typing import Optional


def make_divisible(v: float, divisor: int = 8, min_value: Optional[int] = None) -> int:
    """`v` rounded to the nearest multiple of `divisor`, never below `min_value` (default
    `divisor`) nor more than 10% below `v` (Paddle's and the MobileNet papers' rule)."""
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v
