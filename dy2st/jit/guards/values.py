"""How a guard remembers a Python value and tells whether a later value is the same: plain values
by value, containers entry by entry, ndarrays by content, bound methods by function and object,
tensors and other objects by identity."""
from __future__ import annotations

import collections
import functools
import math
import types
from typing import Any, Callable, Tuple

import numpy as np

from ...runtime.tensor import Tensor

MISSING = object()      # the value of a name or attribute that does not exist
MAX_ITEMS = 256         # entries of one container compared one by one (past it: identity + length)

_BY_VALUE = (int, bool, str, bytes, complex, type(None))
# immutable objects a bound method's `__self__` is compared by value (others: by identity)
_IMMUTABLE = _BY_VALUE + (float, tuple, frozenset)
# a bound method of a builtin type (`acc.append`, `d.get`, `name.upper`, `obj.__eq__`): a new
# object on every attribute read, so it is compared by what decides its behaviour
_BUILTIN_BOUND = (types.BuiltinMethodType, types.MethodWrapperType)


class OwnMethod:
    """What `obj.name` gives when it is a method bound to `obj` itself (`acc.append`,
    `self.helper`): the function only (`obj` has its own guard, or is an object the trace was
    given), so a new method object of the same function matches."""

    __slots__ = ("key",)

    def __init__(self, key: Tuple) -> None:
        self.key = key

    def __eq__(self, other: Any) -> bool:
        return type(other) is OwnMethod and other.key == self.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __repr__(self) -> str:
        fn = self.key[-1]
        return f"<method {fn if type(fn) is str else getattr(fn, '__qualname__', '?')}>"


def bound_method(value: Any) -> bool:
    """A method bound to an object: a Python method, or a builtin type's method (not a module's
    function, which is the same object on every read)."""
    t = type(value)
    if t is types.MethodType:
        return True
    return t in _BUILTIN_BOUND and value.__self__ is not None and \
        type(value.__self__) is not types.ModuleType


def method_key(value: Any) -> Tuple:
    """What decides which code a bound method runs: its function (`__func__`) for a Python
    method; for a builtin type's method its kind and name on its type (`list.append`)."""
    if type(value) is types.MethodType:
        return ("py", value.__func__)
    return ("c", type(value), value.__qualname__)


# builtin containers (and what their contents are compared as) whose subclasses' instances are
# otherwise compared by identity only, although their builtin methods read their contents
_CONTAINERS = ((dict, dict), (list, list), (collections.deque, list), (set, set),
               (frozenset, frozenset), (tuple, tuple), (str, str), (bytes, bytes),
               (bytearray, bytes))


def plain_contents(obj: Any) -> Any:
    """The plain type `obj`'s contents are compared as, when it is an instance of a subclass of
    a builtin container (an OrderedDict, a `class Table(dict)`); None otherwise."""
    for base, plain in _CONTAINERS:
        if isinstance(obj, base):
            return plain
    return None


def contents_guarded(obj: Any) -> bool:
    """Whether a guard of `obj` (by `snapshot`) also sees what its builtin methods read: its
    contents are compared, or it has none."""
    return snapshot(obj)[0] != "o" or plain_contents(obj) is None


def _self_snapshot(obj: Any, depth: int) -> Tuple:
    """A bound method's object: by value when immutable; a container or an array kept with a
    method of it (`self.lookup = TABLE.get`) by identity and contents, which the method reads
    where no other guard does; any other object by identity."""
    snap = snapshot(obj, depth + 1)
    if type(obj) in _IMMUTABLE:
        return snap
    if snap[0] != "o":
        return ("same", obj, snap)
    plain = plain_contents(obj)
    return snap if plain is None else ("cont", obj, plain, snapshot(plain(obj), depth + 1))


def snapshot(value: Any, depth: int = 0) -> Tuple:
    """What `matches` compares a later value with."""
    t = type(value)
    if t in _BY_VALUE:
        return ("v", t, value)
    if t is float:
        return ("f", value)             # -0.0 differs from 0.0; a NaN equals a NaN
    if t in (list, tuple, dict, set, frozenset) and depth < 3:
        if len(value) > MAX_ITEMS:
            return ("big", value, len(value))
        items = value.values() if t is dict else value
        if t is not set and t is not frozenset and all(_flat(v) for v in items):
            # plain entries: compared at once, by their types and values (see _flat)
            keys = tuple(value) if t is dict else None
            return ("flat", t, keys, tuple(map(type, items)), tuple(items))
        if t is dict:
            return ("d", tuple(value), tuple(snapshot(v, depth + 1) for v in value.values()))
        if t in (set, frozenset):
            return ("set", t, frozenset(value)) if all(type(v) in _BY_VALUE for v in value) \
                else ("o", value)
        return ("s", t, tuple(snapshot(v, depth + 1) for v in value))
    if t is np.ndarray:
        return ("a", value.copy())
    if isinstance(value, np.generic):
        return ("n", t, value.tobytes())
    if isinstance(value, Tensor):
        return ("t", value, value._value.shape, value._value.dtype)
    if t is OwnMethod:
        return ("v", t, value)
    if bound_method(value):
        return ("m", method_key(value), _self_snapshot(value.__self__, depth))
    if t is functools.partial:
        # the same object, and its arguments as they were (`P.keywords["k"] = 2` changes it)
        return ("p", value, snapshot(value.args, depth + 1),
                snapshot(dict(value.keywords), depth + 1))
    return ("o", value)


def user_object(value: Any) -> bool:
    """An object library code may read the attributes of: an instance with a `__dict__` of a
    user's or a config class (a dataclass, SimpleNamespace, argparse.Namespace), no module,
    class, function, tensor, array or Layer; or a list, tuple or dict holding one."""
    t = type(value)
    if t in (list, tuple):
        return len(value) <= MAX_ITEMS and any(map(user_object, value))
    if t is dict:
        return len(value) <= MAX_ITEMS and any(map(user_object, value.values()))
    d = getattr(value, "__dict__", None)
    return type(d) is dict and "_sub_layers" not in d and \
        not isinstance(value, _NOT_USER_OBJECTS) and t.__module__.split(".")[0] != "dy2st"


_NOT_USER_OBJECTS = (types.ModuleType, type, types.FunctionType, types.MethodType, Tensor,
                     np.ndarray, functools.partial)
DEEP_LEVELS = 4         # levels of objects and containers a deep guard compares


def deep_snapshot(value: Any, depth: int = 0) -> Tuple:
    """A snapshot that also compares the instance attributes of user objects (and of the
    objects and containers in them, DEEP_LEVELS levels down): what a library function given
    the object (copy.deepcopy, dataclasses.asdict) may have read."""
    t = type(value)
    if depth < DEEP_LEVELS:
        if t in (list, tuple) and len(value) <= MAX_ITEMS:
            return ("s", t, tuple(deep_snapshot(v, depth + 1) for v in value))
        if t is dict and len(value) <= MAX_ITEMS:
            return ("d", tuple(value), tuple(deep_snapshot(v, depth + 1)
                                              for v in value.values()))
        if t not in (list, tuple, dict) and user_object(value):
            # its attributes are one level down, as a container's items are
            return ("u", value, ("d", tuple(value.__dict__), tuple(
                deep_snapshot(v, depth + 1) for v in value.__dict__.values())))
    return snapshot(value, 3)


def matches(snap: Tuple, value: Any, depth: int = 0) -> bool:
    """Whether `value` is the same as the value `snap` was taken of, for a traced program."""
    kind = snap[0]
    if kind == "o":
        return value is snap[1]
    if kind == "v":
        return type(value) is snap[1] and value == snap[2]
    if kind == "f":
        return type(value) is float and same_float(value, snap[1])
    if kind == "flat":
        t = snap[1]
        if type(value) is not t or len(value) != len(snap[4]):
            return False
        items = value.values() if t is dict else value
        return ((t is not dict or tuple(value) == snap[2]) and
                tuple(map(type, items)) == snap[3] and tuple(items) == snap[4])
    if kind == "s":
        if type(value) is not snap[1] or len(value) != len(snap[2]):
            return False
        return all(matches(s, v, depth + 1) for s, v in zip(snap[2], value))
    if kind == "d":
        if type(value) is not dict or len(value) != len(snap[1]):
            return False
        if tuple(value) != snap[1]:
            return False
        return all(matches(s, v, depth + 1) for s, v in zip(snap[2], value.values()))
    if kind == "t":
        return value is snap[1] and value._value.shape == snap[2] and value._value.dtype == snap[3]
    if kind == "a":
        old = snap[1]
        return (type(value) is np.ndarray and value.shape == old.shape and value.dtype == old.dtype
                and np.array_equal(value, old, equal_nan=old.dtype.kind in "fc"))
    if kind == "m":
        return bound_method(value) and method_key(value) == snap[1] and \
            matches(snap[2], value.__self__, depth + 1)
    if kind == "n":
        return type(value) is snap[1] and value.tobytes() == snap[2]
    if kind == "p":
        return value is snap[1] and matches(snap[2], value.args, depth + 1) and \
            matches(snap[3], value.keywords, depth + 1)
    if kind == "set":
        return type(value) is snap[1] and value == snap[2]
    if kind == "same":
        return value is snap[1] and matches(snap[2], value, depth + 1)
    if kind == "cont":
        return value is snap[1] and matches(snap[3], snap[2](value), depth + 1)
    if kind == "big":
        return value is snap[1] and len(value) == snap[2]
    if kind == "u":
        return value is snap[1] and matches(snap[2], value.__dict__, depth + 1)
    return False


def _flat(v: Any) -> bool:
    """A value == compares exactly once its type is the same: not -0.0 / 0.0 / NaN floats."""
    t = type(v)
    return t in _BY_VALUE and t is not complex or (t is float and v == v and v != 0.0)


def same_float(a: float, b: float) -> bool:
    """a and b are the same float: -0.0 differs from 0.0, a NaN equals a NaN."""
    if a == b:
        return a != 0.0 or math.copysign(1.0, a) == math.copysign(1.0, b)
    return a != a and b != b


def checker(value: Any) -> Callable[[Any], bool]:
    """A fast test `value_now -> still the same`, specialised on the kind of `value`."""
    snap = snapshot(value)
    kind = snap[0]
    if kind == "o":
        obj = snap[1]
        return lambda v: v is obj
    if kind == "v":
        t, old = snap[1], snap[2]
        return lambda v: type(v) is t and v == old
    return lambda v: matches(snap, v)


def same_number_type(value: Any) -> Callable[[Any], bool]:
    """A test `value_now -> a number of the same type` (an int within int32, the input's
    dtype)."""
    t = type(value)
    if t is int:
        return lambda v: type(v) is int and -2 ** 31 <= v < 2 ** 31
    return lambda v: type(v) is t


def describe(value: Any) -> str:
    """A short text of a guarded value for the re-trace log."""
    if value is MISSING:
        return "<missing>"
    if isinstance(value, (Tensor, np.ndarray)):
        arr = value._value if isinstance(value, Tensor) else value
        what = "tensor" if isinstance(value, Tensor) else "ndarray"
        return f"{what} {list(arr.shape)} {arr.dtype}"
    if bound_method(value):
        fn = value.__func__ if type(value) is types.MethodType else value
        return f"<method {getattr(fn, '__qualname__', '?')} of a {type(value.__self__).__name__}>"
    text = repr(value) if type(value) in _BY_VALUE + (float, list, tuple, dict, OwnMethod) else \
        f"<{type(value).__name__} object>"
    return text if len(text) <= 40 else text[:37] + "..."
