"""The static view of a tensor's shape: ints, with -1 for dims unknown while a program is built."""
from __future__ import annotations

from typing import Any, List


def known_dims(x: Any) -> List[int]:
    """x's shape for eager Tensors; a static Variable's recorded shape (-1 = unknown) otherwise."""
    shape = getattr(x, "_shape", None)
    return list(shape) if shape is not None else list(x.shape)
