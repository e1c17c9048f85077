"""paddle.nn.layer.conv: the convolution layers (Paddle's module path; the classes live in dy2st.nn.layers)."""
from __future__ import annotations

from ..layers import conv
from .reexport import classes_of

_CLASSES = classes_of(conv)
globals().update(_CLASSES)
__all__ = sorted(_CLASSES)
