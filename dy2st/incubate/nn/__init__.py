"""paddle.incubate.nn: Paddle's fused layers, computed by the same ops as their unfused forms
(on the CPU there is nothing to fuse), so they convert, differentiate and export like them."""
from __future__ import annotations

from typing import Any, Optional

from ...nn.layer import Layer
from . import functional
from .fused_transformer import (FusedBiasDropoutResidualLayerNorm, FusedDropoutAdd,
                                FusedFeedForward, FusedMultiHeadAttention,
                                FusedTransformerEncoderLayer)

__all__ = ["FusedLinear", "functional", "FusedMultiHeadAttention", "FusedFeedForward",
           "FusedTransformerEncoderLayer", "FusedBiasDropoutResidualLayerNorm",
           "FusedDropoutAdd"]


class FusedLinear(Layer):
    """Paddle's FusedLinear: y = x @ W + b, with W stored [out_features, in_features] when
    transpose_weight is True (Paddle's layout for that flag), else [in_features, out_features]."""

    def __init__(self, in_features: int, out_features: int, weight_attr: Any = None,
                 bias_attr: Any = None, transpose_weight: bool = False,
                 name: Optional[str] = None) -> None:
        super().__init__()
        self.in_features, self.out_features = int(in_features), int(out_features)
        shape = [self.out_features, self.in_features] if transpose_weight else \
            [self.in_features, self.out_features]
        self.weight = self.create_parameter(shape, attr=weight_attr)
        self.bias = self.create_parameter([self.out_features], attr=bias_attr, is_bias=True)
        self.transpose_weight = bool(transpose_weight)
        self.name = name

    def forward(self, input: Any) -> Any:
        return functional.fused_linear(input, self.weight, self.bias, self.transpose_weight)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"transpose_weight={self.transpose_weight}")
