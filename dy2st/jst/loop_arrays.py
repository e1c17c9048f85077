"""The Python lists a tensor loop grows, made tensor arrays before the loop: a list loop
variable or attribute (`acc.append(t)`, `self.acc += [t]`), or a list kept as an entry of a dict
or list loop variable (`d["acc"].append(t)`, `lst[0] += [t]`). The converter finds most of them
in the source; a traced turn finds the rest (`acc += more`, `more` a list made in the body)."""
from __future__ import annotations

import ast
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..runtime import ops
from ..runtime.tensor import TensorLike


def carried_arrays(name: str, value: Any, arrays: Sequence[str]) -> Any:
    """The loop variable `name` with the lists the loop grows made tensor arrays: the variable
    itself (`acc` or `self.acc` in arrays), or entries of dicts and lists it holds (`d['acc']`,
    `d['a']['b']`, `lst[0]` in arrays)."""
    if name in arrays:
        return lists_to_arrays(value)
    if type(value) in (dict, list):
        prefix = name + "["
        for spec in arrays:
            keys = _keys(spec[len(name):]) if spec.startswith(prefix) else None
            if not keys:
                continue
            *path, key = keys
            holder = value
            for k in path:          # a nested container's entry: "d['inner']['acc']"
                holder = holder[k] if _holds(holder, k) else None
            if _holds(holder, key):
                holder[key] = lists_to_arrays(holder[key])
    return value


def spec_value(spec: str, names: Sequence[str], values: Sequence[Any]) -> Any:
    """The value that spec (`acc`, `self.acc`, `d['a'][0]`) names among the loop variables;
    None where it names none."""
    if spec in names:
        return values[list(names).index(spec)]
    root = spec.split("[", 1)[0]
    if root not in names:
        return None
    keys = _keys(spec[len(root):])
    holder = values[list(names).index(root)]
    for key in keys or ():
        holder = holder[key] if _holds(holder, key) else None
    return holder if keys else None


def _holds(holder: Any, key: Any) -> bool:
    """Whether holder is a dict with the key or a list with the index."""
    if type(holder) is dict:
        return key in holder
    return type(holder) is list and type(key) is int and -len(holder) <= key < len(holder)


def _keys(subscripts: str) -> Optional[list]:
    """The constant keys of "['a'][0]..."; None for anything else ("[0].acc": an attribute of
    an entry, which the loop does not carry as an entry)."""
    node = ast.parse("_" + subscripts, mode="eval").body
    keys = []
    while isinstance(node, ast.Subscript):
        keys.append(ast.literal_eval(node.slice))
        node = node.value
    return keys[::-1] if isinstance(node, ast.Name) else None


def lists_to_arrays(value: Any) -> Any:
    """A Python list carried by a tensor loop becomes a tensor array (appends become writes)."""
    if type(value) is list and all(isinstance(v, TensorLike) for v in value):
        return ops.create_array(value[0].dtype if value else "float32", value)
    return value


class GrownLists(Exception):
    """A traced turn grew Python lists of tensors that the loop carries as lists: the loop is
    traced again with them as tensor arrays (`specs`, spelled as `carried_arrays` reads them)."""

    def __init__(self, specs: List[str]) -> None:
        super().__init__(f"lists grown in a tensor loop: {specs}")
        self.specs = specs


def list_sizes(found: Dict[Tuple[Any, ...], Any]) -> Dict[Tuple[Any, ...], int]:
    """The length of each list among `found` (kept_containers.containers: path -> container)."""
    return {path: len(c) for path, c in found.items() if type(c) is list}


def grown_specs(names: Sequence[str], values: Sequence[Any], sizes: Dict[Tuple[Any, ...], int],
                found: Dict[Tuple[Any, ...], Any], known: Sequence[str]) -> List[str]:
    """The lists of tensors among a turn's loop variables (`found`: path -> container, for
    `values`) longer than they were at the turn's start (`sizes`), reached from a loop
    variable through dicts and lists only, that are not tensor arrays already (`known`)."""
    specs = []
    for path, c in found.items():
        if type(c) is not list or len(c) <= sizes.get(path, len(c)) or \
                not all(isinstance(v, TensorLike) for v in c):
            continue
        spec = names[path[0]] + "".join(f"[{k!r}]" for k in path[1:])
        holder, reachable = values[path[0]], True
        for key in path[1:]:          # through dicts and lists (carried_arrays's holders)
            reachable = type(holder) in (dict, list)
            if not reachable:
                break
            holder = holder[key]
        if reachable and spec not in known:
            specs.append(spec)
    return specs
