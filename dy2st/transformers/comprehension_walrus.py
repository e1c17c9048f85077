"""A list, set or dict comprehension whose element or filter assigns with `:=` becomes a loop
before its statement: `:=` there binds a name of the enclosing function (Python's rule), which
the loop passes then carry (a tensor loop, a tensor `if` for a filter, unassigned after no turn).

    vals = [(y := r * 0.5) for r in x]    ->    dy2st_comp_0 = []
                                               for dy2st_comp_r_0 in x:
                                                   dy2st_comp_0.append((y := dy2st_comp_r_0 * 0.5))
                                               vals = dy2st_comp_0

Only a comprehension that is a statement's whole value moves (an assignment, `return`, an
expression statement): elsewhere in an expression, moving it would run it before what Python
evaluates first. Generator expressions are lazy and stay as they are."""
from __future__ import annotations

from typing import Any, Dict, List

import gast

from . import templates
from .analysis import target_names
from .base import Transformer
from .context import PassContext
from .walk import all_nodes, child_nodes

_COMPS = (gast.ListComp, gast.SetComp, gast.DictComp)
_START = {gast.ListComp: "[]", gast.SetComp: "set()", gast.DictComp: "{}"}


def assigns(expr: gast.AST) -> bool:
    """expr holds a `:=` that binds a name of the enclosing function (not of a nested lambda)."""
    if isinstance(expr, gast.NamedExpr):
        return True
    if isinstance(expr, gast.Lambda):
        return False
    return any(assigns(c) for c in child_nodes(expr))


def _movable(node: Any) -> bool:
    if type(node) not in _COMPS or any(g.is_async for g in node.generators):
        return False
    parts = [node.key, node.value] if isinstance(node, gast.DictComp) else [node.elt]
    parts += [c for g in node.generators for c in g.ifs]
    return any(assigns(p) for p in parts)


class ComprehensionWalrusTransformer(Transformer):
    def visit_Assign(self, node: gast.Assign) -> Any:
        return self._statement(node)

    def visit_Return(self, node: gast.Return) -> Any:
        return self._statement(node)

    def visit_Expr(self, node: gast.Expr) -> Any:
        return self._statement(node)

    def _statement(self, node: Any) -> Any:
        if not _movable(node.value):
            return node
        result = self.ctx.namer.new("dy2st_comp")
        stmts = templates.replace(f"result = {_START[type(node.value)]}", result=result)
        stmts += self._loops(node.value, result)
        node.value = gast.Name(id=result, ctx=gast.Load(), annotation=None, type_comment=None)
        return stmts + [node]

    def _loops(self, comp: Any, result: str) -> List[gast.stmt]:
        renames: Dict[str, str] = {}
        for g in comp.generators:
            names: set = set()
            target_names(g.target, names)
            renames.update({n: self.ctx.namer.new(f"dy2st_comp_{n}") for n in sorted(names)})
        if isinstance(comp, gast.DictComp):
            body = templates.replace("result[key] = value", result=result,
                                     key=_renamed(comp.key, renames),
                                     value=_renamed(comp.value, renames))
        else:
            method = "append" if isinstance(comp, gast.ListComp) else "add"
            body = templates.replace(f"result.{method}(elt)", result=result,
                                     elt=_renamed(comp.elt, renames))
        for k in range(len(comp.generators) - 1, -1, -1):
            g = comp.generators[k]
            for test in reversed(g.ifs):
                body = [gast.If(test=_renamed(test, renames), body=body, orelse=[])]
            # the first iterable is evaluated in the enclosing scope, the others inside
            iterable = g.iter if k == 0 else _renamed(g.iter, renames)
            body = [gast.For(target=_renamed(g.target, renames), iter=iterable, body=body,
                             orelse=[], type_comment=None)]
        return body


def _renamed(node: gast.AST, renames: Dict[str, str]) -> gast.AST:
    """node with the comprehension's variables under their new names (a nested lambda or
    comprehension that binds one of them again keeps its own)."""
    shadowed: set = set()
    for n in all_nodes(node):
        if isinstance(n, gast.Lambda):
            a = n.args
            own = {x.id for x in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]
                   if isinstance(x, gast.Name)}
            if own & renames.keys():
                shadowed.update(id(m) for m in all_nodes(n))
        elif isinstance(n, _COMPS + (gast.GeneratorExp,)):
            bound: set = set()
            for g in n.generators:
                target_names(g.target, bound)
            if bound & renames.keys():
                shadowed.update(id(m) for m in all_nodes(n))
    for n in all_nodes(node):
        if isinstance(n, gast.Name) and n.id in renames and id(n) not in shadowed:
            n.id = renames[n.id]
    return node


def transform(node: gast.AST, ctx: PassContext) -> gast.AST:
    return ComprehensionWalrusTransformer(ctx).visit(node)
