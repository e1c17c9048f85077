"""paddle.nn.layer.common: Linear, Embedding, Dropout, Pad, Bilinear, Upsample and the other common layers (Paddle's module path; the classes live in dy2st.nn.layers)."""
from __future__ import annotations

from ..layers import bilinear, common, dropout_variants, padding, vision
from .reexport import classes_of

_CLASSES = classes_of(common, bilinear, dropout_variants, padding, vision)
globals().update(_CLASSES)
__all__ = sorted(_CLASSES)
