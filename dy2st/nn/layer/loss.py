"""paddle.nn.layer.loss: the loss layers (Paddle's module path; the classes live in dy2st.nn.layers)."""
from __future__ import annotations

from ..layers import loss, margin_losses, softmax_approx
from .reexport import classes_of

_CLASSES = classes_of(loss, margin_losses, softmax_approx)
globals().update(_CLASSES)
__all__ = sorted(_CLASSES)
