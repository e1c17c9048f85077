"""paddle.incubate.nn.functional: fused_linear and fused_matmul_bias, as matmul + bias."""
from __future__ import annotations

from typing import Any, Optional

from ...nn import functional as F
from ...runtime import ops

__all__ = ["fused_linear", "fused_matmul_bias"]


def fused_matmul_bias(x: Any, y: Any, bias: Any = None, transpose_x: bool = False,
                      transpose_y: bool = False, name: Optional[str] = None) -> Any:
    """matmul(x, y, transpose_x, transpose_y) + bias."""
    out = ops.matmul(x, y, transpose_x=transpose_x, transpose_y=transpose_y)
    return out if bias is None else out + bias


def fused_linear(x: Any, weight: Any, bias: Any = None, transpose_weight: bool = False,
                 name: Optional[str] = None) -> Any:
    """x @ weight + bias; weight is [out, in] when transpose_weight, else [in, out]."""
    if transpose_weight:
        return fused_matmul_bias(x, weight, bias, transpose_y=True)
    return F.linear(x, weight, bias)
