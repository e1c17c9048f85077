"""rms_norm and swiglu, the normalisation and gated activation of LLaMA-style transformers, made of
registered ops so they differentiate, convert and export like any other composition."""
from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple

import numpy as np

from ...runtime import ops
from ...runtime.ops.operands import as_tensor, cast
from .activation import silu
from .dims import known_dims

__all__ = ["rms_norm", "swiglu"]


def rms_norm(input: Any, normalized_shape: Sequence[int], weight: Any = None, eps: float = 1e-5,
             name: Optional[str] = None) -> Tuple[Any, Any]:
    """Root-mean-square normalisation over the trailing `normalized_shape` dims, times `weight`.
    Returns (out, invvar) as Paddle does: invvar is 1 / sqrt(mean(x**2) + eps) per row, float32,
    of shape [rows] (the leading dims flattened). Computed in float32 for low-precision input."""
    x = as_tensor(input)
    dims = [int(normalized_shape)] if isinstance(normalized_shape, int) else \
        [int(d) for d in normalized_shape]
    shape = known_dims(x)
    tail = shape[len(shape) - len(dims):]
    if not dims or len(dims) > len(shape) or any(t >= 0 and t != d for t, d in zip(tail, dims)):
        raise ValueError(f"rms_norm: normalized_shape {dims} does not match the trailing dims of "
                         f"an input of shape {shape}")
    if weight is not None:
        w_dims = known_dims(weight)
        if all(d >= 0 for d in w_dims) and int(np.prod(w_dims)) != int(np.prod(dims)):
            raise ValueError(f"rms_norm: weight has shape {w_dims}; it needs "
                             f"{int(np.prod(dims))} elements to match normalized_shape {dims}")
    axes = list(range(x.ndim - len(dims), x.ndim))
    x32 = cast(x, "float32") if x.dtype in ("float16", "bfloat16") else x
    inv = ops.rsqrt(ops.mean(x32 * x32, axis=axes, keepdim=True) + float(eps))
    out = x32 * inv
    if weight is not None:
        out = out * ops.reshape(cast(as_tensor(weight), out.dtype), dims)
    invvar = cast(ops.reshape(inv, [-1]), "float32")
    return cast(out, x.dtype), invvar


def swiglu(x: Any, y: Any = None, name: Optional[str] = None) -> Any:
    """silu(x) * y; with y None, x's last axis is split in two halves (a, b) and silu(a) * b."""
    x = as_tensor(x)
    if y is None:
        n = known_dims(x)[-1]
        if n >= 0 and n % 2:
            raise ValueError(f"swiglu: with y=None, x's last dim ({n}) must be even, to split "
                             "into two halves")
        x, y = ops.chunk(x, 2, axis=-1)
    return silu(x) * as_tensor(y)
