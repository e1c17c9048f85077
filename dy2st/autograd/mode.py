"""Grad modes: `no_grad`, `enable_grad`, `set_grad_enabled`, `is_grad_enabled` (per thread)."""
from __future__ import annotations

import functools
from typing import Any, Callable, Optional

from ..runtime.state import build_state


def is_grad_enabled() -> bool:
    """Whether eager ops record what `backward` needs (True unless inside no_grad)."""
    return build_state.grad_enabled


class _GradMode:
    """A context manager that is also a decorator (with or without parentheses)."""

    enabled = True

    def __init__(self, func: Optional[Callable] = None) -> None:
        self._saved: list = []
        self._func = func
        if func is not None:
            functools.update_wrapper(self, func)

    def __enter__(self) -> "_GradMode":
        self._saved.append(build_state.grad_enabled)
        build_state.grad_enabled = self.enabled
        return self

    def __exit__(self, *exc: Any) -> None:
        build_state.grad_enabled = self._saved.pop()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._func is not None:          # used as @no_grad
            with type(self)():
                return self._func(*args, **kwargs)
        func = args[0]                      # used as @no_grad()
        mode = type(self)

        @functools.wraps(func)
        def wrapper(*a: Any, **kw: Any) -> Any:
            with mode():
                return func(*a, **kw)
        return wrapper

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        # @no_grad on a method: bind like the function it wraps
        if instance is None or self._func is None:
            return self
        return functools.partial(self.__call__, instance)


class no_grad(_GradMode):
    """Inside it (or a function it decorates) eager ops record no gradient information."""

    enabled = False


class enable_grad(_GradMode):
    """Turns gradient recording back on inside a no_grad region."""

    enabled = True


class set_grad_enabled:
    """`set_grad_enabled(False)` turns recording off at once; as a context manager it restores
    the previous mode on exit."""

    def __init__(self, mode: bool) -> None:
        self._prev = build_state.grad_enabled
        build_state.grad_enabled = bool(mode)

    def __enter__(self) -> "set_grad_enabled":
        return self

    def __exit__(self, *exc: Any) -> None:
        build_state.grad_enabled = self._prev
