"""Fill a short Python snippet's placeholders with AST nodes (originals keep their annotations)."""
from __future__ import annotations

import copy
import functools
import textwrap
from typing import Any, Dict, List, Union

import gast


class _Filler(gast.NodeTransformer):
    def __init__(self, subs: Dict[str, Any]) -> None:
        self.subs = subs

    def _node_for(self, name: str, ctx: Any) -> Any:
        value = self.subs[name]
        if isinstance(value, str):
            return gast.Name(id=value, ctx=ctx, annotation=None, type_comment=None)
        if isinstance(value, gast.AST):
            value = copy.copy(value) if isinstance(value, (gast.Name, gast.Attribute)) else value
            if hasattr(value, "ctx") and isinstance(value, (gast.Name, gast.Attribute, gast.Subscript,
                                                            gast.Tuple, gast.List)):
                _set_ctx(value, ctx)
            return value
        return value

    def visit_Name(self, node: gast.Name) -> Any:
        if node.id in self.subs:
            return self._node_for(node.id, node.ctx)
        return node

    def visit_Expr(self, node: gast.Expr) -> Any:
        # A placeholder standing alone as a statement is replaced by a list of statements.
        if isinstance(node.value, gast.Name) and node.value.id in self.subs:
            value = self.subs[node.value.id]
            if isinstance(value, list):
                return value
        self.generic_visit(node)
        return node

    def visit_FunctionDef(self, node: gast.FunctionDef) -> Any:
        if node.name in self.subs and isinstance(self.subs[node.name], str):
            node.name = self.subs[node.name]
        self.generic_visit(node)
        return node

    def visit_Nonlocal(self, node: gast.Nonlocal) -> Any:
        names: List[str] = []
        for n in node.names:
            value = self.subs.get(n, n)
            names.extend(value if isinstance(value, list) else [value])
        if not names:
            return None
        node.names = names
        return node

    def visit_arg(self, node: Any) -> Any:
        return node


def _set_ctx(node: Any, ctx: Any) -> None:
    if isinstance(node, (gast.Tuple, gast.List)):
        for elt in node.elts:
            _set_ctx(elt, type(ctx)())
    if hasattr(node, "ctx"):
        node.ctx = type(ctx)()


@functools.lru_cache(maxsize=256)
def _parsed(template: str) -> gast.Module:
    """Templates are a fixed set of strings: parse each once (callers get a deep copy)."""
    return gast.parse(textwrap.dedent(template))


def replace(template: str, **subs: Any) -> List[gast.stmt]:
    """Statements of `template` with each placeholder name replaced by subs[name]
    (a str becomes a Name; an AST node is used as it is; a list of statements replaces a
    placeholder standing alone on a line; a list of str fills a `nonlocal` line)."""
    tree = _Filler(subs).visit(copy.deepcopy(_parsed(template)))
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
