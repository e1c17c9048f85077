"""paddle.amp: automatic mixed precision on the CPU: auto_cast (levels O1 / O2 / OD, float16 or,
with ml_dtypes, bfloat16), GradScaler's dynamic loss scaling and decorate (O2 models)."""
from __future__ import annotations

from . import debugging, grad_scaler
from .auto_cast import (amp_guard, auto_cast, get_autocast_cpu_dtype, get_autocast_dtype,
                        get_autocast_gpu_dtype, is_autocast_enabled, is_bfloat16_supported,
                        is_float16_supported, low_precision_op_list)
from .decorate import amp_decorate, decorate
from .grad_scaler import AmpScaler, GradScaler, OptimizerState

__all__ = ["auto_cast", "decorate", "amp_guard", "amp_decorate", "GradScaler", "AmpScaler",
           "OptimizerState", "low_precision_op_list", "is_float16_supported",
           "is_bfloat16_supported", "debugging", "is_autocast_enabled", "get_autocast_dtype",
           "get_autocast_cpu_dtype", "get_autocast_gpu_dtype"]
