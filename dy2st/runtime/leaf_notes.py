"""Where a program's `stop_gradient = False` assignments are noted: each may make a new leaf
(autograd/new_leaves.py), so passes keep the names (passes/effects.py) and a saved model lists
them (format/new_leaves.py)."""
from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

from .origin import Origin


def new_leaves(program: Any) -> Dict[str, Tuple[int, Optional[Origin]]]:
    """name -> (the block it is in, the user's line) of each value a `stop_gradient = False`
    may make a leaf (runtime/inplace.py note_new_leaf; a loaded model's from its file)."""
    return program.__dict__.setdefault("new_leaves", {})
