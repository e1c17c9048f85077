"""Item assignment becomes a rebinding, so analysis sees the write and static values stay pure.

    x[i] = v          ->  x = _jst.SetItem(x, i, v)
    d['a'][1] = v     ->  d = _jst.SetItem(d, 'a', _jst.SetItem(d['a'], 1, v))
    self.buf[i] += v  ->  self.buf = _jst.SetItem(self.buf, i, self.buf[i] + v)
    a[0], y = p, q    ->  unpack_0 = (p, q); a = _jst.SetItem(a, 0, unpack_0[0]); y = unpack_0[1]
"""
from __future__ import annotations

import copy
from typing import Any, List, Optional

import gast

from .context import PassContext
from . import templates
from .base import Transformer, copy_origin
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


class SetItemTransformer(Transformer):
    def visit_Assign(self, node: gast.Assign) -> Any:
        if len(node.targets) != 1:
            return node
        t = node.targets[0]
        if isinstance(t, gast.Subscript) and _root(t) is not None:
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
            new_value = gast.BinOp(left=_load(t), op=node.op, right=node.value)
            return rebind_item(t, new_value)
        return node


def transform(node: gast.AST, ctx: PassContext) -> gast.AST:
    return SetItemTransformer(ctx).visit(node)
