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
                key = ast.literal_eval(spec[len(prefix):-1])
                if key in value:
                    value[key] = lists_to_arrays(value[key])
    return value


def lists_to_arrays(value: Any) -> Any:
    """A Python list carried by a tensor loop becomes a tensor array (appends become writes)."""
    if type(value) is list and all(isinstance(v, TensorLike) for v in value):
        return ops.create_array(value[0].dtype if value else "float32", value)
    return value
