"""paddle.nn.layer.container: Sequential, LayerList, LayerDict, ParameterList (Paddle's module path; the classes live in dy2st.nn.layers)."""
from __future__ import annotations

from ..layers import container
from .reexport import classes_of

_CLASSES = classes_of(container)
globals().update(_CLASSES)
__all__ = sorted(_CLASSES)
