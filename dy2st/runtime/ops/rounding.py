"""paddle.round(x, decimals): Paddle 3.3.1's kernel, halves to even at the scaled position."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..dtype import dtype_name
from ..registry import apply, register_op
from ..tensor import Tensor
from . import infer as I
from .operands import as_tensor

# the dtypes Paddle 3.3.1 has a round kernel for (float16 and bfloat16 on GPU only; dy2st rounds
# them too, as that build does)
ROUND_DTYPES = ("float16", "bfloat16", "float32", "float64", "int32", "int64", "complex64",
                "complex128")
_INT32 = (-2 ** 31, 2 ** 31 - 1)


def decimals_of(decimals: Any) -> int:
    """`decimals` as the int Paddle's `round` takes: an int, a numpy integer or a one-element
    integer Tensor; bool, float, str and None are refused as Paddle refuses them."""
    if isinstance(decimals, Tensor) and dtype_name(decimals.dtype).startswith(("int", "uint")) \
            and decimals.size == 1:
        decimals = int(decimals.numpy().reshape(()))
    elif isinstance(decimals, np.integer):
        decimals = int(decimals)
    if type(decimals) is not int:
        kind = "a tensor of a static program (its value is not known when the program is built)" \
            if hasattr(decimals, "dtype") else type(decimals).__name__
        raise TypeError(f"round(): argument 'decimals' (position 2) must be int, but got {kind}")
    if not _INT32[0] <= decimals <= _INT32[1]:
        # Paddle raises IndexError here (its int32 attribute check)
        raise IndexError(f"round(): decimals={decimals} exceeds the int32 range {list(_INT32)}")
    return decimals


def ten_power(decimals: int, dtype: np.dtype) -> np.ndarray:
    """10 ** |decimals| computed in double then cast to the value's (real) dtype, as Paddle's
    kernel does: it overflows to inf (and the result to nan) past that dtype's range."""
    with np.errstate(over="ignore"):
        return np.asarray(np.power(10.0, abs(decimals)), dtype)


@register_op("round", infer=I.same)
def _round(x, decimals=0):
    """x rounded at 10**-decimals, halves to even; integers are returned unchanged."""
    if x.dtype.kind in "iub":
        return x.copy()
    if decimals == 0:
        return np.round(x)
    p = ten_power(decimals, x.real.dtype)        # a complex x has both parts rounded
    with np.errstate(over="ignore", invalid="ignore"):
        out = np.round(x * p) / p if decimals > 0 else np.round(x / p) * p
    return out.astype(x.dtype, copy=False)


def round(x: Any, decimals: int = 0, name: Optional[str] = None, *, out: Any = None) -> Any:
    """Round to `decimals` decimal places (negative: to tens, hundreds, ...), halves to even,
    as Paddle 3.3.1 computes it: round(x * 10**decimals) / 10**decimals in x's dtype. Integer
    tensors come back unchanged."""
    decimals = decimals_of(decimals)
    x = as_tensor(x)
    if dtype_name(x.dtype) not in ROUND_DTYPES:
        raise TypeError(f"paddle.round has no kernel for {dtype_name(x.dtype)} tensors in Paddle 3.3.1 "
                        f"(it takes {', '.join(ROUND_DTYPES)}); cast the tensor first")
    result = apply("round", [x], {"decimals": decimals})
    # Paddle writes the result into `out` itself (its other holders see it)
    return result if out is None else out.copy_(result)
