"""bilinear: out[n, o] = x1[n] · W[o] · x2[n] + b[o], composed from matmul."""
from __future__ import annotations

from typing import Any, Optional

from ...runtime import ops
from ...runtime.ops.operands import as_tensor
from .dims import known_dims

__all__ = ["bilinear"]


def bilinear(x1: Any, x2: Any, weight: Any, bias: Any = None, name: Optional[str] = None) -> Any:
    """x1 [N, in1], x2 [N, in2], weight [out, in1, in2], bias [1, out] -> [N, out]."""
    x1, x2, w = as_tensor(x1), as_tensor(x2), as_tensor(weight)
    if x1.ndim != 2 or x2.ndim != 2 or w.ndim != 3:
        raise ValueError(f"bilinear: x1 and x2 must be 2-D and weight 3-D, got {list(x1.shape)}, "
                         f"{list(x2.shape)}, {list(w.shape)}")
    w_dims = known_dims(w)
    for got, want, what in ((known_dims(x1)[1], w_dims[1], "x1.shape[1]"),
                            (known_dims(x2)[1], w_dims[2], "x2.shape[1]")):
        if got >= 0 and want >= 0 and got != want:
            raise ValueError(f"bilinear: {what} ({got}) does not match weight {list(w.shape)}")
    # [N, 1, 1, in1] @ [out, in1, in2] -> [N, out, 1, in2], then · x2 over in2
    left = ops.matmul(ops.unsqueeze(x1, [1, 2]), w)
    out = ops.sum(ops.multiply(ops.squeeze(left, 2), ops.unsqueeze(x2, 1)), axis=-1)
    if bias is not None:
        out = ops.add(out, ops.reshape(as_tensor(bias), [1, -1]))
    return out
