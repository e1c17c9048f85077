"""Deterministic unique names for layers and parameters (`linear_0`, `linear_0.w_0`), as Paddle does.

The counters are per prefix; `reset_name_counters()` restarts them so tests and dumps are stable."""
from __future__ import annotations

import re
from typing import Dict

_counters: Dict[str, int] = {}


def generate(prefix: str) -> str:
    """The next unused name `prefix_N` for this prefix."""
    n = _counters.get(prefix, 0)
    _counters[prefix] = n + 1
    return f"{prefix}_{n}"


def reset_name_counters() -> None:
    """Restart every counter: the next Linear is `linear_0` again."""
    _counters.clear()


def camel_to_snake(name: str) -> str:
    """`BatchNorm1D` -> `batch_norm1d`, `LayerNorm` -> `layer_norm`, matching Paddle's layer name scopes."""
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", s).lower()
