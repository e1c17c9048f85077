"""zeropad2d: F.pad with zeros on the four sides of an image."""
from __future__ import annotations

from typing import Any, Optional

from ...runtime.tensor import Tensor
from .common import pad

__all__ = ["zeropad2d"]


def zeropad2d(x: Any, padding: Any, data_format: str = "NCHW", name: Optional[str] = None) -> Any:
    """Zeros around x: padding is an int or [left, right, top, bottom]."""
    if isinstance(padding, Tensor):
        padding = padding.numpy().reshape(-1).tolist()
    padding = [int(padding)] * 4 if isinstance(padding, int) else [int(p) for p in padding]
    if len(padding) != 4:
        raise ValueError(f"zeropad2d: padding must be an int or 4 ints, got {padding}")
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"zeropad2d: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
    return pad(x, padding, mode="constant", value=0.0, data_format=data_format)
