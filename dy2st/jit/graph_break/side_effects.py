"""Statements that change Python objects a Program cannot hold (a list argument appended to, a
global dict written, `self.calls += 1`): found before tracing, since a trace runs them once
and a compiled call never again. They become islands."""
from __future__ import annotations

import collections
import dis
import functools
import types
from typing import Any, Dict, List, Optional, Tuple

import gast

MUTATING = {"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault",
            "popitem", "add", "discard", "sort", "reverse", "appendleft", "extendleft",
            "popleft"}
CONTAINERS = (list, dict, set, collections.deque, bytearray)

_STORES = frozenset(dis.opmap[n] for n in ("STORE_ATTR", "STORE_SUBSCR", "DELETE_SUBSCR", "STORE_GLOBAL")
                   if n in dis.opmap)


def _may_mutate(code: types.CodeType) -> bool:
    """A cheap look at the bytecode before parsing: no mutating method name and no attribute
    or item store means no candidate (most functions; parsing costs 0.1-1 ms)."""
    if not MUTATING.isdisjoint(code.co_names):
        return True
    return not _STORES.isdisjoint(code.co_code[::2])


# (statement index, how: "call" | "item" | "attr", root name, attribute after the root or "",
#  method, line)
Candidate = Tuple[int, str, str, str, str, int]


def _root(node: gast.AST) -> Optional[Tuple[str, str]]:
    """`name` or `name.attr` at the bottom of an attribute/subscript chain: (name, attr)."""
    attr = ""
    while True:
        if isinstance(node, gast.Name):
            return node.id, attr
        if isinstance(node, gast.Attribute):
            attr = node.attr
            node = node.value
        elif isinstance(node, gast.Subscript):
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


def _candidates_in(index: int, stmt: gast.stmt, declared: frozenset = frozenset()) -> List[Candidate]:
    out: List[Candidate] = []
    for n in gast.walk(stmt):
        if isinstance(n, (gast.FunctionDef, gast.Lambda, gast.AsyncFunctionDef)):
            continue
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
            elif isinstance(t, gast.Attribute) and isinstance(t.value, gast.Name):
                out.append((index, "attr", t.value.id, t.attr, "", n.lineno))
            elif isinstance(t, gast.Name) and t.id in declared:
                out.append((index, "global", t.id, "", "", n.lineno))
    return out


@functools.lru_cache(maxsize=512)
def _candidates(code: types.CodeType, fn: Any) -> Tuple[Tuple[Candidate, ...], Tuple[str, ...], frozenset]:
    from ..transform import parse_function
    from ...transformers.analysis import written_names
    fdef = parse_function(fn)[0]
    a = fdef.args
    params = tuple(x.id for x in a.posonlyargs + a.args + a.kwonlyargs)
    declared = _global_names(fdef)
    local = written_names(fdef.body, mutations=False) - set(params) - declared
    found = tuple(c for i, s in enumerate(fdef.body) for c in _candidates_in(i, s, declared)
                  if c[2] not in local)
    return found, params, frozenset(local)


def side_effect_islands(sf: Any, args: Tuple, kwargs: Dict) -> List[Tuple[int, int, str]]:
    """[(statement index, line, reason)] of the statements that change a Python object the
    call can reach (an argument, a global, a closure cell, an attribute of the instance)."""
    fn = sf._function
    code = getattr(fn, "__code__", None)
    if code is None or not _may_mutate(code):
        return []
    try:
        found, params, _local = _candidates(fn.__code__, fn)
    except Exception:  # noqa: BLE001 - no source: nothing to split anyway
        return []
    if not found:
        return []
    values: Dict[str, Any] = {}
    names = list(params)
    bound = sf._instance is not None
    if bound and names:
        values[names[0]] = sf._instance
        names = names[1:]
    values.update(zip(names, args))
    values.update(kwargs)
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    out = []
    for index, how, root, attr, method, line in found:
        obj = _lookup(root, values, cells, fn.__globals__)
        if obj is _NOTHING:
            continue
        is_self = bound and params and root == params[0]
        reason = _reason(how, root, attr, method, obj, is_self)
        if reason:
            out.append((index, line, reason))
    return out


_NOTHING = object()
# an export traces a copy of the layer tree, so such a write only touches the copy
ATTRIBUTE_WRITE = "changes Python state of the object"
INSTANCE_CONTAINER = "a container attribute of the instance"


def _lookup(name: str, values: Dict[str, Any], cells: Dict[str, Any], globals_: Dict) -> Any:
    if name in values:
        return values[name]
    if name in cells:
        try:
            return cells[name].cell_contents
        except ValueError:
            return _NOTHING
    return globals_.get(name, _NOTHING)


def _reason(how: str, root: str, attr: str, method: str, obj: Any, is_self: bool) -> str:
    from ...runtime.tensor import Tensor
    from ...nn import Layer
    if how == "global":
        if isinstance(obj, (Tensor, Layer)) or callable(obj):
            return ""
        return (f"writing the global `{root}` changes Python state, which a compiled program "
                "would not repeat")
    if how == "attr":
        if isinstance(obj, (Tensor, Layer, type)) and not is_self or \
                isinstance(obj, types.ModuleType) and obj.__name__.split(".")[0] == "dy2st":
            return ""
        current = getattr(obj, attr, None)
        if isinstance(current, (Tensor, Layer)) or callable(current):
            return ""
        if not is_self and current is None:
            return ""       # an object the loop machinery may give a tensor (attribute_writes)
        return (f"`{root}.{attr} = ...` {ATTRIBUTE_WRITE}, which a compiled "
                "program would not repeat: keep it out of forward, or make it a tensor buffer")
    target = getattr(obj, attr, _NOTHING) if attr else obj
    if not isinstance(target, CONTAINERS):
        return ""
    what = f"{root}.{attr}" if attr else root
    kind = type(target).__name__
    if is_self and attr:
        # an export traces a copy of the layer tree whose containers are copies too
        change = f"{method} on" if how == "call" else "item assignment into"
        return (f"{kind}.{change} `{what}` changes {INSTANCE_CONTAINER}, which a compiled "
                "program would not repeat: it runs as Python on every call")
    if how == "call":
        return (f"{kind}.{method} on `{what}` changes a Python object that a compiled program "
                "cannot hold: return the value instead")
    return (f"item assignment into the {kind} `{what}` changes a Python object that a compiled "
            "program cannot hold: return the value instead")
