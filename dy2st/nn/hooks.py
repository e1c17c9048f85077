"""Removable handles for forward hooks."""
from __future__ import annotations

import itertools
from typing import Any, Dict

_next_id = itertools.count()


class HookRemoveHelper:
    """Returned by register_forward_*_hook; `remove()` unregisters the hook (idempotent)."""

    def __init__(self, hooks: Dict[int, Any]) -> None:
        self._hooks = hooks
        self._hook_id = next(_next_id)

    def remove(self) -> None:
        self._hooks.pop(self._hook_id, None)
