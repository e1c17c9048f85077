"""The current device, with Paddle's set_device / get_device semantics ("cpu", "gpu", "gpu:1").

dy2st computes on the CPU; a backend that can place work elsewhere (the XLA backend, say)
registers the device kinds it provides with `register_device_kind`, and hears every change
through `on_set_device`."""
from __future__ import annotations

import contextlib
import re
from typing import Any, Callable, Dict, Iterator, List, Tuple

# device kind -> how many devices of that kind exist (the CPU is always there)
_KINDS: Dict[str, Callable[[], int]] = {"cpu": lambda: 1}
_LISTENERS: List[Callable[[str, int], None]] = []
_current: List[Tuple[str, int]] = [("cpu", 0)]

# the kinds Paddle's set_device names; without a provider they are refused as not compiled in
PADDLE_KINDS = ("cpu", "gpu", "xpu", "npu", "mlu", "ipu")
_NOT_COMPILED = {"gpu": "CUDA", "xpu": "XPU", "ipu": "IPU", "npu": "NPU", "mlu": "MLU"}
_FORM = re.compile(r"^([a-z_]+)(?::(\d+))?$")


class Place:
    """A device: kind ("cpu", "gpu", ...) and index; prints as Paddle does (`Place(gpu:0)`)."""

    def __init__(self, kind: str = "cpu", index: int = 0) -> None:
        self.kind = kind
        self.index = int(index)

    def __repr__(self) -> str:
        return "Place(cpu)" if self.kind == "cpu" else f"Place({self.kind}:{self.index})"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, Place) and (self.kind, self.index) == (other.kind, other.index)

    def __hash__(self) -> int:
        return hash((self.kind, self.index))

    def is_cpu_place(self) -> bool:
        return self.kind == "cpu"

    def is_gpu_place(self) -> bool:
        return self.kind == "gpu"

    def get_device_id(self) -> int:
        return self.index


def register_device_kind(kind: str, count: Callable[[], int]) -> None:
    """Let set_device accept `kind` ("gpu", ...): `count()` says how many such devices exist."""
    _KINDS[kind] = count


def on_set_device(listener: Callable[[str, int], None]) -> None:
    """Call `listener(kind, index)` after every successful set_device."""
    _LISTENERS.append(listener)


def parse_device(device: Any) -> Tuple[str, int]:
    """("gpu", 1) for "gpu:1"; a Place gives its own kind and index."""
    if isinstance(device, Place):
        return device.kind, device.index
    if not isinstance(device, str):
        raise ValueError(f"set_device: the device must be a string like 'cpu', 'gpu', 'gpu:x', "
                         f"got {type(device).__name__} {device!r}")
    text = device.strip().lower()
    if text.startswith("cuda"):       # Paddle reads "cuda:0" as "gpu:0"
        text = "gpu" + text[4:]
    m = _FORM.match(text)
    if m is None:
        raise ValueError(f"The device must be a string which is like 'cpu', 'gpu', 'gpu:x', "
                         f"'xpu', 'xpu:x', 'npu', 'npu:x', 'mlu', 'mlu:x' or 'ipu', got {device!r}")
    return m.group(1), int(m.group(2) or 0)


def device_count(kind: str) -> int:
    """How many devices of `kind` there are (0 for kinds no backend provides)."""
    provider = _KINDS.get(kind)
    return int(provider()) if provider is not None else 0


def available_kinds() -> List[str]:
    return [k for k in _KINDS if device_count(k) > 0]


def set_device(device: Any) -> Place:
    """Make `device` current (Paddle's paddle.device.set_device) and return its Place."""
    kind, index = parse_device(device)
    count = device_count(kind)
    if kind != "cpu" and count == 0:
        if kind in _NOT_COMPILED:
            raise ValueError(f"The device should not be {device!r}, since dy2st is not compiled "
                             f"with {_NOT_COMPILED[kind]} here (it runs on the CPU only; 'cpu' "
                             f"is the one device; a backend such as xla provides 'gpu' where "
                             f"it finds one)")
        raise ValueError(f"set_device: unknown device type {kind!r}; available: "
                         f"{', '.join(available_kinds())}")
    if kind != "cpu" and not 0 <= index < count:
        raise ValueError(f"set_device: {kind}:{index} does not exist ({count} {kind} "
                         f"device{'s' if count != 1 else ''})")
    _current[0] = (kind, 0 if kind == "cpu" else index)
    for listener in list(_LISTENERS):
        listener(*_current[0])
    return Place(*_current[0])


def get_device() -> str:
    """The current device as Paddle writes it: "cpu" or "gpu:0"."""
    kind, index = _current[0]
    return "cpu" if kind == "cpu" else f"{kind}:{index}"


def current_place() -> Place:
    return Place(*_current[0])


@contextlib.contextmanager
def device_guard(device: Any) -> Iterator[None]:
    """Run the block with `device` current, then restore the previous one."""
    previous = get_device()
    set_device(device)
    try:
        yield
    finally:
        set_device(previous)
