"""paddle.static's scope and naming helpers: global_scope / scope_guard (the named values a
static program reads, as scope.find_var(name).get_tensor()), name_scope, create_global_var and
create_parameter, cpu_places."""
from __future__ import annotations

import contextlib
from typing import Any, Dict, Iterator, List, Optional, Sequence

import numpy as np

from ..runtime.device import Place
from ..runtime.dtype import convert_dtype
from ..runtime.program import default_main_program
from ..runtime.tensor import Tensor
from ..utils.framework import create_parameter

__all__ = ["Scope", "global_scope", "scope_guard", "name_scope", "create_global_var",
           "create_parameter", "cpu_places"]


class ScopeTensor:
    """The tensor behind a scope variable: np.array(t) reads it, t.set(array, place) writes it."""

    def __init__(self, tensor: Tensor) -> None:
        self._tensor = tensor

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        a = self._tensor._value
        return a.astype(dtype) if dtype is not None else a.copy()

    def set(self, value: Any, place: Any = None) -> None:
        arr = np.asarray(value)
        old = self._tensor._value
        if arr.shape != old.shape:
            raise ValueError(f"set: shape {list(arr.shape)} does not match {list(old.shape)}")
        self._tensor._value = arr.astype(old.dtype)
        self._tensor._version = getattr(self._tensor, "_version", 0) + 1

    def shape(self) -> List[int]:
        return list(self._tensor._value.shape)

    def _dtype(self) -> Any:
        return self._tensor.dtype


class ScopeVariable:
    def __init__(self, tensor: Tensor) -> None:
        self._tensor = tensor

    def get_tensor(self) -> ScopeTensor:
        return ScopeTensor(self._tensor)


class Scope:
    """Named tensors: its own (scope.var(name)), then the persistables of the default main
    program (parameters, running statistics, optimizer state)."""

    def __init__(self) -> None:
        self._vars: Dict[str, Tensor] = {}

    def var(self, name: str) -> ScopeVariable:
        """The variable `name`, created (an empty float32 tensor) if it does not exist."""
        found = self._lookup(name)
        if found is None:
            found = self._vars[name] = Tensor(np.zeros([0], np.float32))
            found.name = name
        return ScopeVariable(found)

    def find_var(self, name: str) -> Optional[ScopeVariable]:
        """The variable `name`, or None."""
        found = self._lookup(name)
        return None if found is None else ScopeVariable(found)

    def _lookup(self, name: str) -> Optional[Tensor]:
        if name in self._vars:
            return self._vars[name]
        persistables = default_main_program().persistables
        t = persistables.get(name)
        if t is None:
            t = next((v for v in persistables.values() if getattr(v, "name", None) == name), None)
        return t

    def local_var_names(self) -> List[str]:
        return sorted(set(self._vars) | set(default_main_program().persistables))


_scopes: List[Scope] = [Scope()]


def global_scope() -> Scope:
    """The scope static programs read (replaced inside scope_guard)."""
    return _scopes[-1]


@contextlib.contextmanager
def scope_guard(scope: Scope) -> Iterator[None]:
    """Make `scope` the global scope inside the block."""
    if not isinstance(scope, Scope):
        raise TypeError(f"scope_guard: expected a paddle.static.Scope, got {type(scope).__name__}")
    _scopes.append(scope)
    try:
        yield
    finally:
        _scopes.pop()


_name_scopes: List[str] = []


@contextlib.contextmanager
def name_scope(prefix: Optional[str] = None) -> Iterator[None]:
    """A naming scope for the ops built in the block (Paddle uses it to group ops in graph
    views; dy2st keeps the stack in current_name_scope() and names nothing after it)."""
    _name_scopes.append(prefix or "")
    try:
        yield
    finally:
        _name_scopes.pop()


def current_name_scope() -> str:
    return "/".join(p for p in _name_scopes if p)


def create_global_var(shape: Sequence[int], value: float, dtype: Any, persistable: bool = False,
                      force_cpu: bool = False, name: Optional[str] = None) -> Tensor:
    """A tensor of `shape` filled with `value`, which programs read (and may update) as a
    persistable value."""
    if any(not isinstance(d, int) or d < 0 for d in shape):
        raise ValueError(f"create_global_var: shape must be non-negative ints, got {list(shape)}")
    t = Tensor(np.full(list(shape), value, dtype=convert_dtype(dtype).np))
    t.name = name or f"global_var_{id(t)}"
    t.persistable = bool(persistable)
    return t


def cpu_places(device_count: Optional[int] = None) -> List[Place]:
    """`device_count` CPU places (default 1)."""
    return [Place("cpu", 0) for _ in range(device_count or 1)]
