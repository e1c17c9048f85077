"""Bilinear layer: out = x1 · W · x2 + b with W [out, in1, in2] and b [1, out]."""
from __future__ import annotations

from typing import Any, Optional

from .. import functional as F
from ..layer import Layer


class Bilinear(Layer):
    def __init__(self, in1_features: int, in2_features: int, out_features: int, weight_attr: Any = None,
                 bias_attr: Any = None, name: Optional[str] = None) -> None:
        super().__init__()
        self._in1, self._in2, self._out = int(in1_features), int(in2_features), int(out_features)
        self.weight = self.create_parameter([self._out, self._in1, self._in2], attr=weight_attr)
        self.bias = self.create_parameter([1, self._out], attr=bias_attr, is_bias=True)

    def forward(self, x1: Any, x2: Any) -> Any:
        return F.bilinear(x1, x2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in1_features={self._in1}, in2_features={self._in2}, out_features={self._out}"
