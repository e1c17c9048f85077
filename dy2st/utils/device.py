"""Device queries and the Tensor.cpu() copy: dy2st runs on the CPU only, so every
`is_compiled_with_*` answers False and Paddle code guarded by them takes its CPU path."""
from __future__ import annotations

from typing import Any

from ..runtime.ops import assign
from ..runtime.tensor import TensorLike


def is_compiled_with_cuda() -> bool:
    return False


def is_compiled_with_rocm() -> bool:
    return False


def is_compiled_with_xpu() -> bool:
    return False


def is_compiled_with_custom_device(device_type: str) -> bool:
    return False


def tensor_cpu(x: Any) -> Any:
    """x.cpu(): a copy of x on the CPU (where it already is); gradients flow through it."""
    return assign(x)


def install_methods() -> None:
    if not hasattr(TensorLike, "cpu"):
        TensorLike.cpu = tensor_cpu
