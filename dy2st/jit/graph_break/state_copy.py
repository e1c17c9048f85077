"""What the side-effect scan shares with the code that undoes a trace's changes: the kinds of
objects a statement changes in place, and the copy of the Python state a full_graph=True trace
runs with (put back after it, since the call then runs eagerly)."""
from __future__ import annotations

import collections
from typing import Any, List, Tuple

import numpy as np

CONTAINERS = (list, dict, set, collections.deque, bytearray)
# what item assignment and `+=` change in place (a numpy array too: `w += 1`, `w[0] = v`)
MUTABLE = CONTAINERS + (np.ndarray,)
MISSING = object()      # no such value (an attribute, a dict entry, an argument not known yet)


def attribute_or(obj: Any, attr: str, default: Any) -> Any:
    """getattr(obj, attr, default) for a user object, whose `__getattr__` may raise another
    error than AttributeError for a missing name (an AttrDict config raises KeyError)."""
    try:
        return getattr(obj, attr, default)
    except Exception:  # noqa: BLE001 - any error of user code means: no such attribute
        return default


class StateCopy:
    """Shallow copies of containers (and of the containers in them), attribute and global
    values, taken before a trace that runs side effects once, and put back after it."""

    def __init__(self, touched: List[Tuple]) -> None:
        self.saved: List[Tuple] = []
        seen = set()
        for t in touched:
            if t[0] == "container":
                self._copy(t[1], seen, 0)
                d = getattr(t[2], "__dict__", None) if len(t) > 2 else None
                if type(d) is dict and t[3] in d:
                    self.saved.append(("item", d, t[3], d[t[3]]))
            elif t[0] == "attr":
                d = getattr(t[1], "__dict__", None)
                if type(d) is dict:
                    self.saved.append(("item", d, t[2], d.get(t[2], MISSING)))
                    self._copy(d.get(t[2]), seen, 1)
                elif isinstance(t[1], type):    # a class: its __dict__ is read-only
                    self.saved.append(("class", t[1], t[2], d.get(t[2], MISSING)))
            else:
                self.saved.append(("item", t[1], t[2], t[1].get(t[2], MISSING)))

    def __bool__(self) -> bool:
        return bool(self.saved)

    def _copy(self, obj: Any, seen: set, depth: int) -> None:
        if isinstance(obj, np.ndarray) and id(obj) not in seen:
            seen.add(id(obj))
            self.saved.append(("array", obj, obj.copy()))
        if not isinstance(obj, CONTAINERS) or id(obj) in seen or depth > 3:
            return
        seen.add(id(obj))
        items = list(obj.items()) if isinstance(obj, dict) else list(obj)
        self.saved.append(("container", obj, items))
        for v in (obj.values() if isinstance(obj, dict) else obj if isinstance(obj, list)
                  else ()):
            self._copy(v, seen, depth + 1)

    def restore(self) -> None:
        for entry in reversed(self.saved):
            if entry[0] == "array":
                entry[1][...] = entry[2]
                continue
            if entry[0] == "class":
                _kind, cls, name, value = entry
                if value is MISSING:
                    delattr(cls, name)
                else:
                    setattr(cls, name, value)
                continue
            if entry[0] == "item":
                _kind, table, name, value = entry
                if value is MISSING:
                    table.pop(name, None)
                else:
                    table[name] = value
                continue
            obj, items = entry[1], entry[2]
            obj.clear()
            if isinstance(obj, (dict, set)):
                obj.update(items)
            else:
                obj.extend(items)
