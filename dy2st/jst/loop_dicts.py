"""A dict whose keys a tensor loop may have added or deleted (each such entry carries a "does it
hold a value?" flag, known when the program runs): `get` / `pop` / `setdefault` choose on the
flag; what would list the keys (`keys()`, `items()`, `values()`, `sorted(d)`, `list(d)` & co)
refuses (`len` and iteration: operators.Len, iteration.For)."""
from __future__ import annotations

import functools
import types
from typing import Any, Callable, Optional

from ..runtime.control_flow.loop_growth import flagged_keys, or_none, presence_flag, refuse_listing
from ..runtime.program import Variable
from ..runtime.side_effects import MISSING_KEY
from .namespace import IfElseExpr

_MISSING = object()


# builtins that list what they are given: given a dict, its keys (`sorted(d)`, `list(d)`)
_LISTING = frozenset((sorted, list, tuple, set, frozenset, iter, enumerate, zip, reversed, min,
                      max, sum, any, all))


def _listing(fn: Any) -> Callable:
    @functools.wraps(fn)
    def listing(*args: Any, **kwargs: Any) -> Any:
        for a in args:
            if type(a) is dict:
                refuse_listing(a, f"`{fn.__name__}()`")
        return fn(*args, **kwargs)
    return listing


# one pass-through per builtin, made once: converted code asks for one at every call
_LISTING_CALLS = {fn: _listing(fn) for fn in _LISTING}


def dict_method(fn: Any) -> Any:
    """`d.get` & co as converted code calls them: for a dict with flagged entries, a version
    that chooses on the flag; `sorted(d)` & co, which list its keys, refuse such a dict (with
    graph breaks, Python lists them); else fn itself."""
    if fn in _LISTING:
        return _LISTING_CALLS[fn]
    d = getattr(fn, "__self__", None)
    if type(d) is not dict or not isinstance(fn, types.BuiltinMethodType):
        return fn
    make = _METHODS.get(fn.__name__)
    if make is None or not flagged_keys(d):
        return fn
    return make(d, fn)


def _choose(flag: Variable, key: Any, present: Any, default: Any) -> Any:
    """present where flag holds, else default; a None default is a flag on the value."""
    if default is None:
        return or_none(present, flag, f"the value for the key {key!r}")
    return IfElseExpr(flag, lambda: present, lambda: default)


def _flag(d: dict, key: Any) -> Optional[Variable]:
    try:
        value = d.get(key, _MISSING)
    except TypeError:                     # unhashable: dict's own method raises
        return None
    return None if value is _MISSING else presence_flag(value, MISSING_KEY)


def _get(d: dict, fn: Callable) -> Callable:
    def get(key: Any, default: Any = None) -> Any:
        flag = _flag(d, key)
        if flag is None:
            return fn(key, default)
        return _choose(flag, key, d[key], default)
    return get


def _pop(d: dict, fn: Callable) -> Callable:
    def pop(key: Any, default: Any = _MISSING) -> Any:
        flag = _flag(d, key)
        if flag is None:
            return fn(key) if default is _MISSING else fn(key, default)
        value = d.pop(key)
        if default is _MISSING:
            return value             # read where the key is missing: KeyError when it runs
        return _choose(flag, key, value, default)
    return pop


def _setdefault(d: dict, fn: Callable) -> Callable:
    def setdefault(key: Any, default: Any = None) -> Any:
        flag = _flag(d, key)
        if flag is None:
            return fn(key, default)
        # the entry holds its value where the flag holds, else the default: either way it has
        # one from here on
        d[key] = _choose(flag, key, d[key], default)
        return d[key]
    return setdefault


def _refusing(name: str) -> Callable[[dict, Callable], Callable]:
    def make(d: dict, fn: Callable) -> Callable:
        def listing(*args: Any) -> Any:
            refuse_listing(d, f"`.{name}()`")
            return fn(*args)
        return listing
    return make


_METHODS = {"get": _get, "pop": _pop, "setdefault": _setdefault, "keys": _refusing("keys"), "items": _refusing("items"),
            "values": _refusing("values"), "popitem": _refusing("popitem")}
