"""paddle.base.data_feeder: convert_dtype (any dtype spelling to its plain name, as Paddle's) and
the static-mode argument checks (dy2st/utils/data_feeder.py)."""
from __future__ import annotations

from typing import Any

from ..runtime.dtype import dtype_name
from ..utils.data_feeder import check_dtype, check_shape, check_type

__all__ = ["convert_dtype", "check_dtype", "check_shape", "check_type"]


def convert_dtype(dtype: Any) -> str:
    """The plain name of a dtype ("float32" for paddle.float32, np.float32 or "float32"); a
    TypeError naming the choices for anything else. bfloat16 gives "uint16", Paddle's storage
    name for it, which Paddle code tests for (`convert_dtype(x.dtype) == "uint16"`)."""
    name = dtype_name(dtype)
    return "uint16" if name == "bfloat16" else name
