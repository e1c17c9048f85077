"""The guards of one cache entry: a source (how to read the value again: a global, a closure
cell, an attribute path from an object the trace was given) and a check of the value read."""
from __future__ import annotations

import os
import types
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

import numpy as np

from ...format.input_spec import InputSpec
from ...runtime import state
from ...runtime.program import Variable
from ...runtime.tensor import Tensor
from ..layer_tables import in_layer_tables
from .compiled import compile_check
from .layer_states import LayerStates
from .reads import ALL_ATTRIBUTES, ITEMS, RESULT, VALUES, reads_of, rebound_cells
from .recorder import DEEP, LAYER, READ, RETURNED, UNGUARDED, Call, environ
from .values import (
    MAX_ITEMS,
    MISSING,
    OwnMethod,
    bound_method,
    checker,
    contents_guarded,
    deep_snapshot,
    describe,
    matches,
    method_key,
    same_number_type,
)

# modules whose attributes a trace reads are not guarded (they are the library, not user state):
# the module object itself is
_LIBRARY_ROOTS = frozenset(("dy2st", "numpy", "math", "builtins", "functools", "itertools",
                            "operator", "collections", "typing", "paddle", "scipy"))
_OPAQUE = (Tensor, np.ndarray, Variable, InputSpec)
# what builtins return whose attributes are fixed (their methods are their type's)
_NO_ATTRIBUTES = frozenset((list, tuple, dict, set, frozenset, type(iter(())), type(iter([])),
                            type(iter({})), type(iter({}.values())), reversed, filter, map, zip))
_GRAD_NAMES = frozenset(("is_grad_enabled", "set_grad_enabled", "no_grad", "enable_grad"))


class Guard:
    """One guarded value: `read()` gives its value now, `ok(value)` whether it is unchanged."""

    __slots__ = ("read", "ok", "what", "value", "source", "key", "by_type")

    def __init__(self, read: Callable[[], Any], value: Any, what: str,
                 source: Optional[Tuple] = None, key: Any = None, by_type: bool = False,
                 ok: Optional[Callable[[Any], bool]] = None) -> None:
        self.read = read
        # a number that is a program input (jit/auto_numbers.py) is compared by its type only
        self.ok = ok if ok is not None else same_number_type(value) if by_type else \
            checker(value)
        self.by_type = by_type
        self.key = key          # identifies where the value is read (the builder's key)
        self.what = what
        self.value = value
        # ("global", module dict, name, builtins dict) or ("dict", an object's __dict__, name):
        # where a compiled check can look the value up inline (compiled.py); ("epochs",
        # LayerStates) for the layers a trace called
        self.source = source

    def failure(self) -> Optional[str]:
        """None if the guard holds, else what changed ("global `K`: 1.0 -> 2.0")."""
        now = self.read()
        if self.ok(now):
            return None
        if self.value is _NEVER:
            return self.what
        if self.source is not None and self.source[0] == "epochs":
            return self.source[1].changed()
        return f"{self.what}: {describe(self.value)} -> {describe(now)}"

    @property
    def never(self) -> bool:
        return self.value is _NEVER


class GuardSet:
    """The guards of one cache entry, checked in order (cheapest first) before it is reused."""

    __slots__ = ("guards", "check", "never")

    def __init__(self, guards: List[Guard]) -> None:
        self.guards = guards
        self.check: Callable[[], bool] = compile_check(guards)
        self.never = False      # a guard never holds: the entry is never reused

    def failure(self) -> Optional[str]:
        """The first guard that fails, described; None when all hold. A guard that never
        holds is named first: it is why the entry is not reused."""
        if self.never:
            return next(g.what for g in self.guards if g.value is _NEVER)
        for g in self.guards:
            text = g.failure()
            if text is not None:
                return text
        return None

    def failed(self) -> Optional[Guard]:
        """The first guard that fails; None when all hold."""
        for g in self.guards:
            if not g.ok(g.read()):
                return g
        return None

    def add_never(self, what: str) -> None:
        """A guard that never holds: the entry is not reused (`what` says why)."""
        self.guards.append(Guard(_fresh, _NEVER, what))
        self.check = compile_check(self.guards)
        self.never = True

    def __len__(self) -> int:
        return len(self.guards)

    def __repr__(self) -> str:
        return f"<GuardSet: {', '.join(g.what for g in self.guards)}>"


_NEVER = object()


def _is_true(value: Any) -> bool:
    return value is True


def _fresh() -> Any:
    return object()


def _builtins_of(g: Dict[str, Any]) -> Dict[str, Any]:
    builtins = g.get("__builtins__", None)
    if isinstance(builtins, types.ModuleType):
        builtins = builtins.__dict__
    return builtins if isinstance(builtins, dict) else {}


def _global_reader(g: Dict[str, Any], name: str) -> Callable[[], Any]:
    builtins = _builtins_of(g)

    def read() -> Any:
        v = g.get(name, MISSING)
        return v if v is not MISSING else builtins.get(name, MISSING)
    return read


def _defaults_reader(fn: types.FunctionType) -> Callable[[], Any]:
    def read() -> Any:
        return fn.__defaults__, fn.__kwdefaults__
    return read


def _cell_reader(cell: types.CellType) -> Callable[[], Any]:
    def read() -> Any:
        try:
            return cell.cell_contents
        except ValueError:
            return MISSING
    return read


def _attr_reader(base: Callable[[], Any], attr: str) -> Callable[[], Any]:
    def read() -> Any:
        obj = base()
        if obj is MISSING:
            return MISSING
        try:
            return getattr(obj, attr)
        except Exception:  # noqa: BLE001 - a missing attribute or a property that raises
            return MISSING
    read.base = base
    return read


def _own_method_reader(base: Callable[[], Any], attr: str) -> Callable[[], Any]:
    """`obj.attr` where it was a method bound to obj itself: its function as an OwnMethod while
    it still is one (obj is guarded by the step before), else the value itself."""
    def read() -> Any:
        obj = base()
        if obj is MISSING:
            return MISSING
        try:
            value = getattr(obj, attr)
        except Exception:  # noqa: BLE001 - a missing attribute or a property that raises
            return MISSING
        if bound_method(value) and value.__self__ is obj:
            return OwnMethod(method_key(value))
        return value
    return read


def _item_reader(base: Callable[[], Any], item: Any) -> Callable[[], Any]:
    def read() -> Any:
        obj = base()
        if obj is MISSING or isinstance(obj, _OPAQUE):
            return MISSING
        try:
            return obj[item]
        except Exception:  # noqa: BLE001 - a missing key or index, or no __getitem__
            return MISSING
    return read


def _items_reader(base: Callable[[], Any]) -> Callable[[], Any]:
    """The items a loop over a list, tuple or dict (its keys), or over a Layer container
    (LayerList, Sequential: its sublayers; LayerDict: its keys) would bind, as a tuple."""
    def read() -> Any:
        obj = base()
        if not _iterable(obj) or len(obj) > MAX_ITEMS:
            return MISSING
        return tuple(obj)
    return read


def _iterable(obj: Any) -> bool:
    """A list, tuple or dict, or a Layer container (iterating it runs no user code)."""
    return type(obj) in (list, tuple, dict) or _sublayers(obj) is not None and \
        _library_object(obj) and hasattr(type(obj), "__iter__")


def _library_object(obj: Any) -> bool:
    return type(obj).__module__.split(".")[0] in _LIBRARY_ROOTS


def _values_reader(base: Callable[[], Any]) -> Callable[[], Any]:
    """The values a computed subscript may give, as a tuple (see _values)."""
    def read() -> Any:
        return _values(base())
    return read


def _values(obj: Any) -> Any:
    """A list's or tuple's items, a dict's values, a Layer container's sublayers (LayerList,
    Sequential, LayerDict), as a tuple; MISSING for other objects and big containers."""
    t = type(obj)
    if t is dict:
        obj = obj.values()
    elif t not in (list, tuple):
        obj = _sublayers(obj)
        if obj is None:
            return MISSING
    return tuple(obj) if len(obj) <= MAX_ITEMS else MISSING


def _table_reader(base: Callable[[], Any]) -> Callable[[], Any]:
    """A Layer's sublayers as a plain dict {name: sublayer} (MISSING for other objects)."""
    def read() -> Any:
        return _sublayer_dict(base())
    return read


def _sublayer_dict(obj: Any) -> Any:
    d = getattr(obj, "__dict__", None)
    table = d.get("_sub_layers") if type(d) is dict else None
    return dict(table) if isinstance(table, dict) else MISSING


def _sublayers(obj: Any) -> Any:
    d = getattr(obj, "__dict__", None)
    table = d.get("_sub_layers") if type(d) is dict else None
    return table.values() if isinstance(table, dict) else None     # an OrderedDict


def _each_reader(base: Callable[[], Any], step: Any) -> Callable[[], Any]:
    """A path step taken on every item (a tensor or library item stands for nothing)."""
    def one(obj: Any) -> Any:
        if obj is MISSING or isinstance(obj, _OPAQUE) or _library_module(obj):
            return None
        try:
            return getattr(obj, step) if type(step) is str else obj[step[1]]
        except Exception:  # noqa: BLE001
            return MISSING

    def read() -> Any:
        items = base()
        return MISSING if items is MISSING else tuple(map(one, items))
    return read


def _step_text(step: Any) -> str:
    return f".{step}" if type(step) is str else f"[{step[1]!r}]"


class _Fixed:
    """Reads an object the trace was given (self, an argument): always the same object."""
    __slots__ = ("obj",)

    def __init__(self, obj: Any) -> None:
        self.obj = obj

    def __call__(self) -> Any:
        return self.obj


def _fixed(obj: Any) -> Callable[[], Any]:
    return _Fixed(obj)


def _instance_slot(read: Callable[[], Any], obj: Any, attr: str) -> Optional[Tuple]:
    """("dict", obj.__dict__, attr) when `attr` of the fixed object `obj` is a plain instance
    attribute (no descriptor on its class), so a check may read its __dict__ directly."""
    base = getattr(read, "base", None)
    if not isinstance(base, _Fixed):
        return None
    owner = base.obj
    d = getattr(owner, "__dict__", None)
    if type(d) is not dict or hasattr(type(owner), attr):
        return None
    if attr not in d:
        # a sublayer of a Layer: Layer.__getattr__ finds it in its _sub_layers table
        table = d.get("_sub_layers")
        return ("dict", table, attr) if isinstance(table, dict) and attr in table else None
    return ("dict", d, attr)


def _library_module(value: Any) -> bool:
    return isinstance(value, types.ModuleType) and \
        value.__name__.split(".")[0] in _LIBRARY_ROOTS


class _Builder:
    def __init__(self, by_type: Iterable[Tuple] = ()) -> None:
        self.guards: List[Guard] = []
        self.seen: Dict[Tuple, Callable[[], Any]] = {}
        self.grad = False
        self.by_type = frozenset(by_type)

    def add(self, key: Tuple, read: Callable[[], Any], what: str,
            source: Optional[Tuple] = None) -> Any:
        if key in self.seen:
            return read()
        self.seen[key] = read
        value = read()
        self.guards.append(Guard(read, value, what, source, key, key in self.by_type))
        return value

    def chain(self, root_key: Tuple, root_read: Callable[[], Any], root_name: str,
              path: Tuple) -> None:
        obj = root_read()
        read, key, name = root_read, root_key, root_name
        each = False        # past an ITEMS step: the path is followed on every item
        for step in path:
            if obj is os.environ:
                break       # `os.environ[k]`, `os.environ.get(k)`: the whole environment
            if step in _GRAD_NAMES:
                self.grad = True
            if not each and (obj is MISSING or isinstance(obj, _OPAQUE) or _library_module(obj)):
                return      # a tensor's shape and dtype are in the key; the library is no state
            if step == ITEMS[0]:
                if each or not _iterable(obj):
                    return  # iterating another kind of object may run code or consume it
                plain = type(obj) in (list, tuple, dict)
                read, key, name, each = _items_reader(read), key + (step,), f"{name}[...]", True
                # a list's own guard compares its entries; a Layer container's is its identity
                obj = read() if plain else self.add(key, read, f"the items of `{name}`")
                continue
            if step == VALUES[0]:
                if each or _values(obj) is MISSING:
                    return  # another kind of container: its items are its own code's reads
                plain = type(obj) in (list, tuple, dict)
                read, key, name, each = _values_reader(read), key + (step,), f"{name}[?]", True
                obj = read() if plain else self.add(key, read, f"the items of `{name}`")
                continue
            if each:
                read = _each_reader(read, step)
                key, name = key + (step,), f"{name}{_step_text(step)}"
                obj = self.add(key, read, f"every item of `{name}`")
                continue
            # a parameter, sublayer or buffer (the structure epoch covers it), or an entry of a
            # list, tuple or dict whose own guard compares its entries: followed, not guarded
            covered = in_layer_tables(obj, step) if type(step) is str else \
                type(obj) in (list, tuple, dict) and len(obj) <= MAX_ITEMS
            read = _attr_reader(read, step) if type(step) is str else _item_reader(read, step[1])
            key, name = key + (step,), f"{name}{_step_text(step)}"
            if covered:
                obj = read()
                if obj is MISSING:
                    return
                continue
            if step == ALL_ATTRIBUTES and _sublayers(obj) is not None:
                # getattr(self, name) may give a sublayer: its table, entry by entry
                self.add(key + ("<sublayers>",), _table_reader(read.base),
                         f"sublayers of `{name[:-len(ALL_ATTRIBUTES) - 1]}`")
            source = _instance_slot(read, obj, step) if type(step) is str else None
            what = f"attribute `{name}`" if type(step) is str else f"item `{name}`"
            value = read()
            if bound_method(value):
                if type(step) is str and value.__self__ is obj and contents_guarded(obj):
                    # a method of the object itself (`acc.append`, `d.get`): a new method
                    # object on every read, the same function while nothing changed
                    read = _own_method_reader(read.base, step)
                    source = None
                self.add(key, read, what, source)
                return      # its reads of its object are a function's reads (convert_call)
            obj = self.add(key, read, what, source)
        if obj is os.environ and ("read", "os.environ") not in self.seen:
            now = environ()
            self.seen[("read", "os.environ")] = environ
            self.guards.append(Guard(environ, now, "os.environ", ok=lambda v: v == now))

    def deep(self, obj: Any) -> None:
        """A guard on `obj` and on the attributes of the user objects in it (library code was
        given it)."""
        key = ("deep", id(obj))
        if key in self.seen:
            return
        snap = deep_snapshot(obj)
        self.seen[key] = _fixed(obj)
        self.guards.append(Guard(_fixed(obj), obj, f"the attributes of a `{type(obj).__name__}` "
                                 "given to library code", ok=lambda v: matches(snap, v)))

    def function(self, fn: types.FunctionType, bound: Dict[str, Any]) -> None:
        reads = reads_of(fn.__code__)
        g = fn.__globals__
        if fn.__defaults__ or fn.__kwdefaults__:
            # a call that left a parameter to its default read it: `f.__defaults__ = (3.0,)`
            # or a default dict changed in place between calls changes what the call computes
            self.add(("defaults", id(fn)), _defaults_reader(fn),
                     f"the default arguments of `{fn.__qualname__}`")
        cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
        roots: Dict[str, Tuple[Tuple, Callable[[], Any], str]] = {}
        for name in reads.globals:
            key = ("g", id(g), name)
            read = self.seen.get(key) or _global_reader(g, name)
            self.add(key, read, f"global `{name}`", ("global", g, name, _builtins_of(g)))
            roots[("global", name)] = (key, read, name)
            if name in _GRAD_NAMES:
                self.grad = True
        for name in reads.cells:
            cell = cells.get(name)
            if cell is None:
                continue
            key = ("c", id(cell))
            read = self.seen.get(key) or _cell_reader(cell)
            self.add(key, read, f"closure variable `{name}`")
            roots[("cell", name)] = (key, read, name)
        for kind, name, path in sorted(reads.chains, key=repr):
            if kind == "local":
                if name not in bound:
                    continue
                obj = bound[name]
                root = (("l", id(obj)), _fixed(obj), name)
            else:
                root = roots.get((kind, name))
                if root is None:
                    continue
            self.chain(root[0], root[1], root[2], path)


def build_guards(calls: Iterable[Call], by_type: Iterable[Tuple] = ()) -> GuardSet:
    """The guards of a trace that ran `calls` (see recorder.py); those whose key is in
    `by_type` (numbers that are program inputs) compare the value's type only."""
    b = _Builder(by_type)
    done = set()
    returned = {}
    layers: Dict[int, Tuple[Any, bool]] = {}
    unguarded = None
    for fn, bound in calls:
        if RETURNED in bound:
            returned.setdefault(id(bound[RETURNED]), bound[RETURNED])
            continue
        if UNGUARDED in bound:
            unguarded = unguarded or bound[UNGUARDED]
            continue
        if DEEP in bound:
            b.deep(bound[DEEP])
            continue
        if LAYER in bound:
            layers.setdefault(id(bound[LAYER][0]), bound[LAYER])
            continue
        if READ in bound:
            read, value, what, ok = bound[READ]
            if ok is None:
                b.add(("read", what), read, what)
            elif ("read", what) not in b.seen:
                b.seen[("read", what)] = read
                b.guards.append(Guard(read, value, what, ok=ok))
            continue
        rebound = rebound_cells(fn.__code__)
        if rebound:
            unguarded = unguarded or \
                f"`{fn.__qualname__}` rebinds the closure variable `{sorted(rebound)[0]}`"
        key = (fn.__code__, tuple(sorted((k, id(v)) for k, v in bound.items())))
        if key in done:
            continue
        done.add(key)
        b.function(fn, bound)
    if returned:
        # paths the traced code read off what a call returned (`pick(cfg).k`) or off a local
        # assigned from a call (`c = pick(cfg); c.k`, even where no frame showed the local
        # holding it), on each object a user function returned while tracing
        paths = set()
        for code in {fn.__code__ for fn, _ in calls}:
            reads = reads_of(code)
            paths |= {path for kind, name, path in reads.chains
                      if kind == RESULT[0] or kind == "local" and name in reads.opaque}
        for obj in returned.values() if paths else ():
            for path in sorted(paths, key=repr):
                if type(obj) in _NO_ATTRIBUTES and type(path[0]) is str and \
                        path[0] not in (ITEMS[0], VALUES[0]):
                    continue    # `.k` of a list or an iterator: it has no attributes to change
                b.chain(("r", id(obj)), _fixed(obj), "<returned>", path)
    if layers:
        states = LayerStates(list(layers.values()))
        b.guards.append(Guard(states.holds, True, "the layers called", ("epochs", states),
                              ok=_is_true))
    if b.grad:
        flag = state.build_state.grad_enabled
        b.guards.append(Guard(lambda: state.build_state.grad_enabled, flag, "grad mode"))
    guards = GuardSet(b.guards)
    if unguarded is not None:
        guards.add_never(unguarded)
    return guards
