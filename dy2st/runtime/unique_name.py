"""The generator of unique names (`fc_0`, `fc_1`, ...) that layers and parameters take theirs from;
paddle.utils.unique_name is its public face, nn/naming.py its use for layers."""
from __future__ import annotations

import contextlib
from typing import Dict, Iterator, List, Optional, Union

__all__ = ["generate", "switch", "guard", "UniqueNameGenerator", "current_generator"]


class UniqueNameGenerator:
    """Paddle's generator: `gen("fc")` gives `fc_0`, `fc_1`, ...; `prefix` is put before each."""

    def __init__(self, prefix: Optional[str] = None) -> None:
        self.ids: Dict[str, int] = {}
        self.prefix = prefix or ""

    def __call__(self, key: str) -> str:
        n = self.ids.get(key, 0)
        self.ids[key] = n + 1
        return f"{self.prefix}{key}_{n}"


_current: List[UniqueNameGenerator] = [UniqueNameGenerator()]


def current_generator() -> UniqueNameGenerator:
    """The generator names come from now (layers and parameters take theirs from it)."""
    return _current[0]


def generate(key: str) -> str:
    """The next unused name `key_N` from the current generator."""
    return _current[0](key)


def switch(new_generator: Union[UniqueNameGenerator, str, None] = None) -> UniqueNameGenerator:
    """Make `new_generator` (a fresh one if None; a string is a fresh one with that prefix) the
    current generator and return the previous one."""
    if not isinstance(new_generator, UniqueNameGenerator):
        new_generator = UniqueNameGenerator(new_generator)
    old, _current[0] = _current[0], new_generator
    return old


@contextlib.contextmanager
def guard(new_generator: Union[UniqueNameGenerator, str, bytes, None] = None) -> Iterator[None]:
    """Inside the block, names come from `new_generator` (a fresh generator if None; a string
    is a fresh one with that prefix), so two models built under two guards get the same names."""
    if isinstance(new_generator, bytes):
        new_generator = new_generator.decode()
    if new_generator is not None and not isinstance(new_generator, (str, UniqueNameGenerator)):
        raise TypeError(f"unique_name.guard: new_generator must be None, a str prefix or a "
                        f"UniqueNameGenerator, got {type(new_generator).__name__}")
    old = switch(new_generator)
    try:
        yield
    finally:
        switch(old)
