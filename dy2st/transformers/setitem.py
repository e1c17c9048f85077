"""Item assignment becomes a rebinding, so analysis sees the write and static values stay pure.

    x[i] = v          ->  x = _jst.SetItem(x, i, v)
    d['a'][1] = v     ->  d = _jst.SetItem(d, 'a', _jst.SetItem(d['a'], 1, v))
    self.buf[i] += v  ->  self.buf = _jst.SetItem(self.buf, i, _jst.InPlace(self.buf[i], '+', v))
    a[0], y = p, q    ->  unpack_0 = (p, q); a = _jst.SetItem(a, 0, unpack_0[0]); y = unpack_0[1]
"""
from __future__ import annotations

import copy
from typing import Any, List, Optional, Set

import gast

from . import templates
from .analysis import written_names
from .base import Transformer, copy_origin
from .context import PassContext
from .walk import all_nodes


def _is_rebindable(node: gast.AST) -> bool:
    return isinstance(node, gast.Name) or (
        isinstance(node, gast.Attribute) and _is_rebindable(node.value))


def _root(target: gast.Subscript) -> Optional[gast.expr]:
    """The name or dotted attribute under a chain of subscripts (None for anything else)."""
    base = target.value
    while isinstance(base, gast.Subscript):
        base = base.value
    return base if _is_rebindable(base) else None


def index_expr(index: gast.expr) -> gast.expr:
    """An index as an ordinary expression: `a:b` is only valid inside brackets."""
    if isinstance(index, gast.Slice):
        parts = [p if p is not None else gast.Constant(value=None, kind=None)
                 for p in (index.lower, index.upper, index.step)]
        return gast.Call(func=templates.name("slice"), args=parts, keywords=[])
    if isinstance(index, gast.Tuple):
        return gast.Tuple(elts=[index_expr(e) for e in index.elts], ctx=gast.Load())
    return index


def _load(node: gast.expr) -> gast.expr:
    node = copy.deepcopy(node)
    for n in all_nodes(node):
        if hasattr(n, "ctx"):
            n.ctx = gast.Load()
    return node


def rebind_item(target: gast.Subscript, value: gast.expr) -> List[gast.stmt]:
    """`root = SetItem(...)` for `root[i1]...[ik] = value`, rebuilding from the innermost."""
    while isinstance(target, gast.Subscript):
        value = templates.replace_expr("_jst.SetItem(container, index, value)",
                                       container=_load(target.value),
                                       index=index_expr(copy.deepcopy(target.slice)), value=value)
        target = target.value
    return templates.replace("target = value", target=copy.deepcopy(target), value=value)


def _bound_names(fdef: gast.FunctionDef) -> Set[str]:
    """Names fdef binds (parameters, assignments) or declares global / nonlocal; any other
    name it reads is a global or a closure variable."""
    a = fdef.args
    params = {x.id for x in a.posonlyargs + a.args + a.kwonlyargs}
    params |= {x.id for x in (a.vararg, a.kwarg) if x is not None}
    declared = {n for s in all_nodes(fdef) if isinstance(s, (gast.Global, gast.Nonlocal))
                for n in s.names}
    return declared | params | written_names(fdef.body, mutations=False)


def set_item_in_place(target: gast.Subscript, value: gast.expr) -> List[gast.stmt]:
    """`_jst.SetItem(root..., index, value)` as a statement: the outermost container is changed
    in place and keeps its name."""
    call = templates.replace_expr("_jst.SetItem(container, index, value)",
                                  container=_load(target.value),
                                  index=index_expr(copy.deepcopy(target.slice)), value=value)
    return [gast.Expr(value=call)]


# the operator of an augmented assignment, as `_jst.InPlace` names it
_OPS = {gast.Add: "+", gast.Sub: "-", gast.Mult: "*", gast.Div: "/", gast.FloorDiv: "//",
        gast.Mod: "%", gast.Pow: "**", gast.MatMult: "@", gast.BitAnd: "&", gast.BitOr: "|",
        gast.BitXor: "^", gast.LShift: "<<", gast.RShift: ">>"}


class SetItemTransformer(Transformer):
    def __init__(self, ctx: PassContext) -> None:
        super().__init__(ctx)
        self.bound: List[Set[str]] = []     # per enclosing function: the names it binds

    def visit_FunctionDef(self, node: gast.FunctionDef) -> Any:
        self.bound.append(_bound_names(node))
        try:
            return self.generic_visit(node)
        finally:
            self.bound.pop()

    def _outer(self, target: gast.Subscript) -> bool:
        """An item of a global or closure container: rebinding its name would make it a local
        of the converted function (an UnboundLocalError), so the item is set in place."""
        root = _root(target)
        return isinstance(root, gast.Name) and bool(self.bound) and root.id not in self.bound[-1]

    def visit_Assign(self, node: gast.Assign) -> Any:
        if len(node.targets) != 1:
            return node
        t = node.targets[0]
        if isinstance(t, gast.Subscript) and _root(t) is not None:
            if self._outer(t):
                return set_item_in_place(t, node.value)
            return rebind_item(t, node.value)
        if isinstance(t, (gast.Tuple, gast.List)) and any(
                isinstance(e, gast.Subscript) and _root(e) is not None for e in t.elts) and \
                not any(isinstance(e, gast.Starred) for e in t.elts):
            return self._unpack(t, node)
        return node

    def _unpack(self, target: gast.expr, node: gast.Assign) -> List[gast.stmt]:
        tmp = self.ctx.namer.new("unpack")
        out = templates.replace("tmp = value", tmp=tmp, value=node.value)
        for k, elt in enumerate(target.elts):
            item = templates.replace_expr("tmp[k]", tmp=tmp, k=gast.Constant(value=k, kind=None))
            if isinstance(elt, gast.Subscript) and _root(elt) is not None:
                out += rebind_item(elt, item)
            else:
                out += templates.replace("target = item", target=elt, item=item)
        copy_origin(node, out)
        return out

    def visit_AugAssign(self, node: gast.AugAssign) -> Any:
        t = node.target
        if isinstance(t, gast.Subscript) and _root(t) is not None:
            # `a[i] += v` calls a[i].__iadd__: a list item grows in place, as aliases see it
            new_value = templates.replace_expr(
                "_jst.InPlace(current, op, value)", current=_load(t),
                op=gast.Constant(value=_OPS[type(node.op)], kind=None), value=node.value)
            if self._outer(t):
                return set_item_in_place(t, new_value)
            return rebind_item(t, new_value)
        return node


def transform(node: gast.AST, ctx: PassContext) -> gast.AST:
    return SetItemTransformer(ctx).visit(node)
