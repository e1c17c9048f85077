"""Library calls while a trace records (library code is run as it is, so its reads are not
followed): a user object given to one (`copy.copy(cfg)`, `dataclasses.replace(cfg, ...)`,
`operator.attrgetter("k")(cfg)`, `"{0.name}".format(cfg)`) has its attributes guarded deeply;
an lru_cache'd helper has its own reads guarded; os.environ readers guard the environment; a call
whose result hangs on state no guard can check (random streams, the clock, an iterator's
position) is a graph break in the default mode and a clear error with full_graph=True
(recorder.refuse)."""
from __future__ import annotations

import functools
import itertools
import os
import types
from typing import Any, Callable, Optional

from . import recorder
from .values import user_object

# modules (and the packages under them) whose functions read state no guard sees
_HIDDEN_MODULES = ("random", "time", "secrets", "uuid", "numpy.random", "_random")
_HIDDEN_NAMES = {"datetime": frozenset(("now", "today", "utcnow")),
                 "os": frozenset(("urandom", "getrandom", "times"))}
# library calls that read nothing of their arguments but their identity or type
_IDENTITY_ONLY = frozenset(map(id, (isinstance, issubclass, id, type, callable, print, len,
                                    iter, next, super, object, hash)))
_ENVIRON_READERS = frozenset(map(id, (os.getenv,)))
_ITERTOOLS_TYPES = tuple(t for t in vars(itertools).values() if isinstance(t, type))


def _home(fn: Any) -> str:
    """The module a library callable belongs to (its own, or its bound object's type's)."""
    module = getattr(fn, "__module__", None)
    if not module:
        owner = getattr(fn, "__self__", None)
        if owner is not None and not isinstance(owner, types.ModuleType):
            module = (owner if isinstance(owner, type) else type(owner)).__module__
        elif isinstance(owner, types.ModuleType):
            module = owner.__name__
    return module or ""


def hidden_state(fn: Any) -> Optional[str]:
    """Why `fn`'s result depends on state no guard can check (None if it does not)."""
    home = _home(fn)
    name = getattr(fn, "__name__", "")
    if any(home == m or home.startswith(m + ".") for m in _HIDDEN_MODULES):
        return f"`{home.lstrip('_')}.{name}` reads a random stream or the clock"
    if name in _HIDDEN_NAMES.get(home.split(".")[0], ()):
        return f"`{home}.{name}` reads the clock or the system"
    owner = getattr(fn, "__self__", None)
    if isinstance(owner, (types.GeneratorType, _ITERTOOLS_TYPES)):
        return f"`{type(owner).__name__}.{name}` moves an iterator"
    return None


def moved_iterator(it: Any) -> Optional[str]:
    """Why `next(it)` depends on state no guard can check: a generator, an itertools iterator,
    an iterator class of Python code (None for a builtin container's iterator)."""
    t = type(it)
    if isinstance(it, (types.GeneratorType, _ITERTOOLS_TYPES)):
        return f"next() of a {t.__name__} depends on how far it has run"
    if t.__module__ != "builtins" and isinstance(getattr(t, "__next__", None),
                                                  types.FunctionType):
        return f"next() of a {t.__name__} runs its Python __next__"
    return None


def wrap(fn: Any, call: Any = None) -> Any:
    """What converted code calls instead of the library callable `fn` while a trace records
    (`call` is what it would call otherwise, `fn` itself by default)."""
    call = fn if call is None else call
    if id(fn) in _IDENTITY_ONLY:
        return call
    why = hidden_state(fn)
    if why is not None:
        def refused(*args: Any, **kwargs: Any) -> Any:
            recorder.refuse(why)
            return call(*args, **kwargs)
        return refused
    if id(fn) in _ENVIRON_READERS or getattr(fn, "__self__", None) is os.environ:
        def environ_read(*args: Any, **kwargs: Any) -> Any:
            recorder.note_environ()
            return call(*args, **kwargs)
        return environ_read
    if isinstance(fn, functools._lru_cache_wrapper):  # noqa: SLF001 - its public type
        return _cached(fn, call)
    if isinstance(fn, type):
        return _instantiating(fn, call)
    if _home(fn).split(".")[0] == "dy2st":
        return call         # our own functions read tensors and numbers, not user objects

    def deep_read(*args: Any, **kwargs: Any) -> Any:
        for value in itertools.chain(args, kwargs.values()):
            if user_object(value):
                recorder.note_deep(value)
        owner = getattr(fn, "__self__", None)
        if owner is not None and user_object(owner):
            recorder.note_deep(owner)
        return call(*args, **kwargs)
    return deep_read


def _cached(fn: Any, call: Any) -> Callable:
    """An lru_cache'd helper: eager code gets the cached result, so it is called as it is; its
    function's reads are guarded (a change traces again, and the call then gives what eager
    gets), and so is the cache's size (`cache_clear()` traces again)."""
    inner = getattr(fn, "__wrapped__", None)

    def cached(*args: Any, **kwargs: Any) -> Any:
        out = call(*args, **kwargs)
        if isinstance(inner, types.FunctionType):
            recorder.note_call(inner, recorder.bind(inner.__code__, args, kwargs))
        recorder.note_read(lambda: fn.cache_info().currsize, fn.cache_info().currsize,
                           f"the cache of `{getattr(fn, '__qualname__', '?')}`")
        return out
    return cached


def _instantiating(cls: type, call: Any) -> Callable:
    """A user class called: its `__init__` runs as it is (library code runs it), so its reads
    (`type(self).SCALE`, globals) are guarded as a helper's, bound to the new object."""
    init = cls.__init__
    if not isinstance(init, types.FunctionType) or \
            cls.__module__.split(".")[0] in ("builtins", "dy2st"):
        return call

    def instantiated(*args: Any, **kwargs: Any) -> Any:
        out = call(*args, **kwargs)
        if isinstance(out, cls):
            recorder.note_call(init, recorder.bind(init.__code__, (out,) + args, kwargs))
        return out
    return instantiated
