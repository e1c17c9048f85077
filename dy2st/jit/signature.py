"""Cache keys for converted calls: tensor shapes/dtypes, Python values, object identities.

Objects are keyed by identity through a weak reference, never by a raw id(): an id is reused
after its object dies, and a key built from it would hand the old program to a new object."""
from __future__ import annotations

import inspect
import types
import weakref
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..format.input_spec import InputSpec
from ..runtime.control_flow.cond import is_undefined
from ..runtime.dtype import DType, dtype_name
from ..runtime.pytree import is_namedtuple
from ..runtime.tensor import Tensor


class IdentityKey:
    """Equal only to a key of the very same (still living) object."""

    __slots__ = ("_ref", "_strong", "_hash", "type_name")

    def __init__(self, obj: Any) -> None:
        try:
            self._ref = weakref.ref(obj)
            self._strong = None
        except TypeError:          # not weak-referenceable: keep it alive so its id stays its own
            self._ref = None
            self._strong = obj
        self._hash = id(obj)
        self.type_name = type(obj).__name__

    def get(self) -> Any:
        return self._strong if self._ref is None else self._ref()

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: Any) -> bool:
        if not isinstance(other, IdentityKey):
            return False
        a, b = self.get(), other.get()
        return a is not None and a is b

    def __repr__(self) -> str:
        return f"<{self.type_name} object>"


class CallBinder:
    """Puts a call into one canonical form, so that its cache key covers every argument however
    it is passed: each positional parameter positional (given by keyword or left to its default),
    keyword-only ones and **kwargs by keyword in a fixed order, defaults filled in."""

    __slots__ = ("_function", "_skip", "_fast_len", "_varargs", "_sig", "_defaults")

    def __init__(self, function: Callable, bound: bool) -> None:
        self._function = function
        self._skip = 1 if bound else 0
        self._sig: Optional[inspect.Signature] = None
        self._defaults: Tuple[Any, Any] = (None, None)
        code = getattr(function, "__code__", None)
        # A call with exactly one value per positional parameter (and no keyword-only ones) is
        # already canonical: that common case must stay a length check.
        if (isinstance(function, types.FunctionType) and code is not None
                and not code.co_kwonlyargcount and not hasattr(function, "__signature__")
                and not hasattr(function, "__wrapped__")):
            self._fast_len = code.co_argcount - self._skip
            self._varargs = bool(code.co_flags & inspect.CO_VARARGS)
        else:
            self._fast_len, self._varargs = -1, False

    def is_canonical(self, args: Tuple, kwargs: Dict) -> bool:
        n = self._fast_len
        return not kwargs and n >= 0 and (len(args) == n or (self._varargs and len(args) > n))

    def canonical(self, args: Tuple, kwargs: Dict) -> Tuple[Tuple, Dict[str, Any]]:
        """(args, kwargs) of the same call in canonical form."""
        if self.is_canonical(args, kwargs):
            return args, kwargs
        missing = self._fast_len - len(args)
        if not kwargs and missing > 0:
            # trailing positional parameters left to their defaults (read live)
            defaults = self._function.__defaults__ or ()
            if missing <= len(defaults):
                return tuple(args) + defaults[len(defaults) - missing:], {}
        sig = self._signature()
        if sig is None:
            return args, dict(sorted(kwargs.items()))
        head = (None,) * self._skip        # stands for the bound instance
        try:
            bound = sig.bind(*head, *args, **kwargs)
        except TypeError as e:
            name = getattr(self._function, "__qualname__", "the function")
            raise TypeError(f"{name}() {e}") from None
        bound.apply_defaults()
        out_args: List[Any] = []
        out_kwargs: Dict[str, Any] = {}
        for name, p in sig.parameters.items():
            v = bound.arguments[name]
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                out_args.append(v)
            elif p.kind == p.VAR_POSITIONAL:
                out_args.extend(v)
            elif p.kind == p.KEYWORD_ONLY:
                out_kwargs[name] = v
            else:
                out_kwargs.update(sorted(v.items()))
        return tuple(out_args[self._skip:]), out_kwargs

    def _signature(self) -> Optional[inspect.Signature]:
        fn = self._function
        # defaults are read live: assigning fn.__defaults__ must change the canonical call
        defaults = (getattr(fn, "__defaults__", None), getattr(fn, "__kwdefaults__", None))
        if self._sig is None or defaults[0] is not self._defaults[0] or \
                defaults[1] is not self._defaults[1]:
            try:
                self._sig = inspect.signature(fn)
            except (TypeError, ValueError):
                return None
            self._defaults = defaults
        return self._sig


def value_key(v: Any) -> Any:
    """A hashable description of one argument."""
    if isinstance(v, Tensor):
        arr = v._value
        return ("T", arr.shape, arr.dtype.char)
    if isinstance(v, float):
        return (float, v.hex())     # -0.0 and 0.0 differ; a NaN matches the same NaN
    if v is None or isinstance(v, (bool, int, str, bytes, complex)):
        return (type(v), v)
    if isinstance(v, np.ndarray):
        return ("T", v.shape, v.dtype.char)
    if type(v) in (list, tuple) or is_namedtuple(v):    # (a namedtuple's tensors are inputs)
        return (type(v), tuple(value_key(x) for x in v))
    if type(v) is dict:
        return (dict, tuple((k, value_key(x)) for k, x in v.items()))
    if is_undefined(v):
        return ("U",)      # a name without a value (graph-break regions): any such is alike
    if type(v) is types.FunctionType:
        return _function_key(v)
    if type(v) is types.MethodType:
        # `cfg.scaled` is a new method object on every read: keyed by function and object
        return ("M", value_key(v.__func__), IdentityKey(v.__self__))
    if isinstance(v, type) or callable(v) or not _hashable(v):
        return ("O", IdentityKey(v))
    return ("O", IdentityKey(v))


def _function_key(fn: types.FunctionType) -> Any:
    """A function is keyed by what decides what it does (its code, globals, and its defaults
    and closure values: plain values by value, any other object by identity, since a trace
    captures a closure's tensor itself, not a feed of it), so a lambda or a nested def made
    anew on every call (and passed to a graph-break region) keys alike while those hold."""
    cells = []
    for cell in fn.__closure__ or ():
        try:
            cells.append(_captured_key(cell.cell_contents))
        except ValueError:          # a cell not assigned yet
            cells.append(("<empty>",))
    defaults = tuple(map(_captured_key, fn.__defaults__ or ()))
    kwdefaults = tuple((k, _captured_key(v)) for k, v in (fn.__kwdefaults__ or {}).items())
    return ("F", IdentityKey(fn.__code__), IdentityKey(fn.__globals__), defaults, kwdefaults,
            tuple(cells))


def _captured_key(v: Any) -> Any:
    if v is None or type(v) in (bool, int, str, bytes, complex):
        return (type(v), v)
    if type(v) is float:
        return (float, v.hex())
    return ("O", IdentityKey(v))


def _hashable(v: Any) -> bool:
    try:
        hash(v)
        return True
    except TypeError:
        return False


def spec_key(v: Any, spec: Optional[InputSpec]) -> Any:
    """Like value_key, but a tensor that fits `spec` is keyed by the spec (None dims)."""
    if spec is not None and isinstance(v, (Tensor, np.ndarray)):
        arr = v._value if isinstance(v, Tensor) else v
        if spec.matches(arr.shape, arr.dtype):
            return ("S", spec.shape, dtype_name(spec.dtype))
    return value_key(v)


def describe_change(names: Sequence[str], old: Tuple, new: Tuple) -> str:
    """Why a new program was traced, e.g. "argument `x` dim 0: 16 -> 17". Keys are
    (positional argument keys, keyword argument keys, training flag or None), and under
    paddle.amp.auto_cast its settings."""
    (old_args, old_kw, old_training), (new_args, new_kw, new_training) = old[:3], new[:3]
    reasons: List[str] = []
    if len(old_args) != len(new_args):
        reasons.append(f"{len(new_args)} positional arguments instead of {len(old_args)}")
    for name, a, b in zip(names, old_args, new_args):
        if a == b:
            continue
        if a[0] == "T" and b[0] == "T":
            if len(a[1]) != len(b[1]):
                reasons.append(f"argument `{name}` rank {len(a[1])} -> {len(b[1])}")
            for d, (x, y) in enumerate(zip(a[1], b[1])):
                if x != y:
                    reasons.append(f"argument `{name}` dim {d}: {x} -> {y}")
            if a[2] != b[2]:
                reasons.append(f"argument `{name}` dtype {np.dtype(a[2])} -> {np.dtype(b[2])}")
        elif a[0] is float and b[0] is float:      # keyed by float.hex()
            reasons.append(f"argument `{name}` value {float.fromhex(a[1])!r} -> "
                           f"{float.fromhex(b[1])!r}")
        elif a[0] in (type(None), bool, int, str) and b[0] == a[0]:
            reasons.append(f"argument `{name}` value {a[1]!r} -> {b[1]!r}")
        else:
            reasons.append(f"argument `{name}` changed ({_short(a)} -> {_short(b)})")
    if old_kw != new_kw:
        reasons.append(f"keyword arguments changed ({_kw(old_kw)} -> {_kw(new_kw)})")
    if old_training != new_training:
        reasons.append(f"the Layer's training flag changed ({old_training} -> {new_training})")
    if old[3:] != new[3:]:
        reasons.append("paddle.amp.auto_cast changed (on / off, level, dtype or op lists)")
    return "; ".join(reasons) or "a new signature"


def _short(k: Any) -> str:
    if k[0] == "T":
        return f"tensor {list(k[1])} {np.dtype(k[2])}"
    if k[0] == "S":
        return f"tensor fitting {list(k[1])}"
    if k[0] == "O":
        return repr(k[1])
    if k[0] == "F":
        code = k[1].get()
        return f"<function {getattr(code, 'co_name', '?')}>"
    if len(k) > 1 and isinstance(k[1], DType):
        return str(k[1])        # paddle.float32, not the enum repr
    return repr(k[1]) if len(k) > 1 else repr(k)


def _kw(items: Tuple) -> str:
    return ", ".join(k for k, _ in items) or "none"
