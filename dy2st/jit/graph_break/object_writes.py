"""Attributes a region's trace writes on objects it receives (`s.h = s.h * 10.0`, `s` made before
a break): the trace would leave symbolic values there and a compiled call would write nothing, so
the objects are put back after the trace and the region runs as Python."""
from __future__ import annotations

import types
from typing import Any, Dict, List, Tuple

import numpy as np

from ...runtime.tensor import Tensor

_SKIPPED = (Tensor, np.ndarray, np.generic, type, types.ModuleType, types.FunctionType,
            types.BuiltinFunctionType, types.MethodType, str, bytes, int, float, complex, bool)
_DEPTH = 3
REASON = ("the region sets attributes of an object made before a graph break, which a "
          "compiled call would not set: the region runs as Python")


def snapshot(args: Tuple, kwargs: Dict) -> List[Tuple[Any, Dict[str, Any]]]:
    """(object, copy of its attributes) for the user objects args and kwargs reach (through
    lists, tuples, dicts and attributes, a few levels deep)."""
    saved: List[Tuple[Any, Dict[str, Any]]] = []
    seen: set = set()

    def walk(v: Any, depth: int) -> None:
        if depth < 0 or v is None or isinstance(v, _SKIPPED) or id(v) in seen:
            return
        seen.add(id(v))
        if isinstance(v, dict):
            items = list(v.values())
        elif isinstance(v, (list, tuple, set, frozenset)):
            items = list(v)
        else:
            attrs = getattr(v, "__dict__", None)
            # the library's own objects (Layers, optimizers) keep their state by other means
            if type(attrs) is not dict or type(v).__module__.startswith("dy2st."):
                return
            saved.append((v, dict(attrs)))
            items = list(attrs.values())
        for item in items:
            walk(item, depth - 1)
    walk((args, kwargs), _DEPTH + 1)
    return saved


def put_back(saved: List[Tuple[Any, Dict[str, Any]]]) -> bool:
    """Restore the attributes of the objects that changed; whether any had."""
    changed = False
    for obj, attrs in saved:
        now = obj.__dict__
        if now.keys() != attrs.keys() or any(now[k] is not v for k, v in attrs.items()):
            now.clear()
            now.update(attrs)
            changed = True
    return changed
