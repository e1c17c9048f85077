"""paddle.nn.layer.rnn: the recurrent layers and cells (Paddle's module path; the classes live in dy2st.nn.layers)."""
from __future__ import annotations

from ..layers import rnn
from .reexport import classes_of

_CLASSES = classes_of(rnn)
globals().update(_CLASSES)
__all__ = sorted(_CLASSES)
