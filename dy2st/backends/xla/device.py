"""Which jax device the xla backend runs on: the one `paddle.set_device` chose."""
from __future__ import annotations

from typing import Any

from ...runtime.config import config
from .loader import jax_modules


def current_device() -> Any:
    """The jax device for config.device ("cpu", "gpu", "gpu:1"); the first CPU when unset."""
    jax = jax_modules().jax
    name = getattr(config, "device", "cpu") or "cpu"
    kind, _, index = name.partition(":")
    kind = "gpu" if kind in ("gpu", "cuda") else kind
    try:
        devices = jax.devices(kind)
    except RuntimeError as e:
        raise RuntimeError(f"set_device({name!r}): jax has no {kind} device here ({e}); install "
                           "jax with that platform (e.g. pip install \"jax[cuda12]\") or use "
                           "set_device('cpu')") from None
    i = int(index) if index else 0
    if i >= len(devices):
        raise RuntimeError(f"set_device({name!r}): jax sees {len(devices)} {kind} device(s)")
    return devices[i]


def gpu_available() -> bool:
    try:
        return bool(jax_modules().jax.devices("gpu"))
    except RuntimeError:
        return False
