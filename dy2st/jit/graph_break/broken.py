"""The class a StaticFunction takes once it breaks: every call goes to its driver, without the
cache-key work of a StaticFunction call (which would always miss)."""
from __future__ import annotations

from typing import Any

from ...runtime import state as _state
from ..convert_call import options
from ..static_function import StaticFunction


class BrokenStaticFunction(StaticFunction):
    """A StaticFunction with graph breaks: runs its regions and islands (see dispatch.py)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not options.enabled or _state._state.blocks:
            return StaticFunction.__call__(self, *args, **kwargs)
        return self._gb.run(args, kwargs)


def mark_broken(sf: Any) -> None:
    if type(sf) is StaticFunction:
        sf.__class__ = BrokenStaticFunction
