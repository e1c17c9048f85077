"""Lists and dicts a tensor `if` or loop only changes (never rebinds) stay the same objects after
it, as in eager code: their merged contents are written back into the objects from before, so
another name, a holder container or a graph-break region's caller holding them sees the change."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

from ..runtime.pytree import flatten

Path = Tuple[Any, ...]
_CONTAINERS = (list, dict)


def containers(value: Any, path: Path = (), found: Optional[Dict[Path, Any]] = None
               ) -> Dict[Path, Any]:
    """Every list and dict reachable in `value` (through lists, dicts and tuples), by path."""
    found = {} if found is None else found
    kind = type(value)
    if kind in _CONTAINERS:
        found[path] = value
    if kind in (list, tuple):
        for k, v in enumerate(value):
            containers(v, path + (k,), found)
    elif kind is dict:
        for k, v in value.items():
            containers(v, path + (k,), found)
    return found


def kept(start: Dict[Path, Any], end: Any, path: Path = (), out: Optional[Set[Path]] = None
         ) -> Set[Path]:
    """The paths whose container in `end` is still the object `start` (from `containers`) had
    there: changed at most in place on this path, never rebound. Below a rebound container
    nothing counts as kept (its entries were built anew)."""
    out = set() if out is None else out
    kind = type(end)
    if kind in _CONTAINERS:
        if start.get(path) is not end:
            return out
        out.add(path)
    if kind in (list, tuple):
        for k, v in enumerate(end):
            kept(start, v, path + (k,), out)
    elif kind is dict:
        for k, v in end.items():
            kept(start, v, path + (k,), out)
    return out


def write_back(original: Any, merged: Any, keep: Set[Path], path: Path = ()) -> Any:
    """`merged` (values after the `if` or loop) with every container at a path in `keep` made
    the object `original` has there, its contents replaced by the merged ones."""
    kind = type(merged)
    if kind in _CONTAINERS and path in keep and type(original) is kind:
        if kind is list:
            items = [write_back(original[k] if k < len(original) else None, v, keep, path + (k,))
                     for k, v in enumerate(merged)]
            original[:] = items
        else:
            entries = {k: write_back(original.get(k), v, keep, path + (k,))
                       for k, v in merged.items()}
            original.clear()
            original.update(entries)
        return original
    if kind is tuple and type(original) is tuple and len(original) == len(merged):
        return tuple(write_back(o, v, keep, path + (k,))
                     for k, (o, v) in enumerate(zip(original, merged)))
    return merged


def changed_containers(init: Sequence[Any], t_out: Sequence[Any], f_out: Sequence[Any],
                       keep: Set[Path], outputs: Sequence[int]) -> List[int]:
    """Indices (not among `outputs`) of lists and dicts from before a tensor `if` that a branch
    changed in place, kept on both paths and of one structure after either: they must leave
    the `if` although their names are not read again, since another holder may read them."""
    found = []
    for i, value in enumerate(init):
        if i in outputs or type(value) not in _CONTAINERS or (i,) not in keep:
            continue
        (t_leaves, t_tree), (f_leaves, f_tree) = flatten(t_out[i]), flatten(f_out[i])
        if t_tree != f_tree:
            continue
        leaves, tree = flatten(value)
        if tree != t_tree or any(a is not b or a is not c
                                 for a, b, c in zip(leaves, t_leaves, f_leaves)):
            found.append(i)
    return found
