"""paddle.nn.layer.distance: PairwiseDistance and the distance layers (Paddle's module path; the classes live in dy2st.nn.layers)."""
from __future__ import annotations

from ..layers import distance
from .reexport import classes_of

_CLASSES = classes_of(distance)
globals().update(_CLASSES)
__all__ = sorted(_CLASSES)
