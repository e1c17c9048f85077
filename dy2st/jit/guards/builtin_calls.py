"""Builtins called while a trace records: a user function they call back (`key=`, `map`) is
converted so its reads are guarded, and what a picking builtin returns (`max(...)`,
`next(...)`, `d.get(k)`, `sorted(...)`) is noted, so paths read off it are guarded too."""
from __future__ import annotations

import builtins
import functools
import types
from typing import Any, Callable, Dict, Optional, Tuple

from . import library_calls, recorder
from .values import user_object

# builtins whose result is an item of their arguments (or a container of such items)
_PICKERS = frozenset(map(id, (max, min, next, sorted, list, tuple, dict, reversed, filter,
                              iter, getattr, vars)))
# methods of builtin containers whose result is one of their entries
_PICKING_METHODS = frozenset(("get", "pop", "setdefault", "popitem", "__getitem__"))
# builtins that call a function they are given (its reads are the trace's reads)
_CALLERS = frozenset(map(id, (max, min, sorted, map, filter, functools.reduce)))
# builtins that read an attribute of their first argument whose name is computed
_READS_ANY = frozenset(map(id, (getattr, hasattr, vars)))
# ordering builtins that compare the items themselves when given no key
_ORDERING = frozenset(map(id, (max, min, sorted)))
_COMPARISONS = ("__lt__", "__gt__", "__le__", "__ge__")


def wrap(fn: Any, callable_: Any, convert: Callable[[Any], Any]) -> Any:
    """What converted code calls instead of the builtin `fn` while a trace records
    (`callable_` is what it would call otherwise); `convert` is convert_call."""
    name = getattr(fn, "__name__", "")
    method = type(fn) is types.BuiltinMethodType and \
        type(getattr(fn, "__self__", None)) is not types.ModuleType
    calls_back = id(fn) in _CALLERS or method and name == "sort"
    picks = id(fn) in _PICKERS or method and name in _PICKING_METHODS
    if not calls_back and not picks:
        return library_calls.wrap(fn, callable_)
    ordering = id(fn) in _ORDERING or method and name == "sort"
    reads_any = id(fn) in _READS_ANY

    def recorded(*args: Any, **kwargs: Any) -> Any:
        if fn is next and args:
            why = library_calls.moved_iterator(args[0])
            if why is not None:
                recorder.refuse(why)
        if calls_back:
            if _library_callback(args, kwargs):
                # `map(operator.attrgetter("k"), cfgs)`: library code reads the items
                _note_user_objects(args)
            args, kwargs = _converted_callbacks(args, kwargs, convert)
        elif reads_any and args and user_object(args[0]):
            _note_user_objects(args[:1])  # `getattr(pick(cfg), name)`: any attribute
        if ordering and kwargs.get("key") is None:
            args = _check_ordering(fn, name, args, method)
        out = callable_(*args, **kwargs)
        if picks:
            recorder.note_returned(out)
        return out
    return recorded


def _library_callback(args: Tuple, kwargs: Dict[str, Any]) -> bool:
    """A callable among the arguments that is no user function (so it is not converted)."""
    key = kwargs.get("key")
    return any(callable(a) and not _user_function(a) and not isinstance(a, type)
               for a in args + ((key,) if key is not None else ()))


def _note_user_objects(args: Tuple) -> None:
    for a in args:
        if user_object(a):
            recorder.note_deep(a)


def _converted_callbacks(args: Tuple, kwargs: Dict[str, Any],
                         convert: Callable[[Any], Any]) -> Tuple[Tuple, Dict[str, Any]]:
    """User functions among the arguments, converted (so the trace notes their reads)."""
    if any(_user_function(a) for a in args):
        args = tuple(convert(a) if _user_function(a) else a for a in args)
    key = kwargs.get("key")
    if _user_function(key):
        kwargs = dict(kwargs, key=convert(key))
    return args, kwargs


def _user_function(value: Any) -> bool:
    return type(value) is types.FunctionType or type(value) is types.MethodType or \
        type(value) is functools.partial


def _check_ordering(fn: Any, name: str, args: Tuple, method: bool) -> Tuple:
    """max/min/sorted/list.sort without a key compare the items: where an item's class compares
    in Python (its `__lt__` reads attributes no guard sees), the program is not reused. An
    iterator argument is read into a list first (the builtin consumes it anyway)."""
    if method:
        items = fn.__self__
    elif len(args) == 1 or name == "sorted":
        if not args:
            return args
        items = args[0]
        if type(items) not in (list, tuple, dict, set, frozenset):
            items = list(items)
            args = (items,) + tuple(args[1:])
    else:
        items = args
    compared = _python_comparison(items)
    if compared is not None:
        recorder.note_unguarded(f"{name}() compares {compared} objects with a Python method")
    return args


def _python_comparison(items: Any) -> Optional[str]:
    """The name of a class among the items whose comparison is Python code, if any."""
    seen = set()
    for item in items:
        t = type(item)
        if t in seen or t.__module__ == builtins.__name__:
            continue
        seen.add(t)
        for klass in t.__mro__[:-1]:
            if any(type(klass.__dict__.get(m)) is types.FunctionType for m in _COMPARISONS):
                return t.__name__
    return None
