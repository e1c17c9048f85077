"""Which jax device the xla backend runs on: the one `paddle.set_device` chose (a GPU when jax
has one, e.g. with `pip install "jax[cuda12]"`; the CPU otherwise)."""
from __future__ import annotations

import contextlib
from typing import Any, Dict, List, Tuple

from ...runtime.device import current_place
from .loader import jax_modules

# (kind, index) -> its jax device, looked up once (every run asks)
_devices: Dict[Tuple[str, int], Any] = {}


def current_device() -> Any:
    """The jax device for the current place ("cpu", "gpu:1")."""
    place = current_place()
    key = (place.kind, place.index)
    device = _devices.get(key)
    if device is None:
        device = _devices[key] = _lookup(place)
    return device


def _lookup(place: Any) -> Any:
    jax = jax_modules().jax
    kind = place.kind
    try:
        # this process's devices: in a job of several processes jax.devices lists all of them
        devices = jax.local_devices(backend=kind)
    except RuntimeError as e:
        raise RuntimeError(f"set_device({kind!r}): jax has no {kind} device here ({e}); install "
                           "jax for that platform (e.g. pip install \"jax[cuda12]\") or use "
                           "set_device('cpu')") from None
    if place.index >= len(devices):
        raise RuntimeError(f"set_device('{kind}:{place.index}'): jax sees {len(devices)} {kind} "
                           "device(s)")
    return devices[place.index]


def gpu_count() -> int:
    """How many GPUs jax sees (0 when it has no GPU platform)."""
    try:
        return len(jax_modules().jax.devices("gpu"))
    except RuntimeError:
        return 0


def placed() -> Any:
    """A context running jax computations on the current device (nothing to do when that is
    jax's default device, as the CPU is on a machine without accelerators)."""
    device = current_device()
    jax = jax_modules().jax
    if device is _default():
        return contextlib.nullcontext()
    return jax.default_device(device)


_default_device: List[Any] = []


def _default() -> Any:
    if not _default_device:
        _default_device.append(jax_modules().jax.local_devices()[0])
    return _default_device[0]
