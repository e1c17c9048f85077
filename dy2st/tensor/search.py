"""paddle.tensor.search: the functions Paddle defines in python/paddle/tensor/search.py (the same
objects as dy2st's top level; the list is in dy2st.tensor.catalog)."""
from __future__ import annotations

from .catalog import exported

_NAMES = exported("search")
globals().update(_NAMES)
__all__ = sorted(_NAMES)
