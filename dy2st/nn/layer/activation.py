"""paddle.nn.layer.activation: the activation layers (Paddle's module path; the classes live in dy2st.nn.layers)."""
from __future__ import annotations

from ..layers import activation, activation_extra
from .reexport import classes_of

_CLASSES = classes_of(activation, activation_extra)
globals().update(_CLASSES)
__all__ = sorted(_CLASSES)
