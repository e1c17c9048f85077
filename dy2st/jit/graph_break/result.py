"""What the cache miss of a full_graph=False function hands back, and where a function that broke
keeps its state: the two names every graph-break module shares (a leaf: it imports none)."""
from __future__ import annotations

from typing import Any


class Result:
    """The value of a call that did not go through a cache entry."""
    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def state_of(sf: Any) -> Any:
    """The BreakState (dispatch.py) of a StaticFunction that broke, else None."""
    return sf.__dict__.get("_gb")
