"""The class a StaticFunction takes once it breaks: every call goes to its driver, without the
cache-key work of a StaticFunction call (which would always miss)."""
from __future__ import annotations

from typing import Any

from ...runtime.state import build_state
from ..options import options
from ..static_function import StaticFunction
from .refusal import known_breaks, refuse_breaks


class BrokenStaticFunction(StaticFunction):
    """A StaticFunction with graph breaks: runs its regions and islands (see dispatch.py)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not options.enabled or build_state.blocks:
            return StaticFunction.__call__(self, *args, **kwargs)
        return self._gb.run(args, kwargs)

    @property
    def num_programs(self) -> int:
        """Programs cached by its regions (and whole-function ones traced before the break)."""
        return len(self._entries) + sum(r.num_programs for r in self._gb.regions)

    @property
    def concrete_program(self) -> Any:
        refuse_breaks(self, known_breaks(self), action="its Program")
        return StaticFunction.concrete_program.fget(self)

    def __repr__(self) -> str:
        return (f"<StaticFunction {self.__name__}: {len(self.graph_breaks)} graph break(s), "
                f"{self.num_programs} program(s)>")


def mark_broken(sf: Any) -> None:
    if type(sf) is StaticFunction:
        sf.__class__ = BrokenStaticFunction
