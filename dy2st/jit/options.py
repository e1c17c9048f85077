"""The process-wide switches of to_static: on/off (`enable_to_static`), ignored modules and
@not_to_static functions. Everything in jit reads them here, without the call converter."""
from __future__ import annotations

import types
from typing import Any, Callable, Dict, Iterable, Set, Tuple


class ConvertOptions:
    """Process-wide conversion switches (reset with `reset()`)."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.enabled = True
        self.ignored_modules: Set[str] = set()
        # id(code) -> (code, its function's module): functions convert_call never converts
        self.always_skipped: Dict[int, Tuple[types.CodeType, str]] = {}


options = ConvertOptions()


def not_to_static(func: Callable = None) -> Callable:
    """Decorator: run `func` as it is even when called from converted code."""
    if func is None:
        return not_to_static
    func._dy2st_not_to_static = True
    return func


def ignore_module(modules: Iterable[Any]) -> None:
    """Functions from these modules are called as they are from converted code."""
    for m in modules:
        options.ignored_modules.add(m if isinstance(m, str) else m.__name__)
