"""paddle.nn.layer.transformer: MultiHeadAttention and the Transformer layers (Paddle's module path; the classes live in dy2st.nn.layers)."""
from __future__ import annotations

from ..layers import transformer
from .reexport import classes_of

_CLASSES = classes_of(transformer)
globals().update(_CLASSES)
__all__ = sorted(_CLASSES)
