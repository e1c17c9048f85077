"""Flatten nested tuples / lists / dicts / namedtuples into leaves and a structure that can
rebuild them (a namedtuple's kind is its class); a function's returned dataclass objects too."""
from __future__ import annotations

import copy
import dataclasses
from typing import Any, Callable, List, Tuple

from .size import Size
from .tensor import TensorLike


class Leaf:
    """Marks where a leaf goes in a structure."""
    __slots__ = ()

    def __repr__(self) -> str:
        return "*"


LEAF = Leaf()


class DataclassKind:
    """The kind of a dataclass object in a structure: rebuilt as a copy of the object with its
    fields set to the new leaves (frozen classes and fields outside __init__ included)."""

    def __init__(self, obj: Any) -> None:
        self.template = obj
        self.names = tuple(f.name for f in dataclasses.fields(obj))

    def build(self, values: Any) -> Any:
        new = copy.copy(self.template)
        for name, value in zip(self.names, values):
            object.__setattr__(new, name, value)
        return new

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, DataclassKind) and type(other.template) is \
            type(self.template) and other.names == self.names

    def __hash__(self) -> int:
        return hash((type(self.template), self.names))

    def __repr__(self) -> str:
        return type(self.template).__name__


def flatten(obj: Any, is_leaf: Callable[[Any], bool] = None,
            objects: bool = False) -> Tuple[List[Any], Any]:
    """(leaves, structure): leaves are every non-container value, in order; with `objects`
    (a function's outputs), a dataclass object's fields are walked too."""
    leaves: List[Any] = []

    def walk(o: Any) -> Any:
        if is_leaf is not None and is_leaf(o):
            leaves.append(o)
            return LEAF
        if isinstance(o, TensorLike):
            leaves.append(o)
            return LEAF
        if type(o) is tuple:
            return ("tuple", tuple(walk(v) for v in o))
        if is_namedtuple(o):
            return (type(o), tuple(walk(v) for v in o))
        if type(o) is list or type(o) is Size:     # (a traced shape: a list of dims)
            return ("list", tuple(walk(v) for v in o))
        if type(o) is dict:
            return ("dict", tuple((k, walk(v)) for k, v in o.items()))
        if objects and dataclasses.is_dataclass(o) and not isinstance(o, type):
            kind = DataclassKind(o)
            return (kind, tuple(walk(getattr(o, n)) for n in kind.names))
        leaves.append(o)
        return LEAF

    return leaves, walk(obj)


def is_namedtuple(o: Any) -> bool:
    """o is an instance of a class made by collections.namedtuple or typing.NamedTuple."""
    return isinstance(o, tuple) and hasattr(type(o), "_fields") and hasattr(type(o), "_make")


def unflatten(structure: Any, leaves: List[Any]) -> Any:
    it = iter(leaves)

    def build(s: Any) -> Any:
        if s is LEAF:
            return next(it)
        kind, items = s
        if kind == "tuple":
            return tuple(build(v) for v in items)
        if kind == "list":
            return [build(v) for v in items]
        if kind == "dict":
            return {k: build(v) for k, v in items}
        if isinstance(kind, DataclassKind):
            return kind.build([build(v) for v in items])
        return kind._make(build(v) for v in items)

    return build(structure)


def leaves_at(value: Any, structure: Any) -> List[Any]:
    """The values at the leaf places of `structure` in `value` (a value built from it, whose
    leaves may be containers themselves: a returned tensor array is a list)."""
    out: List[Any] = []

    def walk(v: Any, s: Any) -> None:
        if s is LEAF:
            out.append(v)
            return
        kind, items = s
        if kind == "dict":
            for k, sub in items:
                walk(v[k], sub)
        elif isinstance(kind, DataclassKind):
            for name, sub in zip(kind.names, items):
                walk(getattr(v, name), sub)
        else:
            for x, sub in zip(v, items):
                walk(x, sub)

    walk(value, structure)
    return out


def describe(structure: Any) -> str:
    if structure is LEAF:
        return "value"
    kind, items = structure
    if kind == "dict":
        return "{" + ", ".join(f"{k!r}: {describe(v)}" for k, v in items) + "}"
    inner = ", ".join(describe(v) for v in items)
    if isinstance(kind, (type, DataclassKind)):
        return f"{kind!r}({inner})" if isinstance(kind, DataclassKind) else \
            f"{kind.__name__}({inner})"
    return f"({inner})" if kind == "tuple" else f"[{inner}]"
