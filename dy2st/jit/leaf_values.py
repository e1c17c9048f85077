"""Which fetched value an output leaf that is no plain variable hands out: a constant, an
optional output (None, or a dict entry left out), a widened loop variable."""
from __future__ import annotations

from typing import Any, List, Optional, Tuple

from .absent_keys import ABSENT


def picked(kind: str, v: Any, outs: List[Any]) -> Tuple[Optional[int], Any]:
    """(fetch index or None, value) of an output leaf that is no plain variable: a constant, an
    optional output (None, or ABSENT: a dict entry left out), a widened loop variable (the
    value eager code has: from before the loop where it ran no turn)."""
    while kind == "pick":
        if bool(outs[v[1]]):
            return v[0], outs[v[0]]
        kind, v = v[2]
    if kind == "var":
        return v, outs[v]
    if kind != "opt":
        return None, v
    if bool(outs[v[1]]):
        return v[0], outs[v[0]]
    return None, ABSENT if len(v) > 3 else None
