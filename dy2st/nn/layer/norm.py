"""paddle.nn.layer.norm: the normalization layers (Paddle's module path; the classes live in dy2st.nn.layers)."""
from __future__ import annotations

from ..layers import fluid_batch_norm, group_norm, norm, spectral_norm
from .reexport import classes_of

_CLASSES = classes_of(norm, group_norm, spectral_norm, fluid_batch_norm)
globals().update(_CLASSES)
__all__ = sorted(_CLASSES)
