"""paddle.device: choosing the device (set_device / get_device / device_guard) and the device
queries Paddle code branches on. dy2st computes on the CPU unless a backend registers more kinds
(see dy2st.runtime.device)."""
from __future__ import annotations

import contextlib
from typing import Any, Iterator, List, Optional

from ..runtime import device as _device
from ..runtime.dtype import DTYPES
from ..runtime.generator import GeneratorState, default_generator
from ..runtime.device import Place, device_guard, get_device, set_device
from ..utils.device import (is_compiled_with_cuda, is_compiled_with_custom_device,
                            is_compiled_with_rocm, is_compiled_with_xpu)
from ..utils.tensor_types import TENSOR_TYPES
from . import cuda

__all__ = ["get_cudnn_version", "set_device", "get_device", "is_compiled_with_xpu",
           "is_compiled_with_ipu", "is_compiled_with_cinn", "is_compiled_with_cuda",
           "is_compiled_with_rocm", "is_compiled_with_distribute",
           "is_compiled_with_custom_device", "get_all_device_type", "get_all_custom_device_type",
           "get_available_device", "get_available_custom_device", "device_guard",
           "synchronize", "device_count", "empty_cache", "Place", "cuda", "device",
           "is_available", "is_bf16_supported", "manual_seed", "get_rng_state", "set_rng_state"
           ] + sorted(TENSOR_TYPES)

# paddle.device.FloatTensor & co. are paddle.FloatTensor & co.
globals().update(TENSOR_TYPES)


def get_cudnn_version() -> Optional[int]:
    """The cuDNN version, None without CUDA (always, in dy2st)."""
    return None


def is_compiled_with_ipu() -> bool:
    return False


def is_compiled_with_cinn() -> bool:
    return False


def is_compiled_with_distribute() -> bool:
    return False


def get_all_device_type() -> List[str]:
    """The device kinds available: ['cpu'] plus any a backend registered."""
    return _device.available_kinds()


def get_all_custom_device_type() -> List[str]:
    return []


def get_available_device() -> List[str]:
    """Every device: 'cpu', then 'gpu:0', 'gpu:1', ... for registered kinds."""
    out = []
    for kind in _device.available_kinds():
        out += ["cpu"] if kind == "cpu" else [f"{kind}:{i}" for i in
                                              range(_device.device_count(kind))]
    return out


def get_available_custom_device() -> List[str]:
    return []


def device_count(device_type: Optional[str] = None) -> int:
    """How many accelerators of `device_type` (default: the current device's kind) exist; 0 on
    the CPU, as in Paddle's CPU build."""
    kind = device_type or get_device().split(":")[0]
    return 0 if kind == "cpu" else _device.device_count(kind)




def synchronize(device: Any = None) -> None:
    """Wait for the device's queued work: dy2st's kernels finish before they return."""
    if device is not None:
        _device.parse_device(device)


def empty_cache() -> None:
    """Release cached accelerator memory: the CPU keeps none."""


class device:
    """Context manager that makes `device` (a Place, 'cpu', 'gpu:0', ...) current in the block
    and restores the previous device after it (paddle.device.device)."""

    def __init__(self, device: Any = None) -> None:
        self.place = device
        self.previous = None

    def __enter__(self) -> None:
        self.previous = get_device()
        if self.place is not None:
            set_device(self.place)

    def __exit__(self, *exc: Any) -> bool:
        set_device(self.previous)
        return False


def is_available() -> bool:
    """Whether an accelerator (GPU / XPU / custom device) exists: device_count() >= 1."""
    return device_count() >= 1


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """Whether bfloat16 tensors work: with the optional ml_dtypes package, on the CPU."""
    return "bfloat16" in DTYPES


def manual_seed(seed: int) -> None:
    """Seed the random generator (paddle.seed)."""
    default_generator().manual_seed(seed)


def get_rng_state(device: Any = None) -> GeneratorState:
    """The random generator's state (one state; paddle.get_rng_state gives a list of them)."""
    return default_generator().get_state()


def set_rng_state(new_state: Any, device: Any = None) -> None:
    """Restore a state from get_rng_state."""
    default_generator().set_state(new_state)
