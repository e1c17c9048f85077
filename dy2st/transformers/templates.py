"""Fill a short Python snippet's placeholders with AST nodes (originals keep their annotations)."""
from __future__ import annotations

import functools
import textwrap
from typing import Any, Dict, List, Union

import gast


def _substitute(value: Any, ctx: Any) -> Any:
    if isinstance(value, str):
        return gast.Name(id=value, ctx=ctx, annotation=None, type_comment=None)
    if isinstance(value, (gast.Name, gast.Attribute)):
        value = _shallow_copy(value)   # the same node may fill several places with other ctx
    if isinstance(value, (gast.Name, gast.Attribute, gast.Subscript, gast.Tuple, gast.List)):
        _set_ctx(value, ctx)
    return value


def _fill(node: Any, subs: Dict[str, Any]) -> Any:
    """A copy of template node with placeholders replaced (one walk: clone and fill at once)."""
    t = type(node)
    if t is gast.Name and node.id in subs:
        return _substitute(subs[node.id], node.ctx)
    if t is gast.Expr and type(node.value) is gast.Name and isinstance(subs.get(node.value.id), list):
        return subs[node.value.id]       # a placeholder alone on a line: a list of statements
    if t is gast.Nonlocal:
        names: List[str] = []
        for n in node.names:
            value = subs.get(n, n)
            names.extend(value if isinstance(value, list) else [value])
        return gast.Nonlocal(names=names) if names else None
    new = t.__new__(t)
    fields = new.__dict__
    for field, value in node.__dict__.items():    # fields and location alike
        if type(value) is list:
            items = []
            for item in value:
                filled = _fill(item, subs) if isinstance(item, gast.AST) else item
                if type(filled) is list:
                    items.extend(filled)
                elif filled is not None:
                    items.append(filled)
            value = items
        elif isinstance(value, gast.AST) and not isinstance(value, gast.expr_context):
            value = _fill(value, subs)
        fields[field] = value
    if t is gast.FunctionDef and isinstance(subs.get(node.name), str):
        new.name = subs[node.name]
    return new


def _shallow_copy(node: gast.AST) -> gast.AST:
    new = type(node).__new__(type(node))
    new.__dict__.update(node.__dict__)
    return new


def _set_ctx(node: Any, ctx: Any) -> None:
    if isinstance(node, (gast.Tuple, gast.List)):
        for elt in node.elts:
            _set_ctx(elt, type(ctx)())
    if hasattr(node, "ctx"):
        node.ctx = type(ctx)()


@functools.lru_cache(maxsize=256)
def _parsed(template: str) -> gast.Module:
    """Templates are a fixed set of strings: parse each once (never modified: filling copies)."""
    return gast.parse(textwrap.dedent(template))


def replace(template: str, **subs: Any) -> List[gast.stmt]:
    """Statements of `template` with each placeholder name replaced by subs[name]
    (a str becomes a Name; an AST node is used as it is; a list of statements replaces a
    placeholder standing alone on a line; a list of str fills a `nonlocal` line)."""
    tree = _fill(_parsed(template), subs)
    body = []
    for stmt in tree.body:
        body.extend(stmt if isinstance(stmt, list) else [stmt])
    return body


def replace_expr(template: str, **subs: Any) -> gast.expr:
    stmts = replace(template, **subs)
    assert len(stmts) == 1 and isinstance(stmts[0], gast.Expr), template
    return stmts[0].value


def name(id_: str, store: bool = False) -> gast.Name:
    return gast.Name(id=id_, ctx=gast.Store() if store else gast.Load(), annotation=None,
                     type_comment=None)


def flatten_body(stmts: List[Union[gast.stmt, List[gast.stmt]]]) -> List[gast.stmt]:
    out: List[gast.stmt] = []
    for s in stmts:
        out.extend(s if isinstance(s, list) else [s])
    return out
