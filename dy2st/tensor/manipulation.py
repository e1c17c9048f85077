"""paddle.tensor.manipulation: the functions Paddle defines in python/paddle/tensor/manipulation.py (the same
objects as dy2st's top level; the list is in dy2st.tensor.catalog)."""
from __future__ import annotations

from .catalog import exported

_NAMES = exported("manipulation")
globals().update(_NAMES)
__all__ = sorted(_NAMES)
