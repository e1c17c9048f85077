"""paddle.utils.unique_name: generate / switch / guard over the names layers and parameters get
(the generator itself is runtime/unique_name.py, below the layers that take names from it)."""
from __future__ import annotations

from ..runtime.unique_name import UniqueNameGenerator, current_generator, generate, guard, switch  # noqa: F401

__all__ = ["generate", "switch", "guard", "UniqueNameGenerator"]
