"""paddle.nn.layer.pooling: the pooling layers (Paddle's module path; the classes live in dy2st.nn.layers)."""
from __future__ import annotations

from ..layers import pooling
from .reexport import classes_of

_CLASSES = classes_of(pooling)
globals().update(_CLASSES)
__all__ = sorted(_CLASSES)
