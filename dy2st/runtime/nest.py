"""Nested structures of lists, tuples and dicts (dicts in sorted key order, as Paddle's)."""
from __future__ import annotations

from typing import Any, Callable, Iterator, List


def _is_seq(x: Any) -> bool:
    return isinstance(x, (list, tuple, dict))


def _children(x: Any) -> List[Any]:
    return [x[k] for k in sorted(x)] if isinstance(x, dict) else list(x)


def _rebuild(like: Any, items: List[Any]) -> Any:
    if isinstance(like, dict):
        return type(like)(zip(sorted(like), items))
    if isinstance(like, tuple) and hasattr(like, "_fields"):       # namedtuple
        return type(like)(*items)
    return type(like)(items)


def flatten(nest: Any) -> List[Any]:
    """The leaves of `nest`, depth first."""
    if not _is_seq(nest):
        return [nest]
    out: List[Any] = []
    for child in _children(nest):
        out.extend(flatten(child))
    return out


def pack_sequence_as(structure: Any, flat_sequence: List[Any]) -> Any:
    """`flat_sequence` arranged in the shape of `structure`."""
    leaves = iter(flat_sequence)
    out = _pack(structure, leaves)
    if next(leaves, _END) is not _END:
        raise ValueError("pack_sequence_as: more values than the structure has leaves")
    return out


_END = object()


def _pack(structure: Any, leaves: Iterator[Any]) -> Any:
    if not _is_seq(structure):
        value = next(leaves, _END)
        if value is _END:
            raise ValueError("pack_sequence_as: fewer values than the structure has leaves")
        return value
    return _rebuild(structure, [_pack(c, leaves) for c in _children(structure)])


def _check_same(a: Any, b: Any) -> None:
    if _is_seq(a) != _is_seq(b) or (_is_seq(a) and (type(a) is not type(b) or
                                                    len(a) != len(b))):
        raise ValueError(f"map_structure: the structures differ ({type(a).__name__} of "
                         f"{len(a) if _is_seq(a) else 1} vs {type(b).__name__} of "
                         f"{len(b) if _is_seq(b) else 1})")
    if isinstance(a, dict) and sorted(a) != sorted(b):
        raise ValueError(f"map_structure: the dict keys differ ({sorted(a)} vs {sorted(b)})")
    if _is_seq(a):
        for x, y in zip(_children(a), _children(b)):
            _check_same(x, y)


def map_structure(func: Callable[..., Any], *structure: Any) -> Any:
    """func applied leaf by leaf to structures of the same shape; the result has that shape."""
    if not structure:
        raise ValueError("map_structure: give at least one structure")
    for other in structure[1:]:
        _check_same(structure[0], other)
    flats = [flatten(s) for s in structure]
    return pack_sequence_as(structure[0], [func(*leaves) for leaves in zip(*flats)])
