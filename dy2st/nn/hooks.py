"""Removable handles for forward hooks."""
from __future__ import annotations

import itertools
from typing import Any, Callable, Dict, Optional

_next_id = itertools.count()


class HookRemoveHelper:
    """Returned by register_forward_*_hook; `remove()` unregisters the hook (idempotent)."""

    def __init__(self, hooks: Dict[int, Any], changed: Optional[Callable[[], None]] = None) -> None:
        self._hooks = hooks
        self._hook_id = next(_next_id)
        self._changed = changed     # tells the layer's traced programs (Layer.state_epoch)

    def remove(self) -> None:
        self._hooks.pop(self._hook_id, None)
        if self._changed is not None:
            self._changed()
