"""ast <-> gast conversion that builds the same trees as gast's own converters in one cheap
pass each way: ast_to_gast also lists the new nodes, gast_to_ast also sets line numbers."""
from __future__ import annotations

import ast
import sys
from typing import Any, Callable, Dict, List, Optional, Tuple

import gast

from . import anno
from .walk import CHILD_FIELDS, child_fields

AST = ast.AST
_GAST_NAME, _AST_NAME = gast.Name, ast.Name
_MISSING = object()
# gast's own converters handle what we leave to them: rare nodes (type parameters of 3.12+).
_DELEGATED = ("TypeVar", "TypeVarTuple", "ParamSpec", "TypeAlias")
_OLD_ALIAS = sys.version_info < (3, 10)          # alias nodes had no location before 3.10
_NO_TYPE_PARAMS = sys.version_info < (3, 12)     # defs had no type_params before 3.12


class _Converter:
    """One conversion direction: per source node class, either a handler for the few node kinds
    whose shape differs between ast and gast, or (target class, field names) for the rest."""

    def __init__(self, target_module: Any, special: Dict[str, Callable]) -> None:
        self.target_module = target_module
        self.special = special
        self.plans: Dict[type, Any] = {}

    def plan(self, cls: type) -> Any:
        handler = self.special.get(cls.__name__)
        if handler is not None:
            plan: Any = handler
        else:
            target = getattr(self.target_module, cls.__name__, None)
            plan = None if target is None else (target, cls._fields)
        self.plans[cls] = plan
        return plan


def _copy_fields(src: AST, new: AST, fields: Tuple[str, ...], visit: Callable) -> None:
    """new gets src's fields and location, its child nodes converted by visit."""
    dst = new.__dict__
    dst.update(src.__dict__)
    for name in fields:
        value = dst.get(name, _MISSING)
        if value is _MISSING:
            value = getattr(src, name, _MISSING)
            if value is _MISSING:
                continue
        if type(value) is list:
            dst[name] = [visit(v) if isinstance(v, AST) else v for v in value]
        elif isinstance(value, AST):
            dst[name] = visit(value)


def _copy_location(src: AST, dst: AST) -> AST:
    d, s = dst.__dict__, src.__dict__
    for a in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
        if a in s:
            d[a] = s[a]
    return dst


# ----------------------------------------------------------------------------- ast -> gast
def ast_to_gast(node: AST, nodes: Optional[List[gast.AST]] = None) -> gast.AST:
    """node as gast; every new node but the expression contexts is appended to `nodes`
    (in pre-order) when given."""
    plans = _TO_GAST.plans
    plan_of = _TO_GAST.plan
    out = nodes if nodes is not None else []

    def visit(n: AST) -> Any:
        cls = n.__class__
        if cls is _AST_NAME:        # the most common node, built directly (no handler needed)
            new = _GAST_NAME.__new__(_GAST_NAME)
            fields = new.__dict__
            fields.update(n.__dict__)
            fields["ctx"] = _GAST_CONTEXT[type(fields["ctx"])]
            fields["annotation"] = fields["type_comment"] = None
            out.append(new)
            return new
        plan = plans[cls] if cls in plans else plan_of(cls)
        if type(plan) is not tuple:
            new = None if plan is None else plan(n, visit)
            if plan is _delegate_to_gast:       # gast converted the whole subtree
                out.extend(m for m in gast.walk(new) if not isinstance(m, gast.expr_context))
            elif new is not None and not isinstance(new, gast.expr_context):
                out.append(new)
            return new
        target, fields = plan
        new = target.__new__(target)
        out.append(new)
        _copy_fields(n, new, fields, visit)
        return new

    return visit(node)


def _arg_to_gast(n: ast.arg, visit: Callable) -> gast.Name:
    annotation = visit(n.annotation) if n.annotation is not None else None
    return _copy_location(n, gast.Name(n.arg, gast.Param(), annotation, n.type_comment))


def _handler_to_gast(n: ast.ExceptHandler, visit: Callable) -> gast.ExceptHandler:
    name = visit(ast.Name(n.name, ast.Store())) if n.name else None   # listed like any Name
    new = gast.ExceptHandler(visit(n.type) if n.type is not None else None, name,
                             [visit(s) for s in n.body])
    return _copy_location(n, new)


def _def_to_gast(n: AST, visit: Callable) -> AST:
    target = getattr(gast, type(n).__name__)
    new = target.__new__(target)
    _copy_fields(n, new, type(n)._fields, visit)
    new.type_params = []
    return new


def _alias_to_gast(n: ast.alias, visit: Callable) -> gast.alias:
    new = gast.alias(n.name, n.asname)
    new.lineno = new.col_offset = new.end_lineno = new.end_col_offset = None
    return new


def _delegate_to_gast(n: AST, visit: Callable) -> AST:
    return gast.ast_to_gast(n)


# One shared instance per context kind, as ast.parse itself does (nothing mutates them), keyed
# by the class it stands in for.
_CONTEXTS = ("Load", "Store", "Del")
_GAST_CONTEXT = {getattr(ast, k): getattr(gast, k)() for k in _CONTEXTS}
_AST_CONTEXT = {getattr(gast, k): getattr(ast, k)() for k in _CONTEXTS}


def _context_handlers(shared: Dict[type, AST]) -> Dict[str, Callable]:
    return {name: (lambda n, visit: shared[type(n)]) for name in _CONTEXTS}


_TO_GAST = _Converter(gast, {
    **_context_handlers(_GAST_CONTEXT),
    "arg": _arg_to_gast, "ExceptHandler": _handler_to_gast,
    **({"FunctionDef": _def_to_gast, "AsyncFunctionDef": _def_to_gast, "ClassDef": _def_to_gast}
       if _NO_TYPE_PARAMS else {}),
    **({"alias": _alias_to_gast} if _OLD_ALIAS else {}),
    **{name: _delegate_to_gast for name in _DELEGATED},
})


# ----------------------------------------------------------------------------- gast -> ast
def gast_to_ast(node: gast.AST) -> AST:
    """node as a new ast tree (node is left as it is)."""
    plans = _TO_AST.plans
    plan_of = _TO_AST.plan

    def visit(n: AST) -> Any:
        cls = n.__class__
        plan = plans[cls] if cls in plans else plan_of(cls)
        if type(plan) is not tuple:
            return None if plan is None else plan(n, visit)
        target, fields = plan
        new = target.__new__(target)
        _copy_fields(n, new, fields, visit)
        return new

    return visit(node)


def to_ast_in_place(tree: gast.AST, origins: Optional[List[Any]] = None) -> AST:
    """tree turned into an ast tree by changing its nodes' classes (no new nodes: the gast tree
    is gone afterwards). With `origins` (a list to fill), every located node's line number
    becomes the index of its anno.ORIGIN in origins (a node without one takes its parent's;
    index 1, None, stands for no origin) and its columns 0: compiled, the code's line numbers
    then name the user's code."""
    if origins is not None:
        origins[:] = [None, None]
    return _InPlace(origins).convert(tree, 1)


class _InPlace:
    """One in-place conversion: the origins found so far and their tags."""

    def __init__(self, origins: Optional[List[Any]]) -> None:
        self.origins = origins
        self.index: Dict[int, int] = {}

    def convert(self, node: AST, tag: int) -> AST:
        cls = node.__class__
        target = _IN_PLACE.get(cls, _MISSING)
        if target is _MISSING:
            target = _IN_PLACE[cls] = _in_place_target(cls)
        if target is None:            # an ast node already (a node used twice)
            return node
        fields = node.__dict__
        if self.origins is not None:
            annos = fields.get(anno._FIELD)
            origin = annos.get(anno.ORIGIN) if annos else None
            if origin is not None:
                tag = self.index.get(id(origin))
                if tag is None:
                    tag = self.index[id(origin)] = len(self.origins)
                    self.origins.append(origin)
        names = CHILD_FIELDS.get(cls)        # (the fields that may hold nodes)
        if names is None:
            names = child_fields(cls)
        if type(target) is not type:
            target = target(self, node, tag)      # reshapes one of the few kinds that differ
        node.__class__ = target
        for name in names:
            value = fields.get(name)
            if value is None:
                continue
            if type(value) is list:
                value[:] = [self.convert(v, tag) if isinstance(v, AST) else v for v in value]
            elif isinstance(value, AST):
                fields[name] = _AST_CONTEXT[type(value)] if name == "ctx" else self.convert(value, tag)
        if self.origins is not None and "lineno" in target._attributes:
            fields["lineno"] = fields["end_lineno"] = tag
            fields["col_offset"] = fields["end_col_offset"] = 0
        return node

    def name(self, node: gast.Name, tag: int) -> type:
        fields = node.__dict__
        if type(fields["ctx"]) is gast.Param:          # a parameter: an ast.arg
            del fields["ctx"]
            fields["arg"] = fields.pop("id")
            return ast.arg
        del fields["annotation"], fields["type_comment"]
        return ast.Name

    def handler(self, node: gast.ExceptHandler, tag: int) -> type:
        fields = node.__dict__
        if fields.get("name") is not None:
            fields["name"] = fields["name"].id
        return ast.ExceptHandler

    def definition(self, node: AST, tag: int) -> type:
        del node.__dict__["type_params"]
        return getattr(ast, type(node).__name__)


_IN_PLACE: Dict[type, Any] = {}
_IN_PLACE_SPECIAL = {"Name": _InPlace.name, "ExceptHandler": _InPlace.handler,
                     **({"FunctionDef": _InPlace.definition, "AsyncFunctionDef": _InPlace.definition,
                         "ClassDef": _InPlace.definition} if _NO_TYPE_PARAMS else {})}


def _in_place_target(cls: type) -> Any:
    """The ast class a gast class becomes, the method reshaping a kind that differs (it returns
    the class), or None for an ast class."""
    if cls.__module__ == "ast":
        return None
    return _IN_PLACE_SPECIAL.get(cls.__name__) or getattr(ast, cls.__name__)


def _assign_to_ast(n: gast.Assign, visit: Callable) -> ast.Assign:
    return _copy_location(n, ast.Assign([visit(t) for t in n.targets], visit(n.value)))


def _name_to_ast(n: gast.Name, visit: Callable) -> ast.Name:
    return _copy_location(n, ast.Name(n.id, visit(n.ctx)))


def _arguments_to_ast(n: gast.arguments, visit: Callable) -> ast.arguments:
    def arg(a: Optional[gast.Name]) -> Optional[ast.arg]:
        return None if a is None else visit(_ArgMarker(a))

    return ast.arguments([arg(a) for a in n.posonlyargs], [arg(a) for a in n.args], arg(n.vararg),
                         [arg(a) for a in n.kwonlyargs],
                         [visit(d) if d is not None else None for d in n.kw_defaults],
                         arg(n.kwarg), [visit(d) for d in n.defaults])


class _ArgMarker(gast.AST):
    """A parameter (a gast Name) to be converted to ast.arg rather than ast.Name; it carries the
    Name's origin so that the tagging in gast_to_ast treats it like any other node."""
    _fields = ()
    _attributes = ()

    def __init__(self, name: gast.Name) -> None:
        self.name = name
        annos = getattr(name, anno._FIELD, None)
        if annos is not None:
            setattr(self, anno._FIELD, annos)


def _marker_to_ast(m: _ArgMarker, visit: Callable) -> ast.arg:
    n = m.name
    annotation = visit(n.annotation) if n.annotation is not None else None
    return _copy_location(n, ast.arg(n.id, annotation, n.type_comment))


def _handler_to_ast(n: gast.ExceptHandler, visit: Callable) -> ast.ExceptHandler:
    new = ast.ExceptHandler(visit(n.type) if n.type is not None else None,
                            n.name.id if n.name is not None else None, [visit(s) for s in n.body])
    return _copy_location(n, new)


def _def_to_ast(n: AST, visit: Callable) -> AST:
    target = getattr(ast, type(n).__name__)
    new = target.__new__(target)
    _copy_fields(n, new, type(n)._fields, visit)
    del new.type_params
    return new


def _alias_to_ast(n: gast.alias, visit: Callable) -> ast.alias:
    return ast.alias(n.name, n.asname)


def _delegate_to_ast(n: AST, visit: Callable) -> AST:
    return gast.gast_to_ast(n)


_TO_AST = _Converter(ast, {
    **_context_handlers(_AST_CONTEXT),
    "Assign": _assign_to_ast, "Name": _name_to_ast, "arguments": _arguments_to_ast,
    "_ArgMarker": _marker_to_ast, "ExceptHandler": _handler_to_ast,
    **({"FunctionDef": _def_to_ast, "AsyncFunctionDef": _def_to_ast, "ClassDef": _def_to_ast}
       if _NO_TYPE_PARAMS else {}),
    **({"alias": _alias_to_ast} if _OLD_ALIAS else {}),
    **{name: _delegate_to_ast for name in _DELEGATED},
})
