"""Item assignment becomes a rebinding, so analysis sees the write and static values stay pure.

    x[i] = v          ->  x = _jst.SetItem(x, i, v)
    self.buf[i] += v  ->  self.buf = _jst.SetItem(self.buf, i, self.buf[i] + v)
"""
from __future__ import annotations

import copy
from typing import Any

import gast

from . import templates
from .base import Transformer


def _is_rebindable(node: gast.AST) -> bool:
    return isinstance(node, gast.Name) or (
        isinstance(node, gast.Attribute) and _is_rebindable(node.value))


def index_expr(index: gast.expr) -> gast.expr:
    """An index as an ordinary expression: `a:b` is only valid inside brackets."""
    if isinstance(index, gast.Slice):
        parts = [p if p is not None else gast.Constant(value=None, kind=None)
                 for p in (index.lower, index.upper, index.step)]
        return gast.Call(func=templates.name("slice"), args=parts, keywords=[])
    if isinstance(index, gast.Tuple):
        return gast.Tuple(elts=[index_expr(e) for e in index.elts], ctx=gast.Load())
    return index


class SetItemTransformer(Transformer):
    def visit_Assign(self, node: gast.Assign) -> Any:
        if len(node.targets) == 1 and isinstance(node.targets[0], gast.Subscript) and \
                _is_rebindable(node.targets[0].value):
            t = node.targets[0]
            return templates.replace("target = _jst.SetItem(container, index, value)",
                                     target=copy.deepcopy(t.value), container=t.value,
                                     index=index_expr(t.slice), value=node.value)
        return node

    def visit_AugAssign(self, node: gast.AugAssign) -> Any:
        t = node.target
        if isinstance(t, gast.Subscript) and _is_rebindable(t.value):
            read = copy.deepcopy(t)
            read.ctx = gast.Load()
            new_value = gast.BinOp(left=read, op=node.op, right=node.value)
            return templates.replace("target = _jst.SetItem(container, index, value)",
                                     target=copy.deepcopy(t.value), container=copy.deepcopy(t.value),
                                     index=index_expr(copy.deepcopy(t.slice)), value=new_value)
        return node


def transform(node: gast.AST, ctx) -> gast.AST:
    return SetItemTransformer(ctx).visit(node)
