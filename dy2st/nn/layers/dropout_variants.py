"""AlphaDropout and FeatureAlphaDropout layers (active in train mode only)."""
from __future__ import annotations

from typing import Any, Optional

from .. import functional as F
from ..layer import Layer


class AlphaDropout(Layer):
    _fn = staticmethod(F.alpha_dropout)

    def __init__(self, p: float = 0.5, name: Optional[str] = None) -> None:
        super().__init__()
        if not isinstance(p, (int, float)) or not 0 <= p <= 1:
            raise ValueError(f"{type(self).__name__}: p must be a number in [0, 1], got {p!r}")
        self.p = p

    def forward(self, input: Any) -> Any:
        return self._fn(input, p=self.p, training=self.training)

    def extra_repr(self) -> str:
        return f"p={self.p}"


class FeatureAlphaDropout(AlphaDropout):
    _fn = staticmethod(F.feature_alpha_dropout)
