"""The Python lists a tensor loop grows, made tensor arrays before the loop: a list loop
variable (`acc.append(t)`), or a list kept as an entry of a dict loop variable
(`d["acc"].append(t)`)."""
from __future__ import annotations

import ast
from typing import Any, Sequence

from ..runtime import ops
from ..runtime.tensor import TensorLike


def carried_arrays(name: str, value: Any, arrays: Sequence[str]) -> Any:
    """The loop variable `name` with the lists the loop grows made tensor arrays: the variable
    itself (`acc` in arrays), or entries of a dict it holds (`d['acc']` in arrays)."""
    if name in arrays:
        return lists_to_arrays(value)
    if type(value) is dict:
        prefix = name + "["
        for spec in arrays:
            if spec.startswith(prefix):
                *path, key = _keys(spec[len(name):])
                holder = value
                for k in path:          # a nested dict's entry: "d['inner']['acc']"
                    holder = holder.get(k) if type(holder) is dict else None
                if type(holder) is dict and key in holder:
                    holder[key] = lists_to_arrays(holder[key])
    return value


def _keys(subscripts: str) -> list:
    """The constant keys of "['a'][0]..."."""
    node = ast.parse("_" + subscripts, mode="eval").body
    keys = []
    while isinstance(node, ast.Subscript):
        keys.append(ast.literal_eval(node.slice))
        node = node.value
    return keys[::-1]


def lists_to_arrays(value: Any) -> Any:
    """A Python list carried by a tensor loop becomes a tensor array (appends become writes)."""
    if type(value) is list and all(isinstance(v, TensorLike) for v in value):
        return ops.create_array(value[0].dtype if value else "float32", value)
    return value
