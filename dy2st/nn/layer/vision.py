"""paddle.nn.layer.vision: PixelShuffle, ChannelShuffle and the other vision layers (Paddle's module path; the classes live in dy2st.nn.layers)."""
from __future__ import annotations

from ..layers import vision
from .reexport import classes_of

_CLASSES = classes_of(vision)
globals().update(_CLASSES)
__all__ = sorted(_CLASSES)
