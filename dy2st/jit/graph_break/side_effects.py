"""Statements that change Python objects a Program cannot hold (a list argument appended to, a
global dict written, `self.calls += 1`): found before tracing, since a trace runs them once
and a compiled call never again. They become islands."""
from __future__ import annotations

import builtins
import dis
import functools
import os
import types
from typing import Any, Dict, List, Optional, Tuple

import gast

from ...runtime.tensor import Tensor
from ..transform import parse_function
from .effect_reasons import reason as _reason
from .library_mutations import changed_object, mentions
from .state_copy import (
    MISSING as _NOTHING,
    MUTABLE,
    StateCopy,
    attribute_or as _attribute_or,
)

MUTATING = {"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault",
            "popitem", "add", "discard", "sort", "reverse", "appendleft", "extendleft",
            "popleft"}

_STORES = frozenset(dis.opmap[n] for n in ("STORE_ATTR", "STORE_SUBSCR", "DELETE_SUBSCR", "STORE_GLOBAL")
                   if n in dis.opmap)


def _may_mutate(code: types.CodeType) -> bool:
    """A cheap look at the bytecode before parsing: no mutating method name, no attribute or
    item store and no `+=` on a parameter means no candidate (most functions; parsing costs
    0.1-1 ms)."""
    if not MUTATING.isdisjoint(code.co_names):
        return True
    if not _STORES.isdisjoint(code.co_code[::2]) or _augments_parameter(code) or mentions(code):
        return True
    # a function defined inside it and called by it (`def step(r): CALLS[0] += 1`)
    return any(isinstance(c, types.CodeType) and _may_mutate(c) for c in code.co_consts)


_INPLACE = frozenset(op for name, op in dis.opmap.items() if name.startswith("INPLACE_"))


@functools.lru_cache(maxsize=1024)
def _augments_parameter(code: types.CodeType) -> bool:
    """Whether the code stores an in-place operator's result into a parameter (`acc += [v]`,
    `w *= 2`): a list or array argument then changes in place."""
    params = code.co_argcount + code.co_kwonlyargcount
    prev = None
    for ins in dis.get_instructions(code):
        # 3.13 pairs a store with the next LOAD_FAST / STORE_FAST: the store's slot is arg >> 4
        slot = ins.arg if ins.opname == "STORE_FAST" else ins.arg >> 4 \
            if ins.opname in ("STORE_FAST_LOAD_FAST", "STORE_FAST_STORE_FAST") else None
        if slot is not None and slot < params and prev is not None and (
                prev.opcode in _INPLACE or prev.opname == "BINARY_OP" and
                prev.argrepr.endswith("=")):
            return True
        prev = ins
    return False


# (statement index, how: "call" | "item" | "attr" | "global" | "helper" | "aug", root name, attribute
#  after the root or "", the method (for "helper": the arguments, see _call_args), line)
Candidate = Tuple[int, str, str, str, Any, int]


def _root(node: gast.AST) -> Optional[Tuple[str, str]]:
    """(name, attrs) at the bottom of an attribute/subscript chain: attrs is the dotted path of
    the attributes right after the name, up to the first subscript (`self.sub.acc` gives
    ("self", "sub.acc"), `self.d["k"].v` ("self", "d"))."""
    attrs: List[str] = []
    while True:
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
                node.func.id == "vars" and len(node.args) == 1:
            attrs.append("__dict__")    # `vars(obj).update(...)` changes obj's attributes
            node = node.args[0]
            continue
        if isinstance(node, gast.Name):
            return node.id, ".".join(reversed(attrs))
        if isinstance(node, gast.Attribute):
            attrs.append(node.attr)
            node = node.value
        elif isinstance(node, gast.Subscript):
            attrs.clear()
            node = node.value
        else:
            return None


def _global_names(fdef: gast.FunctionDef) -> frozenset:
    """Names the function declares `global` (not those of nested functions)."""
    out = set()
    todo = list(fdef.body)
    while todo:
        n = todo.pop()
        if isinstance(n, gast.Global):
            out.update(n.names)
        elif not isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda,
                                gast.ClassDef)):
            todo.extend(gast.iter_child_nodes(n))
    return frozenset(out)


def _call_args(call: gast.Call) -> Tuple[Optional[Tuple[str, str]], ...]:
    """(name, attribute or "") of each positional argument of a call that is a name or
    `name.attr`; None for any other expression."""
    out: List[Optional[Tuple[str, str]]] = []
    for a in call.args:
        if isinstance(a, gast.Name):
            out.append((a.id, ""))
        elif isinstance(a, gast.Attribute) and isinstance(a.value, gast.Name):
            out.append((a.value.id, a.attr))
        else:
            out.append(None)
    return tuple(out)


def _candidates_in(index: int, stmt: gast.stmt, declared: frozenset = frozenset()) -> List[Candidate]:
    out: List[Candidate] = []
    for n in _walk_own(stmt):
        if isinstance(n, gast.Call) and not (isinstance(n.func, gast.Attribute) and
                                             n.func.attr in MUTATING):
            # a call of a helper: what it changes is found in its own code (helper_effect)
            f = n.func
            if isinstance(f, gast.Name):
                out.append((index, "helper", f.id, "", _call_args(n), n.lineno))
            elif isinstance(f, gast.Attribute) and isinstance(f.value, gast.Name):
                out.append((index, "helper", f.value.id, f.attr, _call_args(n), n.lineno))
        if isinstance(n, gast.Call):
            out.extend(_library_call(index, n))
        if isinstance(n, gast.With):
            out.extend(_context_managers(index, n))
        if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and \
                n.func.attr in MUTATING:
            root = _root(n.func.value)
            if root is not None:
                out.append((index, "call", root[0], root[1] if not isinstance(
                    n.func.value, gast.Name) else "", n.func.attr, n.lineno))
        targets = (n.targets if isinstance(n, (gast.Assign, gast.Delete)) else
                   [n.target] if isinstance(n, (gast.AugAssign, gast.AnnAssign)) else [])
        for t in targets:
            if isinstance(t, gast.Subscript):
                root = _root(t.value)
                if root is not None:
                    out.append((index, "item", root[0], root[1] if not isinstance(
                        t.value, gast.Name) else "", "", n.lineno))
            elif isinstance(t, gast.Attribute):
                root = _root(t)     # `self.n = v`, or a sublayer's `self.sub.acc = []`
                if root is not None and root[1].endswith(t.attr):
                    out.append((index, "attr", root[0], root[1], "", n.lineno))
            elif isinstance(t, gast.Name) and t.id in declared:
                out.append((index, "global", t.id, "", "", n.lineno))
            elif isinstance(t, gast.Name) and isinstance(n, gast.AugAssign):
                # `acc += [v]`, `w *= 2` on a parameter: a list or array changes in place
                out.append((index, "aug", t.id, "", "", n.lineno))
    return out


def _walk_own(stmt: gast.stmt):
    """The nodes of stmt outside functions and lambdas defined in it (a nested function's
    changes count where it is called: _nested_candidates)."""
    todo = [stmt]
    while todo:
        n = todo.pop()
        if isinstance(n, (gast.FunctionDef, gast.Lambda, gast.AsyncFunctionDef)):
            continue
        yield n
        todo.extend(gast.iter_child_nodes(n))


def _context_managers(index: int, stmt: gast.With) -> List[Candidate]:
    """`with CM:` / `with make(...):` runs the manager's `__enter__` and `__exit__` (a user
    class's, which may count entries in a class attribute): a candidate per item whose
    methods are looked up when the call is scanned ("ctx"; the method slot says whether the
    item is a call that makes the manager)."""
    out: List[Candidate] = []
    for item in stmt.items:
        expr = item.context_expr
        made = isinstance(expr, gast.Call)
        f = expr.func if made else expr
        if isinstance(f, gast.Name):
            out.append((index, "ctx", f.id, "", made, stmt.lineno))
        elif isinstance(f, gast.Attribute) and isinstance(f.value, gast.Name):
            out.append((index, "ctx", f.value.id, f.attr, made, stmt.lineno))
    return out


def _library_call(index: int, call: gast.Call) -> List[Candidate]:
    """`heapq.heappush(h, v)`, `setattr(o, k, v)`, `np.add(a, b, out=c)`: a candidate whose
    function (library_mutations.py) is looked up when the call is scanned."""
    f = call.func
    changed = _call_args(call)[:1] + tuple(
        _call_args(gast.Call(f, [k.value], []))[0] for k in call.keywords if k.arg == "out")
    if not any(changed) or not isinstance(f, (gast.Name, gast.Attribute)):
        return []
    root = (f.id, "") if isinstance(f, gast.Name) else _root(f)
    return [] if root is None else [(index, "lib", root[0], root[1], changed, call.lineno)]


@functools.lru_cache(maxsize=512)
def _candidates(code: types.CodeType, fn: Any) -> Tuple[Tuple[Candidate, ...], Tuple[str, ...], frozenset]:
    # lazy: keeps transformers.analysis out of a first to_static call (loaded on first use)
    from ...transformers.analysis import written_names
    fdef = parse_function(fn)[0]
    a = fdef.args
    params = tuple(x.id for x in a.posonlyargs + a.args + a.kwonlyargs)
    declared = _global_names(fdef)
    local = written_names(fdef.body, mutations=False) - set(params) - declared
    nested = {n.name: n for n in gast.walk(fdef)
              if isinstance(n, gast.FunctionDef) and n is not fdef}
    found: List[Candidate] = []
    for i, s in enumerate(fdef.body):
        for c in _candidates_in(i, s, declared):
            if c[1] == "helper" and not c[3] and c[2] in nested:
                # a function defined here and called here: what its code changes outside
                # both (a global's entries, a class attribute) counts at the call
                found.extend(n[:5] + (c[5],) for n in _nested_candidates(i, nested[c[2]], local))
            elif c[2] not in local:
                found.append(c)
    return tuple(found), params, frozenset(local)


def _nested_candidates(index: int, fdef: gast.FunctionDef, outer: set) -> List[Candidate]:
    """The candidates of a nested function's body whose objects are neither its own locals nor
    the enclosing function's (those are the call's own state), at the statement calling it
    (the caller gives them the call's line: the island is the calling statement)."""
    # lazy: keeps transformers.analysis out of a first to_static call (loaded on first use)
    from ...transformers.analysis import written_names
    a = fdef.args
    own = {x.id for x in a.posonlyargs + a.args + a.kwonlyargs}
    own.update(x.id for x in (a.vararg, a.kwarg) if x is not None)
    declared = _global_names(fdef)
    own |= written_names(fdef.body, mutations=False) - declared
    return [c for s in fdef.body for c in _candidates_in(index, s, declared)
            if c[2] not in own and (c[2] not in outer or c[2] in declared)]


def side_effect_islands(sf: Any, args: Tuple, kwargs: Dict) -> List[Tuple[int, int, str]]:
    """[(statement index, line, reason)] of the statements that change a Python object the
    call can reach (an argument, a global, a closure cell, an attribute of the instance)."""
    fn = sf._function
    code = getattr(fn, "__code__", None)
    if code is None or not (_may_mutate(code) or _may_call_mutating(fn, sf._instance, 0)):
        return []
    bound = sf._instance is not None
    return [(index, line, reason) for index, line, reason, _own, _touched in
            _effects(fn, sf._instance if bound else _NOTHING, args, kwargs, 0)]


def full_graph_effects(sf: Any, args: Tuple, kwargs: Dict) -> Optional[Tuple[str, "StateCopy"]]:
    """full_graph=True has no islands: a statement that changes Python state (its own, or a
    helper's it calls) would run once, in the trace, with symbolic values. So the state it
    changes is copied before the trace and put back after it, the program is never reused (a
    guard that never holds, saying this text), and the call runs eagerly: the change happens on
    every call with real values. (the text, the copy), or None without such a statement."""
    effects = side_effect_islands(sf, args, kwargs)
    if not effects:
        return None
    _index, line, reason = effects[0]
    code = sf._function.__code__
    where = f"{code.co_filename}:{code.co_firstlineno + line - 1}"
    return (f"a Python side effect at {where} ({reason}), which full_graph=True runs eagerly "
            "on every call", touched_state(sf, args, kwargs))


def touched_state(sf: Any, args: Tuple, kwargs: Dict) -> "StateCopy":
    """A copy of the Python state the call's side effects (as side_effect_islands finds them)
    change, which `restore()` puts back: the containers, attributes and globals written."""
    fn = sf._function
    code = getattr(fn, "__code__", None)
    if code is None or not (_may_mutate(code) or _may_call_mutating(fn, sf._instance, 0)):
        return StateCopy([])
    bound = sf._instance is not None
    touched = [t for e in _effects(fn, sf._instance if bound else _NOTHING, args, kwargs, 0)
               for t in e[4]]
    return StateCopy(touched)


MAX_HELPER_DEPTH = 3    # helpers calling helpers: how deep their own changes are looked for


def _effects(fn: types.FunctionType, self_obj: Any, args: Tuple, kwargs: Dict,
             depth: int) -> List[Tuple[int, int, str, bool, List[Tuple]]]:
    """[(statement index, line, reason, whether it only changes self, what it changes)] of
    fn's statements that change a Python object the call reaches, with its parameters bound
    to `args` (_NOTHING for a value not known before the call: a tensor the trace computes).
    What a statement changes: ("container", obj), ("attr", obj, name) or ("global", the
    globals dict, name)."""
    try:
        found, params, _local = _candidates(fn.__code__, fn)
    except Exception:  # noqa: BLE001 - no source: nothing to split anyway
        return []
    if not found:
        return []
    values: Dict[str, Any] = {}
    names = list(params)
    bound = self_obj is not _NOTHING
    if bound and names:
        values[names[0]] = self_obj
        names = names[1:]
    values.update(zip(names, args))
    values.update(kwargs)
    values = {k: v for k, v in values.items() if v is not _NOTHING}
    _bind_defaults(fn, names[len(args):], kwargs, values)
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    out = []
    for index, how, root, attr, method, line in found:
        obj = _lookup(root, values, cells, fn.__globals__)
        if how == "lib":
            if obj is _NOTHING:
                obj = getattr(builtins, root, _NOTHING)     # setattr, delattr
            effect = _library_effect(obj, attr, method, values, cells, fn.__globals__, _local)
            if effect is not None:
                out.append((index, line, effect[0], False, [("container", effect[1])]))
            continue
        if obj is _NOTHING:
            continue
        is_self = bool(bound and params and root == params[0])
        if how == "ctx":
            if depth < MAX_HELPER_DEPTH:
                found_in = _manager_effect(obj, attr, method, depth)
                if found_in is not None:
                    out.append((index, line, found_in[0], False, found_in[1]))
            continue
        if how == "helper":
            if depth < MAX_HELPER_DEPTH:
                found_in = _helper_effect(obj, attr, method, values, cells, fn.__globals__,
                                          depth)
                if found_in is not None:
                    out.append((index, line, found_in[0], is_self and found_in[1],
                                found_in[2]))
            continue
        if "." in attr:     # `self.sub.acc`: the change is to an attribute of `self.sub`
            path, attr = attr.rsplit(".", 1)
            root = f"{root}.{path}"
            for part in path.split("."):
                obj = _attribute_or(obj, part, _NOTHING)
            if obj is _NOTHING or isinstance(obj, Tensor):
                continue    # (`self.fc.weight.stop_gradient = True` is the tensor's own flag)
        reason = _reason(how, root, attr, method, obj, is_self)
        if reason:
            out.append((index, line, reason, is_self and how != "global",
                        [_touched(how, obj, attr, root, fn.__globals__)]))
    return out


def _bind_defaults(fn: types.FunctionType, unpassed: List[str], kwargs: Dict,
                   values: Dict[str, Any]) -> None:
    """The parameters the call leaves to their defaults are those objects: a default list or
    array the function changes (`def f(x, acc=[]): acc.append(...)`) is state kept between
    calls, as any argument's."""
    defaults = fn.__defaults__ or ()
    positional = fn.__code__.co_varnames[:fn.__code__.co_argcount]
    for name, value in zip(positional[len(positional) - len(defaults):], defaults):
        if name in unpassed and name not in kwargs:
            values.setdefault(name, value)
    for name, value in (fn.__kwdefaults__ or {}).items():
        if name not in kwargs:
            values.setdefault(name, value)


def _library_effect(func: Any, attr: str, changed: Tuple, values: Dict[str, Any],
                    cells: Dict[str, Any], globals_: Dict,
                    local: frozenset) -> Optional[Tuple[str, Any]]:
    """(reason, the container it changes) for a library call that changes an object the call
    reaches (library_mutations.py); None otherwise."""
    for part in attr.split(".") if attr else ():
        func = _attribute_or(func, part, None)
    objs = []
    for arg in changed[:1] + (changed[1:] or (None,)):
        value = None
        if arg is not None and arg[0] not in local:
            value = _lookup(arg[0], values, cells, globals_)
            if arg[1] and value is not _NOTHING:
                value = _attribute_or(value, arg[1], _NOTHING)
        objs.append(None if value is _NOTHING else value)
    target = changed_object(func, objs[0], objs[1])
    if not isinstance(target, MUTABLE):
        return None
    name = getattr(func, "__name__", "a library function")
    return (f"`{name}(...)` changes the {type(target).__name__} it is given, which a compiled "
            "program would not repeat"), target


def _touched(how: str, obj: Any, attr: str, root: str, globals_: Dict) -> Tuple:
    if how == "global":
        return ("global", globals_, root)
    if how == "attr":
        return ("attr", obj, attr)
    if attr:    # the attribute too: a traced tensor `if` may rebind it to a copy
        return ("container", getattr(obj, attr, None), obj, attr)
    return ("container", obj)


def _helper_effect(obj: Any, attr: str, arg_roots: Tuple, values: Dict[str, Any],
                   cells: Dict[str, Any], globals_: Dict,
                   depth: int) -> Optional[Tuple[str, bool, List[Tuple]]]:
    """(reason, whether it only changes the helper's own instance, what it changes) when the
    called helper (obj, or its attribute `attr`) changes Python state the call reaches."""
    target = _callee(obj, attr)
    if target is None:
        return None
    func, self_obj = target
    args = []
    for a in arg_roots:
        value = _NOTHING
        if a is not None:
            value = _lookup(a[0], values, cells, globals_)
            if a[1] and value is not _NOTHING:
                value = _attribute_or(value, a[1], _NOTHING)
        args.append(value)
    found = _effects(func, self_obj, tuple(args), {}, depth + 1)
    if not found:
        return None
    _index, line, reason, own, _ = found[0]
    touched = [t for e in found for t in e[4]]
    code = func.__code__
    where = f"{os.path.basename(code.co_filename)}:{code.co_firstlineno + line - 1}"
    name = f"{attr}" if attr else getattr(func, "__name__", "helper")
    if own:
        return f"`{name}(...)` (at {where}): {reason}", True, touched
    return (f"`{name}(...)` changes Python state inside the function it calls (at {where}), "
            "which a compiled program would not repeat: it runs as Python on every call"), \
        False, touched


def _manager_effect(obj: Any, attr: str, made: bool,
                    depth: int) -> Optional[Tuple[str, List[Tuple]]]:
    """(reason, what it changes) when the `__enter__` / `__exit__` of a `with` item change
    Python state the call reaches: those of obj (or obj.attr), or, for an item that calls a
    user class (`with Tracked():`), of that class with its new instance unknown."""
    if attr:
        obj = _attribute_or(obj, attr, None)
    if made and not isinstance(obj, type):
        return None     # a function making the manager is scanned as a helper call
    cls, self_obj = (obj, _NOTHING) if made else (type(obj), obj)
    reason, touched = None, []
    for name in ("__enter__", "__exit__"):
        func = _user_method(cls, name)
        found = [] if func is None else _effects(func, self_obj, (), {}, depth + 1)
        if found and reason is None:
            code = func.__code__
            where = f"{os.path.basename(code.co_filename)}:{code.co_firstlineno + found[0][1] - 1}"
            reason = (f"the `{name}` of a `with` statement's {cls.__name__} changes Python "
                      f"state (at {where}), which a compiled program would not repeat: it runs "
                      "as Python on every call")
        touched.extend(t for e in found for t in e[4])
    return None if reason is None else (reason, touched)


def _user_method(cls: Any, name: str) -> Optional[types.FunctionType]:
    """cls's own Python method `name` (`__init__`, `__enter__`, ...), None for a class of dy2st
    or of a library, or a Layer (whose construction in converted code is handled apart)."""
    from ...nn import Layer  # nn loads after jit: a Layer exists only once it is imported
    from ..convert_call import skips_conversion  # convert_call imports graph_break lazily
    if not isinstance(cls, type) or issubclass(cls, Layer):
        return None
    func = getattr(cls, name, None)
    if type(func) is not types.FunctionType or skips_conversion(func):
        return None
    return func


def _callee(obj: Any, attr: str) -> Optional[Tuple[types.FunctionType, Any]]:
    """(user function, its bound instance or _NOTHING) of a call of obj (or of obj.attr)."""
    from ...nn import Layer  # nn loads after jit: a Layer exists only once it is imported

    # convert_call imports graph_break lazily
    from ..convert_call import skips_conversion, user_generator
    if attr:
        if isinstance(obj, types.ModuleType) or isinstance(obj, Layer) and \
                attr in obj.__dict__.get("_sub_layers", {}):
            obj = _attribute_or(obj, attr, None)
        else:
            method = getattr(type(obj), attr, None)
            if isinstance(method, types.FunctionType):
                obj = types.MethodType(method, obj)
            else:
                obj = obj.__dict__.get(attr) if isinstance(getattr(obj, "__dict__", None),
                                                           dict) else None
    self_obj: Any = _NOTHING
    if isinstance(obj, type):
        # `Tracked()`: a user class's `__init__` may write class attributes or globals (what
        # it does to the new instance is the call's own)
        init = _user_method(obj, "__init__")
        return None if init is None else (init, _NOTHING)
    if isinstance(obj, Layer):
        forward = type(obj).forward
        obj, self_obj = getattr(forward, "_function", forward), obj
    elif isinstance(obj, types.MethodType):
        obj, self_obj = obj.__func__, obj.__self__
    elif not isinstance(obj, (type, types.FunctionType)) and \
            _attribute_or(obj, "_function", None) is None:
        # an instance of a user class called as a function runs its `__call__` (`self.n += 1`
        # there is as much a side effect as in a method)
        call = getattr(type(obj), "__call__", None)  # noqa: B004
        if type(call) is types.FunctionType:
            obj, self_obj = call, obj
    obj = _attribute_or(obj, "_function", obj)      # a to_static function: its own code
    if type(obj) is not types.FunctionType or skips_conversion(obj) and not user_generator(obj):
        return None     # (a generator of the user's runs as Python: its changes count)
    return obj, self_obj


def _may_call_mutating(fn: types.FunctionType, instance: Any, depth: int) -> bool:
    """A cheap look before parsing: whether fn's code names a user function or method (of the
    instance, or a sublayer's forward) whose code may change Python state."""
    if depth >= MAX_HELPER_DEPTH:
        return False
    for name in _names(fn.__code__):
        obj = fn.__globals__.get(name)
        if instance is not None and obj is None:
            obj = getattr(type(instance), name, None)
            if obj is None and isinstance(getattr(instance, "__dict__", None), dict):
                obj = instance.__dict__.get("_sub_layers", {}).get(name)
        if obj is None or isinstance(obj, (int, float, str, list, dict, tuple)):
            continue
        if _manager_may_mutate(obj, depth):
            return True
        found = [_callee(obj, "")]
        if found[0] is None:
            # `holder.method(...)`, `holder.fn_object(...)`: the attributes the code names
            found = [_callee(obj, a) for a in fn.__code__.co_names
                     if a != name and _has_attribute(obj, a)]
        for target in found:
            if target is None:
                continue
            func, self_obj = target
            if _may_mutate(func.__code__) or _may_call_mutating(
                    func, self_obj if self_obj is not _NOTHING else None, depth + 1):
                return True
    return False


def _names(code: types.CodeType) -> Tuple[str, ...]:
    """The global and attribute names the code reads, those of functions defined in it too."""
    names = code.co_names
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names = names + _names(c)
    return names


def _manager_may_mutate(obj: Any, depth: int) -> bool:
    """The cheap look for a context manager (a user class, or an instance of one) whose
    `__enter__` / `__exit__` may change Python state."""
    cls = obj if isinstance(obj, type) else type(obj)
    for name in ("__enter__", "__exit__"):
        func = _user_method(cls, name)
        if func is not None and (_may_mutate(func.__code__) or _may_call_mutating(
                func, None if isinstance(obj, type) else obj, depth + 1)):
            return True
    return False


def _has_attribute(obj: Any, attr: str) -> bool:
    """Whether obj's class defines attr or its own __dict__ holds it (no user getattr runs)."""
    d = getattr(obj, "__dict__", None)
    return hasattr(type(obj), attr) or isinstance(d, dict) and attr in d


def _lookup(name: str, values: Dict[str, Any], cells: Dict[str, Any], globals_: Dict) -> Any:
    if name in values:
        return values[name]
    if name in cells:
        try:
            return cells[name].cell_contents
        except ValueError:
            return _NOTHING
    return globals_.get(name, _NOTHING)


