"""Python's private name mangling (`__x` written inside class C means `_C__x`), applied to the
parsed source of a function defined in a class: compiled on its own, outside the class, the
converted function would read `self.__x` where the class stored `self._C__x`."""
from __future__ import annotations

import types
from typing import Any, Callable, List, Optional, Set

import gast

# nodes naming something in a plain string field (Name, arguments and except names are Name
# nodes); a call's keyword is not among them: Python looks it up unmangled
_NAME_FIELDS = {gast.Attribute: "attr", gast.FunctionDef: "name",
                gast.AsyncFunctionDef: "name", gast.ClassDef: "name", gast.alias: "asname"}
for _kind, _field in (("MatchAs", "name"), ("MatchStar", "name"), ("MatchMapping", "rest")):
    if hasattr(gast, _kind):
        _NAME_FIELDS[getattr(gast, _kind)] = _field


def private_name(name: Optional[str], cls: str) -> Optional[str]:
    """`name` as Python compiles it inside class `cls`: `__x` (not `__x__`, not dotted) becomes
    `_cls__x`, the class name's leading underscores stripped; a class named only by
    underscores mangles nothing."""
    if not name or not name.startswith("__") or name.endswith("__") or "." in name:
        return name
    stripped = cls.lstrip("_")
    return f"_{stripped}{name}" if stripped else name


def enclosing_class(qualname: str) -> Optional[str]:
    """The innermost class a function with this __qualname__ was written in, if any: the last
    enclosing part not followed by `<locals>` (a function's part always is)."""
    parts = qualname.split(".")
    for i in range(len(parts) - 2, -1, -1):
        if parts[i] != "<locals>" and parts[i + 1] != "<locals>":
            return parts[i]
    return None


def _code_names(code: types.CodeType, out: Set[str]) -> Set[str]:
    out.update(code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _code_names(const, out)
    return out


def class_of(fn: Callable) -> Optional[str]:
    """The class whose body `fn` was compiled in, when its code shows mangled names of it (a
    __qualname__ alone can be copied from another function by functools.wraps)."""
    code = getattr(fn, "__code__", None)
    qualname = getattr(code, "co_qualname", None) or getattr(fn, "__qualname__", "")
    cls = enclosing_class(qualname)
    if code is None or cls is None or not cls.lstrip("_"):
        return None
    prefix = f"_{cls.lstrip('_')}__"
    return cls if any(n.startswith(prefix) for n in _code_names(code, set())) else None


def _rename(node: Any, cls: str) -> None:
    kind = node.__class__
    if kind is gast.Name:
        node.id = private_name(node.id, cls)
    elif kind is gast.Global or kind is gast.Nonlocal:
        node.names = [private_name(n, cls) for n in node.names]
    elif kind in _NAME_FIELDS:
        field = _NAME_FIELDS[kind]
        setattr(node, field, private_name(getattr(node, field), cls))
    elif kind.__name__ == "MatchClass":
        node.kwd_attrs = [private_name(n, cls) for n in node.kwd_attrs]


def mangle_function(fn_node: gast.AST, nodes: List[gast.AST], fn: Callable) -> None:
    """Rename, in place, the private names of the parsed function `fn_node` (whose nodes are
    `nodes`) as the compiler did inside fn's class; the def's own name stays (its code keeps
    it). A class nested in the function mangles its body by its own name."""
    cls = class_of(fn)
    if cls is None:
        return
    if not any(n.__class__ is gast.ClassDef for n in nodes):
        for node in nodes:
            if node is not fn_node:
                _rename(node, cls)
        return
    stack = [(child, cls) for child in gast.iter_child_nodes(fn_node)]
    while stack:
        node, owner = stack.pop()
        written = getattr(node, "name", None)
        _rename(node, owner)
        if node.__class__ is gast.ClassDef:
            # its bases and decorators belong to the enclosing scope, its body to itself (named
            # as written: a nested `class __B` mangles its own body by `B`)
            stack.extend((c, owner) for c in [*node.bases, *node.keywords, *node.decorator_list])
            stack.extend((c, written) for c in node.body)
        else:
            stack.extend((c, owner) for c in gast.iter_child_nodes(node))
