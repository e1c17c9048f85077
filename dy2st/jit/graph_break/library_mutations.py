"""Library functions that change the Python object given to them (`heapq.heappush(h, v)`,
`bisect.insort(a, v)`, `setattr(obj, k, v)`, numpy's `out=`): side effects as much as a method
call on that object, which side_effects.py looks for by these names."""
from __future__ import annotations

import bisect
import builtins
import heapq
import random
import types
from typing import Any, Optional

import numpy as np

# function -> what it changes: "arg" its first argument (a list or array), "attrs" the
# attributes of its first argument
_CHANGES = {
    heapq.heappush: "arg", heapq.heappop: "arg", heapq.heapify: "arg",
    heapq.heapreplace: "arg", heapq.heappushpop: "arg",
    bisect.insort: "arg", bisect.insort_left: "arg", bisect.insort_right: "arg",
    random.shuffle: "arg", np.copyto: "arg", np.put: "arg", np.putmask: "arg",
    np.place: "arg", np.fill_diagonal: "arg",
    builtins.setattr: "attrs", builtins.delattr: "attrs",
}
# the names a code object must mention for one of them to be called (a cheap look first)
NAMES = frozenset(("heappush", "heappop", "heapify", "heapreplace", "heappushpop", "insort",
                   "insort_left", "insort_right", "shuffle", "copyto", "put", "putmask", "place",
                   "fill_diagonal", "setattr", "delattr"))


def mentions(code: types.CodeType) -> bool:
    """Whether the code names one of these functions or passes an `out=` keyword."""
    if not NAMES.isdisjoint(code.co_names):
        return True
    return any(type(c) is tuple and "out" in c for c in code.co_consts)


def changed_object(func: Any, first: Any, out: Any) -> Optional[Any]:
    """The object a call of `func` changes, given its first argument and its `out=` keyword
    (`_NOTHING`-like sentinels are passed as None): a list or array, or an object's __dict__;
    None when the call changes nothing the caller holds."""
    kind = None
    try:
        kind = _CHANGES.get(func)
    except TypeError:       # an unhashable callable
        return None
    if kind == "arg":
        return first
    if kind == "attrs":
        d = getattr(first, "__dict__", None)
        return d if type(d) is dict else None
    if out is not None and _is_numpy(func):
        return out
    return None


def _is_numpy(func: Any) -> bool:
    if isinstance(func, np.ufunc):
        return True
    return (getattr(func, "__module__", None) or "").split(".")[0] == "numpy"
