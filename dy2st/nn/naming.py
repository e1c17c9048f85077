"""Deterministic unique names for layers and parameters (`linear_0`, `linear_0.w_0`), as Paddle does.

Names come from the current UniqueNameGenerator (per-prefix counters); `reset_name_counters()`
restarts them so tests and dumps are stable, and paddle.utils.unique_name.guard swaps in a fresh
one for a block."""
from __future__ import annotations

import re

from ..runtime.unique_name import current_generator, generate  # noqa: F401 - nn's own name


def reset_name_counters() -> None:
    """Restart every counter: the next Linear is `linear_0` again."""
    current_generator().ids.clear()


def camel_to_snake(name: str) -> str:
    """`BatchNorm1D` -> `batch_norm1d`, `LayerNorm` -> `layer_norm`, matching Paddle's layer name scopes."""
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", s).lower()
